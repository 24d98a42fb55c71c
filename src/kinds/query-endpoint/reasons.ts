import { reasonNames, type KindReasons } from '../../base/reasons.ts';
import { SERVICE_ID_REASONS } from '../shared/service-scoped.ts';

/**
 * The reasons only QueryEndpoint objects carry, and what common ones mean for them: the kind's page in docs/kinds
 * lists them (npm run generate). Its code raises its own by the names in `QUERY_ENDPOINT_REASON`, and no other.
 */
export const queryEndpointReasons = {
  ...SERVICE_ID_REASONS,
  Conflict: { means: "another QueryEndpoint owns this service's endpoint, named here" },
  WaitingForReference: { means: 'the service is not usable yet' },
} as const satisfies KindReasons;

/** Each of its reasons by name, as the kind raises it. */
export const QUERY_ENDPOINT_REASON = reasonNames(queryEndpointReasons);
