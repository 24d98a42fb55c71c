import { z } from 'zod';
import { CONDITION_STATUSES, type Condition as ConditionShape } from '../../kube/conditions.ts';
import {
  MAX_DRIFT_ENTRIES,
  MAX_MANAGED_ENTRIES,
  MAX_OBSERVED_LENGTH,
  STATUS_BOUNDS,
  DELETION_POLICIES,
  MANAGEMENT_POLICIES,
  NAMESPACE_CREDENTIALS,
  OPERATOR_CREDENTIALS,
  type DeletionPolicy,
} from '../../managed/index.ts';

export const GROUP = 'sluice.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

/** A Kubernetes object name (RFC 1123 subdomain), used for references to Secrets in the same namespace. */
export const ObjectName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);

export const LocalObjectReference = z
  .object({ name: ObjectName.describe('Name of an object in the same namespace.') })
  .describe('A reference to an object in the same namespace.');

/** Fields every managed kind has in its spec; the generic reconciler reads them, the kinds never do. */
export const managedSpecFields = (defaultPolicy: DeletionPolicy) => ({
  deletionPolicy: z
    .enum(DELETION_POLICIES)
    .default(defaultPolicy)
    .describe(
      `What happens in the cloud when this resource is deleted (also by a GitOps tool pruning a removed manifest): Delete removes the cloud resource, Orphan leaves it. Defaults to ${defaultPolicy}${defaultPolicy === 'Delete' ? ': deleting this object deletes the cloud resource' : ': deleting this object leaves the cloud resource'}; sluice plan --prune shows which.`,
    ),
  // Optional rather than defaulted: an object that never says stays exactly as it was written.
  managementPolicy: z
    .enum(MANAGEMENT_POLICIES)
    .optional()
    .describe(
      'Full: sluice creates, updates and deletes the cloud resource. Observe: sluice only reads it and writes status, including the calls Full would send (status.pendingChanges); it never creates, changes or deletes, whatever the deletionPolicy, so an Observe object needs a status.id or the sluice.dev/external-id annotation. Defaults to Full.',
    ),
  credentialsRef: LocalObjectReference.optional().describe(
    "A Secret in this namespace with the API credentials to use instead of the operator's (keys organizationId, keyId, keySecret, managementUrl, alertsUrl, alertsToken).",
  ),
});

// The runtime owns the condition's shape (it writes conditions); this is its schema for the CRD.
export const Condition = z
  .object({
    type: z.string().max(316).describe('Type of condition: Ready, Synced, Drifted, Reconciling or Stalled.'),
    status: z.enum(CONDITION_STATUSES).describe('True, False or Unknown.'),
    reason: z.string().max(1024).describe('A CamelCase word saying why the condition has its status.'),
    message: z
      .string()
      .max(STATUS_BOUNDS.message)
      .optional()
      .describe('A sentence for people, with details.'),
    lastTransitionTime: z.string().describe('When the status last changed (RFC 3339).'),
    observedGeneration: z
      .number()
      .int()
      .optional()
      .describe('The metadata.generation this condition was set for.'),
  })
  .describe(
    'One aspect of the resource, in the shape Kubernetes uses for conditions.',
  ) satisfies z.ZodType<ConditionShape>;

/** Fields every managed kind has in its status. */
export const managedStatusFields = {
  id: z
    .string()
    .max(STATUS_BOUNDS.id)
    .optional()
    .describe('The id of the cloud resource this object manages.'),
  conditions: z
    .array(Condition)
    .max(16)
    .optional()
    .describe(
      'Ready: the cloud matches the spec. Synced: the last reconcile succeeded. Drifted: a reported difference. Reconciling (while sluice works or waits) and Stalled (a failure only a person ends), present only while True, are the conditions kstatus reads (Flux, kpt).',
    ),
  observedGeneration: z
    .number()
    .int()
    .optional()
    .describe('The metadata.generation the status was last computed for.'),
  pendingChanges: z
    .array(
      z
        .object({
          method: z.string().max(16).describe('HTTP method: POST, PUT, PATCH or DELETE.'),
          path: z.string().max(STATUS_BOUNDS.path).describe('The request path.'),
          fields: z
            .array(
              z
                .string()
                .max(STATUS_BOUNDS.fieldName)
                .describe('A body field, as a dotted path (ipAccessList.add).'),
            )
            .max(STATUS_BOUNDS.pendingChangeFields)
            .describe('The body fields the call sets (names only, never values).'),
        })
        .describe('One call sluice would send.'),
    )
    .max(STATUS_BOUNDS.pendingChanges)
    .optional()
    .describe(
      'With managementPolicy Observe: the calls that would make the cloud match the spec, which switching to Full sends.',
    ),
  drift: z
    .array(
      z
        .object({
          path: z.string().max(253).describe('The spec field, dotted for nested fields.'),
          observed: z
            .string()
            .max(MAX_OBSERVED_LENGTH)
            .describe(
              `The cloud's value: a string as it is, anything else as JSON, cut at ${MAX_OBSERVED_LENGTH} characters; (sensitive) for a credential.`,
            ),
          since: z.string().max(64).describe('When sluice first saw the field differ (RFC 3339).'),
        })
        .describe('A field that differs from the spec and is left as it is.'),
    )
    .max(MAX_DRIFT_ENTRIES)
    .optional()
    .describe(
      'The fields that differ from the spec and are not corrected, as spec.fieldPolicy (or the sluice.dev/drift: report annotation) allows.',
    ),
  driftCount: z
    .number()
    .int()
    .optional()
    .describe(
      `How many fields differ and are not corrected (status.drift lists the first ${MAX_DRIFT_ENTRIES}).`,
    ),
  managedEntries: z
    .record(
      z.string().max(253),
      z
        .array(z.string().max(256))
        .max(MAX_MANAGED_ENTRIES)
        .describe('Entry identities (a source, a tag key).'),
    )
    .optional()
    .describe(
      'By additive list: the entries sluice set; one the spec no longer holds is removed, the entries others add never are.',
    ),
  adopted: z
    .boolean()
    .optional()
    .describe(
      'True when the cloud resource was found recorded in the cloud for this object (a rebuilt cluster taking back what it had) rather than created by it: its secret values were never known here, so sluice does not reset them unasked.',
    ),
  credentialsSecret: z
    .string()
    .max(253)
    .optional()
    .describe(
      "The Secret of this namespace whose credentials the last reconcile used: spec.credentialsRef's, else the namespace's default sluice-credentials (never for an ApiKey). Absent: the operator's credentials.",
    ),
  credentials: z
    .string()
    .max(253)
    .optional()
    .describe(
      `Which credentials this object's calls are made with, as kubectl get shows them: the Secret spec.credentialsRef names, else the namespace's default ${NAMESPACE_CREDENTIALS} while it exists (never for an ApiKey), else ${OPERATOR_CREDENTIALS} (the operator's). Written before the Secret is read, so a Secret that is missing is named here.`,
    ),
  organizationId: z
    .string()
    .max(64)
    .optional()
    .describe(
      'The organization the cloud resource lives in: that of the credentials it was created or first observed with. Credentials of another organization are refused (Synced=False, OrganizationChanged): nothing is read, created or deleted under them.',
    ),
  lastHandledReconcileAt: z
    .string()
    .max(STATUS_BOUNDS.recordedAnnotation)
    .optional()
    .describe(
      'The last value of the sluice.dev/reconcile-requested-at annotation the operator acted on (a value over 1024 characters as its sha256: digest).',
    ),
};

/**
 * Status fields of a kind whose spec references Secrets (`…SecretRef`): what the cloud was last sent, as
 * keyed digests (never the values), and the resourceVersion-only record earlier versions kept.
 */
export const secretRecordStatusFields = {
  secretDigests: z
    .object({
      keyId: z
        .string()
        .max(64)
        .describe(
          'Fingerprint of the key the digests are made with; under a new key they are recorded again.',
        ),
      fields: z
        .record(
          z.string().max(253),
          z
            .object({
              secret: z.string().max(253).describe('The Secret the values came from.'),
              resourceVersion: z.string().max(64).describe("The Secret's resourceVersion then."),
              digest: z.string().max(64).describe('HMAC-SHA-256 of the values the field uses.'),
            })
            .describe('One …SecretRef field.'),
        )
        .describe('By spec field, e.g. source.kafka.credentialsSecretRef.'),
    })
    .optional()
    .describe(
      'Keyed digests of the Secret values the cloud has, by spec field: a change of the values sends them, a change of labels or annotations does not.',
    ),
  secretVersions: z
    .record(z.string(), z.string().describe('resourceVersion.'))
    .optional()
    .describe(
      'Recorded by earlier versions of sluice (resourceVersion by Secret); replaced by secretDigests.',
    ),
};
