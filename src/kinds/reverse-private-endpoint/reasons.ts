import { reasonNames, type KindReasons } from '../../base/reasons.ts';
import { SERVICE_ID_REASONS } from '../shared/service-scoped.ts';

/**
 * The reasons only ReversePrivateEndpoint objects carry, and what common ones mean for them: the kind's page in docs/kinds
 * lists them (npm run generate). Its code raises its own by the names in `REVERSE_PRIVATE_ENDPOINT_REASON`, and no other.
 */
export const reversePrivateEndpointReasons = {
  ...SERVICE_ID_REASONS,
  Provisioning: {
    condition: 'Ready=False',
    end: 'wait',
    kstatus: 'InProgress',
    argocd: 'Progressing',
    means: 'the cloud is setting the endpoint up',
  },
  PendingAcceptance: {
    condition: 'Ready=False',
    end: 'wait',
    kstatus: 'InProgress',
    argocd: 'Progressing',
    means: 'accept the connection on your side; the message names `endpointId`',
  },
  Rejected: {
    condition: 'Ready=False',
    end: 'terminal',
    kstatus: 'Failed',
    argocd: 'Degraded',
    means:
      'final: the connection was rejected on your side; delete the object and create it again (one Warning Event)',
  },
  Expired: {
    condition: 'Ready=False',
    end: 'terminal',
    kstatus: 'Failed',
    argocd: 'Degraded',
    means:
      'final: the connection was not accepted in time; delete the object and create it again (one Warning Event)',
  },
  Failed: {
    condition: 'Ready=False',
    end: 'terminal',
    kstatus: 'Failed',
    argocd: 'Degraded',
    means:
      'final: the cloud reports the endpoint failed; delete the object and create it again (one Warning Event)',
  },
  WaitingForDependants: { means: 'being deleted while Pipes still reference it' },
  CannotUpdate: {
    condition: 'Synced=False',
    end: 'terminal',
    kstatus: 'Failed',
    argocd: 'Degraded',
    means: 'an adopted endpoint differs from the spec; the message names the fields',
  },
  AmbiguousAdoption: {
    means: 'several endpoints match after a crash; pick one with `sluice.dev/external-id`',
  },
} as const satisfies KindReasons;

/** Each of its reasons by name, as the kind raises it. */
export const REVERSE_PRIVATE_ENDPOINT_REASON = reasonNames(reversePrivateEndpointReasons);
