import {
  DATABASE_SERVICE_POLICY,
  DatabaseServiceSpec,
  DatabaseServiceStatus,
  PLAIN_ID_REFUSED,
  RESET_PASSWORD_ANNOTATION,
  RESTORE_SOURCE,
  restoreSourceReference,
  PASSWORD_FIELD,
} from './schema.ts';
import { renderTemplate } from '../shared/connection-template.ts';
import { defineKind } from '../shared/descriptor.ts';
import type { DatabaseService } from './schema.ts';
import type { PlainIdUse, SecretUse } from '../../managed/index.ts';

/** The DatabaseService kind: everything sluice knows of it but its cloud client, which is loaded on first use. */
export const databaseServiceKind = defineKind<DatabaseService>({
  // Its own reasons, and what the common ones mean for it; the kind's page lists them (npm run generate).
  reasons: {
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
  },
  policyFields: DATABASE_SERVICE_POLICY,
  kind: 'DatabaseService',
  plural: 'databaseservices',
  singular: 'databaseservice',
  shortNames: ['dbs'],
  description: 'A cloud database service managed by sluice.',
  spec: DatabaseServiceSpec,
  status: DatabaseServiceStatus,
  printerColumns: [
    { name: 'Name', type: 'string', jsonPath: '.spec.name', priority: 1 },
    { name: 'State', type: 'string', jsonPath: '.status.state' },
    { name: 'Replicas', type: 'integer', jsonPath: '.status.observed.numReplicas', priority: 1 },
    { name: 'Min-Mem', type: 'number', jsonPath: '.status.observed.minReplicaMemoryGb', priority: 1 },
    { name: 'Max-Mem', type: 'number', jsonPath: '.status.observed.maxReplicaMemoryGb', priority: 1 },
    { name: 'Idle', type: 'boolean', jsonPath: '.status.observed.idleScaling', priority: 1 },
  ],
  references: [restoreSourceReference],
  connectionSecret: {
    name: (resource) => resource.spec.connectionSecret?.name ?? `${resource.metadata.name}-connection`,
    requiredKeys: ['password'],
    resetAnnotation: RESET_PASSWORD_ANNOTATION,
    derive: (resource, details) =>
      renderTemplate(resource.spec.connectionSecret?.template ?? {}, details).values,
  },
  // What a create restores from, recorded with its intent: shown to users, never acted on.
  createStatusFields: ['restoredFromBackup'],
  plainIds: (resource, references) => restorePlainIds(resource, references[RESTORE_SOURCE]?.[0]?.id),
  secretReferences: (resource) => passwordSecretUses(resource),
  driftReads: (resource) => [
    { api: 'management', list: 'services' },
    // What the spec manages beside the service costs one read of each at every drift check.
    ...surroundingReads(resource).map((read) => ({
      api: 'management' as const,
      list: `${read} of ${resource.status?.id}`,
    })),
  ],
  exportStep: () => import('./export.ts').then((module) => module.databaseServiceExport),
  controller: () => import('./controller.ts').then((module) => module.databaseServiceController),
});

/** The per-service reads the spec asks for beside the services list (none before the service exists). */
function surroundingReads(resource: DatabaseService): string[] {
  const { spec, status } = resource;
  if (!status?.id) return [];
  return [
    ...(spec.backups ? ['backupConfiguration', 'backups'] : []),
    ...(spec.scalingSchedule ? ['scalingSchedule'] : []),
    ...(spec.upgradeWindow ? ['upgradeWindow'] : []),
  ];
}

/** The password Secret the spec names: sent (by hash) whenever sluice has no record of having sent it. */
function passwordSecretUses(resource: DatabaseService): SecretUse[] {
  const ref = resource.spec.passwordSecretRef;
  // The spec asks the cloud to take this password: set it (by hash) whenever sluice has no record of having
  // done so, on adoption too, so the connection Secret never carries a password the service does not have.
  return ref
    ? [{ field: PASSWORD_FIELD, secretName: ref.name, keys: [ref.key], sendWhenUnrecorded: true }]
    : [];
}

/**
 * What a create restores from, as plain ids: `backupId`, and the service `restore` names (a DatabaseService
 * of this namespace, which may have adopted another namespace's service). Read by the create alone.
 */
function restorePlainIds(resource: DatabaseService, restoreSourceId: string | undefined): PlainIdUse[] {
  const { backupId } = resource.spec;
  return [
    ...(backupId
      ? [{ field: 'backupId', id: backupId, reason: 'BackupIdNotAllowed', createOnly: true }]
      : []),
    ...(restoreSourceId
      ? [
          {
            field: 'restore',
            id: restoreSourceId,
            reason: 'RestoreNotAllowed',
            createOnly: true,
            heldBy: 'DatabaseService',
          },
        ]
      : []),
  ];
}
