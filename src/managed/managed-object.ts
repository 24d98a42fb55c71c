/**
 * The object every sluice kind is: what the runtime reads of its metadata, spec and status. Apart from the
 * kind contract (types.ts), so that what references and Secrets are resolved from needs nothing of it.
 */
import type { KubeObject } from '../kube/cache.ts';
import type { Condition } from '../kube/conditions.ts';

/** What happens in the cloud when a resource is deleted: `Delete` removes the cloud resource, `Orphan` leaves it. */
export const DELETION_POLICIES = ['Delete', 'Orphan'] as const;
export type DeletionPolicy = (typeof DELETION_POLICIES)[number];

/** What sluice may do in the cloud: `Full` makes it match the spec; `Observe` only reads it into status. */
export const MANAGEMENT_POLICIES = ['Full', 'Observe'] as const;
export type ManagementPolicy = (typeof MANAGEMENT_POLICIES)[number];

/** The shape every sluice kind shares; the generic reconciler reads only these fields. */
export interface ManagedObject extends KubeObject {
  metadata: KubeObject['metadata'] & {
    namespace: string;
    uid: string;
    generation?: number;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    finalizers?: string[];
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
  };
  spec: {
    deletionPolicy?: DeletionPolicy;
    managementPolicy?: ManagementPolicy;
    credentialsRef?: { name: string };
  } & Record<string, unknown>;
  status?: ManagedStatus;
}

export interface ManagedStatus {
  id?: string;
  /** What the cloud was last sent from each referenced Secret, as keyed digests: never the values. */
  secretDigests?: SecretDigests;
  /** resourceVersion per referenced Secret, as earlier versions recorded it: read once to migrate. */
  secretVersions?: Record<string, string>;
  conditions?: Condition[];
  observedGeneration?: number;
  /** The cloud object was found recorded for this object, not created by it: its secrets are not ours. */
  adopted?: boolean;
  [field: string]: unknown;
}

/** Keyed digests of the Secret values each `…SecretRef` field last sent to the cloud. */
export interface SecretDigests {
  /** Fingerprint of the digest key (`DigestKey.id`): digests under another key cannot be compared. */
  keyId: string;
  /** By spec field (`source.kafka.credentialsSecretRef`). */
  fields: Record<string, SecretDigest>;
}

export interface SecretDigest {
  /** The Secret the values came from, and its resourceVersion then. */
  secret: string;
  resourceVersion: string;
  /** HMAC-SHA-256 of the field's values (`digestOf`). */
  digest: string;
}

/**
 * The well-known name of a namespace's default credentials Secret: an object without `spec.credentialsRef`
 * uses this Secret of its own namespace while it exists, else the operator's credentials. Only the object's
 * namespace is ever looked in, so no other namespace's Secret can become an object's default.
 */
export const NAMESPACE_CREDENTIALS = 'sluice-credentials';

/**
 * The name of the Secret (in the object's namespace) whose credentials the object uses: its own
 * `spec.credentialsRef`, else the namespace's default when `exists` finds it; undefined: the operator's.
 * An object of a kind that makes credentials (`stated`) never takes the namespace's default: a key it made
 * could become its own credentials, or a namespace default added later move it onto another key.
 */
export function credentialsSecretNameOf(
  resource: ManagedObject,
  exists: (namespace: string, name: string) => boolean,
  stated = false,
): string | undefined {
  const own = resource.spec.credentialsRef?.name;
  if (own || stated) return own;
  return exists(resource.metadata.namespace, NAMESPACE_CREDENTIALS) ? NAMESPACE_CREDENTIALS : undefined;
}

/** `status.credentials` of an object that uses the operator's credentials: no Secret can have this name. */
export const OPERATOR_CREDENTIALS = '(operator)';

/**
 * Which credentials a resource's calls are made with, as far as the runtime tells them apart: its own
 * Secret (`namespace/name`), or the operator's (`''`).
 */
export function credentialsKeyOf(resource: ManagedObject): string {
  const own = resource.spec.credentialsRef?.name;
  return own ? `${resource.metadata.namespace}/${own}` : '';
}
