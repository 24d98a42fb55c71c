import {
  DATABASE_SERVICE_POLICY,
  DatabaseServiceSpec,
  DatabaseServiceStatus,
  RESET_PASSWORD_ANNOTATION,
  RESTORE_SOURCE,
  restoreSourceReference,
  PASSWORD_FIELD,
  type DatabaseService,
} from './schema.ts';
import { defineKind } from '../shared/descriptor.ts';
import { DATABASE_SERVICE_REASON, databaseServiceReasons } from './reasons.ts';
import type { PlainIdUse, SecretUse } from '../../managed/index.ts';

/** The DatabaseService kind, as the registry lists it; its controller and export step are loaded on first use. */
export const databaseServiceKind = defineKind<DatabaseService>({
  reasons: databaseServiceReasons,
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
    specField: 'connectionSecret',
    defaultSuffix: '-connection',
    templated: true,
    requiredKeys: ['password'],
    resetAnnotation: RESET_PASSWORD_ANNOTATION,
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
      ? [
          {
            field: 'backupId',
            id: backupId,
            reason: DATABASE_SERVICE_REASON.BackupIdNotAllowed,
            createOnly: true,
          },
        ]
      : []),
    ...(restoreSourceId
      ? [
          {
            field: 'restore',
            id: restoreSourceId,
            reason: DATABASE_SERVICE_REASON.RestoreNotAllowed,
            createOnly: true,
            heldBy: 'DatabaseService',
          },
        ]
      : []),
  ];
}
