import type { Condition, DeletionPolicy } from '../../api/common.ts';
import type { KubeObject } from '../cache.ts';
import type { ReferenceDeclaration, ResolvedReferences } from './references.ts';
import type { ResolvedSecrets, SecretUse } from './secret-references.ts';

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
  spec: { deletionPolicy?: DeletionPolicy; credentialsRef?: { name: string } } & Record<string, unknown>;
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

/** Values for the resource's connection Secret: every value is a string and may be a secret. */
export type ConnectionDetails = Record<string, string>;

/** What the cloud says about a resource, compared with its spec. `P` is the kind's plan: the calls that fix it. */
export type Observation<S = unknown> =
  | { exists: false }
  | {
      exists: true;
      /** The calls that turn what was observed into the spec, computed once and handed back to `update`. */
      plan: S;
      /** Names of the spec fields whose cloud value differs (empty when up to date). */
      differences: string[];
      /** True when the cloud resource is usable in the desired state (e.g. a service is running). */
      available: boolean;
      /** Why it is not available yet (shown in the Ready condition), e.g. `service is provisioning`. */
      waitingFor?: string;
      /** Set when the cloud reports the resource failed (e.g. a pipe in state Failed): says what it reports. */
      failed?: string;
      /** The Ready reason while not available (default `Unavailable`, or `CloudFailed` when failed). */
      reason?: string;
      /** Status fields to write, as the cloud reports them. */
      status: Record<string, unknown>;
      /** Non-secret connection values that follow the cloud (hosts, ports). */
      connectionDetails?: ConnectionDetails;
    };

export interface Creation {
  externalId: string;
  /** Values only the create call returns (e.g. the initial password). */
  connectionDetails?: ConnectionDetails;
}

/**
 * What a kind implements — and all it implements. Everything else (finalizer, deletion policy, pause,
 * adoption, crash-safe create, conditions, Events, connection Secrets, requeues) is the generic reconciler's.
 */
export interface ExternalClient<R extends ManagedObject, S = unknown> {
  /**
   * Finds what a crashed create left behind: by the marker `create` puts on the cloud resource (a tag), or,
   * for kinds without one, by matching what was created after `intent`, the time the reconciler recorded
   * before its create call. Without an intent such a kind must find nothing: a look-alike it did not create
   * is never adopted.
   */
  findCreated(resource: R, intent: Date | undefined): Promise<string | undefined>;
  /** Checks what must hold before a create (e.g. a running service); throws `Waiting` while it does not. */
  prepareCreate?(resource: R): Promise<void>;
  observe(resource: R, externalId: string): Promise<Observation<S>>;
  create(resource: R): Promise<Creation>;
  /** The minimal change for what `observe` found different. */
  update(
    resource: R,
    externalId: string,
    observation: Extract<Observation<S>, { exists: true }>,
  ): Promise<void>;
  /** Idempotent: answers `gone` once the cloud resource no longer exists (a 404 is success). */
  delete(resource: R, externalId: string): Promise<'gone' | 'pending'>;
  /** New secret connection values when the stored ones were lost (e.g. a password reset). */
  recoverConnectionDetails?(resource: R, externalId: string): Promise<ConnectionDetails>;
}

/** Everything one reconcile of a resource resolved before the kind's client runs. */
export interface ConnectContext<Cloud> {
  cloud: Cloud;
  /** The referenced objects' cloud ids (and objects), by the declaration's name. */
  references: ResolvedReferences;
  /** The values of the Secrets the spec references, and which of them rotated. */
  secrets: ResolvedSecrets;
  /**
   * The `namespace/name` of another object of the same kind whose status already holds this cloud id, as
   * the operator's cache sees it: for `findCreated` of a kind without tags, which must not adopt what
   * another object manages.
   */
  claimedBy(id: string): string | undefined;
}

/** A kind as the runtime knows it. */
export interface ManagedKind<R extends ManagedObject, Cloud, S = unknown> {
  kind: string;
  group: string;
  version: string;
  plural: string;
  defaultDeletionPolicy: DeletionPolicy;
  /** Where connection details go, and which keys must be present (else `recoverConnectionDetails`). */
  connectionSecret?: {
    name(resource: R): string;
    requiredKeys: readonly string[];
    /** Further keys computed from the details about to be written (all of them, kept and new). */
    derive?(resource: R, details: ConnectionDetails): ConnectionDetails;
  };
  /** Other sluice objects this kind depends on; resolved (or waited for) before the client runs. */
  references?: readonly ReferenceDeclaration<R>[];
  /**
   * The name of a single reference whose cloud object can have only one of this kind (one query endpoint
   * per service): the oldest object claiming it owns it; the others wait with reason `Conflict`.
   */
  exclusiveOn?: string;
  /** The Secrets a resource's spec references (`…SecretRef`), read from the operator's cache. */
  secretReferences?(resource: R): SecretUse[];
  connect(resource: R, context: ConnectContext<Cloud>): ExternalClient<R, S>;
}
