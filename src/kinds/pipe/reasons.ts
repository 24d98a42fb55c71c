import { reasonNames, type KindReasons } from '../../base/reasons.ts';
import { SERVICE_ID_REASONS } from '../shared/service-scoped.ts';

/**
 * The reasons only Pipe objects carry, and what common ones mean for them: the kind's page in docs/kinds
 * lists them (npm run generate). Its code raises its own by the names in `PIPE_REASON`, and no other.
 */
export const pipeReasons = {
  ...SERVICE_ID_REASONS,
  WaitingForReference: {
    means: 'the service or a reverse private endpoint is not usable yet; the message names it',
  },
  CloudFailed: { means: 'the cloud reports the pipe `Failed` or `InternalError`' },
  CannotRotate: {
    condition: 'Synced=False',
    end: 'terminal',
    kstatus: 'Failed',
    argocd: 'Degraded',
    means: 'a connection string changed; the API cannot take it in place',
  },
  InvalidReference: { means: 'a referenced ReversePrivateEndpoint belongs to another service' },
  DeleteBlocked: {
    condition: 'Synced=False',
    end: 'retry',
    kstatus: 'InProgress',
    argocd: 'Progressing',
    means: "the pipe's service is stopped, so the cloud refuses the delete",
  },
  SecretMissing: { means: 'a `…SecretRef` Secret or key is missing' },
} as const satisfies KindReasons;

/** Each of its reasons by name, as the kind raises it. */
export const PIPE_REASON = reasonNames(pipeReasons);
