import { reasonNames, type KindReasons } from '../../base/reasons.ts';

/**
 * The reasons only ApiKey objects carry, and what common ones mean for them: the kind's page in docs/kinds
 * lists them (npm run generate). Its code raises its own by the names in `API_KEY_REASON`, and no other.
 */
export const apiKeyReasons = {
  Expired: {
    condition: 'Ready=False',
    end: 'terminal',
    kstatus: 'Failed',
    argocd: 'Degraded',
    means: "the key's `expireAt` has passed: it authenticates no more",
  },
  RoleNotAllowed: {
    condition: 'Synced=False',
    end: 'terminal',
    kstatus: 'Failed',
    argocd: 'Degraded',
    means:
      "`spec.roles` names a role the administrator's allow-list (`--api-key-roles`) does not give the namespace: nothing is created or changed",
  },
  OperatorKey: {
    condition: 'Synced=False',
    end: 'terminal',
    kstatus: 'Failed',
    argocd: 'Degraded',
    means:
      "the cloud key is the one sluice signs in with (the operator's, or this object's credentials): no write reaches it, and deleting the object leaves it",
  },
  SecretNotWritable: { means: 'the credentials Secret cannot be written: no key is made' },
  SecretConflict: { means: 'a Secret of that name belongs to something else' },
} as const satisfies KindReasons;

/** Each of its reasons by name, as the kind raises it. */
export const API_KEY_REASON = reasonNames(apiKeyReasons);
