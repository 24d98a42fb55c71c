import { z } from 'zod';
import { ObjectName } from '../shared/common.ts';
import type { GrantSchema } from '../shared/grant-schema.ts';

// CloudIdGrant: what a namespace lets other namespaces reach of its cloud objects by plain id, modelled on the
// Gateway API's ReferenceGrant. It lives in the namespace that owns the cloud objects; one in the referring
// namespace counts for nothing. sluice only reads it: it has no status and makes nothing in the cloud.

/** The kinds that name plain ids, and the kinds a cloud object's owner record (or holder) can be. */
const KINDS = [
  'DatabaseService',
  'Pipe',
  'QueryEndpoint',
  'ReversePrivateEndpoint',
  'Alert',
  'ApiKey',
] as const;

/** The fields a plain id is written in. */
export const GRANT_FIELDS = ['serviceId', 'backupId', 'restore', 'sluice.dev/external-id'] as const;

const NamespaceName = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);

const GrantFrom = z
  .object({
    namespace: NamespaceName.describe('The namespace whose objects may refer.'),
    kind: z.enum(KINDS).describe('The kind of the referring objects.'),
    field: z
      .enum(GRANT_FIELDS)
      .describe(
        'The field they may refer by: serviceId (Pipe, QueryEndpoint, ReversePrivateEndpoint), backupId or restore (DatabaseService: a restore from a backup), or the annotation sluice.dev/external-id (any kind: adopting the cloud object).',
      ),
  })
  .describe('Objects of another namespace that may refer to cloud objects of this one.');

const GrantTo = z
  .object({
    kind: z
      .enum(KINDS)
      .describe(
        "The kind of this namespace's objects whose cloud objects may be referred to: DatabaseService for a service and everything in it (its pipes, endpoints and backups), Alert for an alert.",
      ),
    name: ObjectName.optional().describe('Only this object; every object of the kind when left out.'),
  })
  .describe("This namespace's objects whose cloud objects may be referred to.");

export const CloudIdGrantSpec = z.object({
  from: z.array(GrantFrom).min(1).max(64).describe('Who may refer: namespace, kind and field.'),
  to: z.array(GrantTo).min(1).max(64).describe('What they may refer to.'),
});

export type CloudIdGrantObject = {
  apiVersion: string;
  kind: 'CloudIdGrant';
  metadata: { name: string; namespace: string; resourceVersion?: string; uid?: string };
  spec: z.infer<typeof CloudIdGrantSpec>;
};

export const cloudIdGrantSchema: GrantSchema = {
  kind: 'CloudIdGrant',
  plural: 'cloudidgrants',
  singular: 'cloudidgrant',
  shortNames: ['idgrant'],
  description:
    "Lets objects of other namespaces reach this namespace's cloud objects by plain id (a Pipe's serviceId, a DatabaseService's backupId or restore, the sluice.dev/external-id annotation), as the Gateway API's ReferenceGrant does for references. Only a grant in the namespace that owns the cloud object counts; deleting it stops new uses at once (objects already using it keep working and say so in their Granted condition).",
  spec: CloudIdGrantSpec,
  printerColumns: [
    { name: 'From', type: 'string', jsonPath: '.spec.from[*].namespace' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};
