import { reasonNames, type KindReasons } from '../../base/reasons.ts';
import { SERVICE_ID_REASONS } from '../shared/service-scoped.ts';

/**
 * The reasons only a pipe writes, and what the common ones mean for it: its page in docs/kinds lists
 * them (npm run generate), and its code raises no other of its own (`PIPE_REASON`).
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
