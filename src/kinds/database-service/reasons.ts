import { reasonNames, type KindReasons } from '../../base/reasons.ts';
import { PLAIN_ID_REFUSED } from './schema.ts';

/**
 * The reasons only DatabaseService objects carry, and what common ones mean for them: the kind's page in docs/kinds
 * lists them (npm run generate). Its code raises its own by the names in `DATABASE_SERVICE_REASON`, and no other.
 */
export const databaseServiceReasons = {
  Available: {
    means:
      'the service is in the desired state (running, or idle, or stopped when asked); with an adopted password unknown, the message says so',
  },
  Unavailable: { means: '`service is <state>` (provisioning, stopping, …)' },
  AlreadyManaged: { means: "another DatabaseService holds this service's id (above)" },
  WaitingForDependants: { means: '`deletionPolicy: Delete` while objects still reference it' },
  InvalidReference: {
    means:
      '`spec.restore.fromBackupOf` names a DatabaseService of another region or provider; nothing is sent',
  },
  BackupIdNotAllowed: {
    ...PLAIN_ID_REFUSED,
    means:
      "`spec.backupId` names a backup of another namespace's service that grants this one no restore from it (a CloudIdGrant there), or of a service made outside sluice that the administrator does not allow this namespace; nothing is created",
  },
  RestoreNotAllowed: {
    ...PLAIN_ID_REFUSED,
    means:
      "`spec.restore.fromBackupOf` names a DatabaseService that adopted another namespace's service, which grants this one no restore from it; nothing is created",
  },
} as const satisfies KindReasons;

/** Each of its reasons by name, as the kind raises it. */
export const DATABASE_SERVICE_REASON = reasonNames(databaseServiceReasons);
