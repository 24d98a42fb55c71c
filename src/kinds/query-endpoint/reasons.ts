import { reasonNames, type KindReasons } from '../../base/reasons.ts';
import { SERVICE_ID_REASONS } from '../shared/service-scoped.ts';

/**
 * The reasons only a query endpoint writes, and what the common ones mean for it: its page in docs/kinds lists
 * them (npm run generate), and its code raises no other of its own (`QUERY_ENDPOINT_REASON`).
 */
export const queryEndpointReasons = {
  ...SERVICE_ID_REASONS,
  Conflict: { means: "another QueryEndpoint owns this service's endpoint, named here" },
  WaitingForReference: { means: 'the service is not usable yet' },
} as const satisfies KindReasons;

/** Each of its reasons by name, as the kind raises it. */
export const QUERY_ENDPOINT_REASON = reasonNames(queryEndpointReasons);
