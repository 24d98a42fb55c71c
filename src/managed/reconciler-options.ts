import type { Logger } from 'pino';
import type { ReadonlyCache } from '../kube/cache.ts';
import type { Priority } from '../base/priority.ts';
import type { CallChain } from '../base/call-chain.ts';
import type { WriteRecorder } from '../base/recorded-writes.ts';
import type { ClusterIdentity } from './cluster-owner.ts';
import type { EventRecorder } from './events.ts';
import type { KubeWriter } from './kube-writer.ts';
import type { IdAccessOptions } from './id-access.ts';
import type { ObjectLookup, ObjectNames } from './references.ts';
import type { SecretReader, SecretWriteListener } from './secret-references.ts';
import type { CredentialsRead } from './credentials-read.ts';
import type { DigestKey } from './secret-digests.ts';
import type { ManagedKind, ManagedObject } from './types.ts';
import type { ExecutorFactory } from './executor.ts';
import type { ReconcileError } from './errors.ts';

/**
 * How one reconcile may use the cloud, as the reconciler decides it: what the operator binds the clients it
 * hands the kind to.
 */
export interface CloudUse {
  /**
   * The quota priority of its calls: `create` while the object has no cloud id, else `user` when the spec
   * changed (or the object is being deleted), else `poll`.
   */
  priority: Priority;
  /** How old a cloud snapshot its observe may read (ms). */
  freshnessMs: number;
  /** Clients that read as usual but keep every write here instead of sending it. */
  writes?: WriteRecorder;
  /** The reconcile's chain of calls, which it ends once it will make no more (see `CallChain`). */
  chain?: CallChain;
  /** The credentials the reconcile read (`readCredentials`), which its calls sign in with; else read anew. */
  credentials?: CredentialsRead | undefined;
}

/**
 * What the cluster's caches know of one kind's objects and the objects around them: the half of a reconciler's
 * making the engine (src/runtime) gives, per kind.
 */
export interface KindObjects<R extends ManagedObject, Cloud, P> {
  kind: ManagedKind<R, Cloud, P>;
  cache: ReadonlyCache<R>;
  /**
   * Who may reach a cloud object by a plain id (spec field or `sluice.dev/external-id`): the grants, the
   * administrator's allow-list, and the objects of any kind whose status holds an id (`namespace/name` keys). Without
   * it every plain id is taken as given (a runtime on its own, `sluice plan`).
   */
  idAccess?: IdAccessOptions & { holdersOf(kind: string, id: string): string[] };
  /** Finds referenced sluice objects in the operator's caches. */
  lookup?: ObjectLookup;
  /** The names of the sluice objects of a kind in a namespace: a missing reference suggests a close one. */
  namesOf?: ObjectNames;
  /**
   * The sluice object of the namespace that writes this Secret (`ApiKey team-analytics`), if any, and whether
   * it has made its cloud object yet (an id in status): an object whose credentials Secret it is waits until
   * the Secret is written and the key it holds exists, as for a reference, and no failure is recorded.
   */
  secretWriterOf?(namespace: string, name: string): { writer: string; made: boolean } | undefined;
  /**
   * The object of a kind that makes credentials whose key the Secret `namespace/name` holds, named for a
   * message (`ApiKey maker`, or of another namespace without its name), if any: such a Secret is refused as
   * the credentials of an object of a kind that makes credentials.
   */
  credentialsMadeBy?(namespace: string, name: string): string | undefined;
  /** The operator's Secret cache: referenced Secrets and connection Secrets (with their owners). */
  secrets: SecretReader;
  /** Told of each connection Secret write: the operator's Secret cache holds its answer. */
  secretWrites?: SecretWriteListener;
  /** Objects that reference this one and still exist (`Pipe orders`): a Delete waits for them. */
  dependantsOf?(resource: R): string[];
  /**
   * Before any cloud call with the resource's own credentials (`credentials`, as the reconcile read them):
   * their Secret is kept until the resource is gone (the operator's credentials finalizer). Each reconcile's
   * executor is given it, and asks.
   */
  holdCredentials?(resource: R, credentials: CredentialsRead | undefined): Promise<void>;
}

/** What the operator gives every kind's reconciler alike: its writers, the cloud, the cluster's name, pacing. */
export interface ReconcilerServices<R extends ManagedObject, Cloud> {
  writer: KubeWriter;
  events: EventRecorder;
  /** Resolves the cloud clients for a resource (its own credentials Secret or the operator's), bound to `use`. */
  cloudFor(resource: R, use: CloudUse): Promise<Cloud>;
  /**
   * The cluster name recorded in the cloud as every object's owner (`--cluster-name`, or derived); the
   * operator always passes it, a runtime on its own (a test) records the explicit name `default`.
   */
  cluster?: ClusterIdentity;
  /**
   * Reads the credentials the resource's cloud calls sign in with, once per reconcile (see `CredentialsRead`):
   * an object's cloud id is pinned to the organization it was made or first seen in (`status.organizationId`).
   * Without it no organization is checked or pinned, and `cloudFor` reads the credentials itself.
   */
  readCredentials?(resource: R): CredentialsRead;
  /** Why the administrator's policy refuses the resource's spec (an ApiKey's roles), before any cloud call. */
  policyRefusal?(resource: R): ReconcileError | undefined;
  /**
   * The key for status digests of referenced Secrets' values, derived from the resource's credentials: those
   * the reconcile read, or read anew when it read none.
   */
  secretDigestKey?(resource: R, credentials: CredentialsRead | undefined): DigestKey;
  /** Drift-check interval for resources that are in sync (`--sync-interval`). */
  syncIntervalMs: number;
  /**
   * The shortest interval the resource may be drift-checked at, whatever its own (the drift planner's pacing
   * of a namespace on a shared key); 0 or omitted: its own.
   */
  driftFloorMs?(resource: ManagedObject): number;
  /** First wait while the cloud is still moving; each later look of the wait doubles it, up to the max. */
  pollIntervalMs: number;
  maxPollIntervalMs?: number;
  /** Aborted when this process must stop acting (leadership lost, shutdown deadline passed). */
  signal?: AbortSignal;
  /**
   * Makes the executor of each reconcile, which performs what it decided: the live one unless given
   * (`sluice plan` gives one that records the create instead of sending it).
   */
  executor?: ExecutorFactory<R>;
  logger?: Logger;
  now?: () => Date;
}

/** What one kind's reconciler is built from: what the caches know of its objects, and the operator's services. */
export interface ManagedReconcilerOptions<R extends ManagedObject, Cloud, P>
  extends KindObjects<R, Cloud, P>, ReconcilerServices<R, Cloud> {}
