import { pino } from 'pino';
import type { CloudConnection } from '../cloud-access/connection.ts';
import type { ReadonlyCache } from '../kube/cache.ts';
import {
  EventRecorder,
  assertControlledBy,
  ManagedReconciler,
  type ClusterIdentity,
  type CloudUse,
  type KubeWriter,
  type ManagedKind,
  type ManagedObject,
  type ManagedStatus,
  type ObjectLookup,
  type ObjectNames,
  type ExecutorFactory,
  type ReconcilerServices,
  type SecretReader,
  type DigestKey,
} from '../managed/index.ts';
import type { ReconcilerRequest } from '../runtime/manager.ts';

/** The operator's reconcilers: each kind's, from what the manager knows of its objects and the services every kind shares. */
export function liveReconcilers<Cloud>(services: ReconcilerServices<ManagedObject, Cloud>) {
  return (objects: ReconcilerRequest<Cloud>) =>
    new ManagedReconciler<ManagedObject, Cloud, unknown>({ ...services, ...objects });
}

export interface DryReconcilerOptions {
  kind: ManagedKind<ManagedObject, CloudConnection, unknown>;
  /** Every object of the kind the operator would see: the claims on cloud ids are checked against them. */
  objects: ReadonlyMap<string, ManagedObject>;
  lookup: ObjectLookup;
  namesOf?: ObjectNames;
  cluster: ClusterIdentity;
  secrets: SecretReader;
  secretDigestKey(resource: ManagedObject): DigestKey;
  /** Clients that record their writes instead of sending them. */
  cloudFor(resource: ManagedObject, use: CloudUse): Promise<CloudConnection>;
  /** The status a reconcile would write. */
  onStatus(resource: ManagedObject, status: ManagedStatus): void;
  /** The executor of each reconcile: one that records what the operator would send. */
  executor: ExecutorFactory<ManagedObject>;
}

/**
 * The operator's own reconciler for one kind, made so that nothing is written anywhere: its Kubernetes writes
 * stay in memory, its Events go nowhere, no credentials Secret is held (its executors are given no hold), and
 * its cloud clients are `cloudFor`'s (which record their writes).
 * Each object is seen once, as the operator's informers would, so claims on cloud ids are known.
 */
export function dryReconciler(
  options: DryReconcilerOptions,
): ManagedReconciler<ManagedObject, CloudConnection> {
  const silent = pino({ enabled: false });
  const reconciler = new ManagedReconciler<ManagedObject, CloudConnection>({
    kind: options.kind,
    cache: mapCache(options.objects),
    writer: inMemoryWriter(options.secrets, options.onStatus),
    events: new EventRecorder({ createEvent: () => Promise.resolve() }, silent),
    cloudFor: options.cloudFor,
    lookup: options.lookup,
    ...(options.namesOf ? { namesOf: options.namesOf } : {}),
    cluster: options.cluster,
    secrets: options.secrets,
    secretDigestKey: options.secretDigestKey,
    // One reconcile is run per object: when it would look again does not matter.
    syncIntervalMs: 3_600_000,
    pollIntervalMs: 1_000,
    logger: silent,
    executor: options.executor,
  });
  for (const key of options.objects.keys()) reconciler.onCacheChange(key);
  return reconciler;
}

function mapCache(objects: ReadonlyMap<string, ManagedObject>): ReadonlyCache<ManagedObject> {
  return {
    get: (key) => objects.get(key),
    list: () => [...objects.values()],
    keys: () => [...objects.keys()],
    get size() {
      return objects.size;
    },
  };
}

/** Kubernetes writes kept in memory: the status handed to `onStatus`, metadata applied to a copy. */
function inMemoryWriter(
  secrets: SecretReader,
  onStatus: (resource: ManagedObject, status: ManagedStatus) => void,
): KubeWriter {
  return {
    patchStatus: <R extends ManagedObject>(_kind: unknown, resource: R, status: ManagedStatus) => {
      onStatus(resource, structuredClone(status));
      return Promise.resolve({ ...resource, status });
    },
    setFinalizers: <R extends ManagedObject>(_kind: unknown, resource: R, finalizers: string[]) =>
      Promise.resolve({ ...resource, metadata: { ...resource.metadata, finalizers } }),
    patchMetadata: <R extends ManagedObject>(
      _kind: unknown,
      resource: R,
      change: { finalizers?: string[]; annotations?: Record<string, string | null> },
    ) => {
      const annotations = { ...resource.metadata.annotations };
      for (const [key, value] of Object.entries(change.annotations ?? {})) {
        if (value === null) delete annotations[key];
        else annotations[key] = value;
      }
      const finalizers = change.finalizers ?? resource.metadata.finalizers;
      return Promise.resolve({
        ...resource,
        metadata: { ...resource.metadata, annotations, ...(finalizers ? { finalizers } : {}) },
      });
    },
    readConnectionSecret: (owner, name) => {
      const secret = secrets.get(owner.metadata.namespace, name);
      if (secret) assertControlledBy({ metadata: { name, ownerReferences: secret.ownerReferences } }, owner);
      return Promise.resolve(secret && { ...secret.data });
    },
    // Nothing is stored: the answer is the values as they would be.
    writeConnectionSecret: (_owner, _name, details) =>
      Promise.resolve({ data: details, resourceVersion: '' }),
    checkConnectionSecretWritable: () => Promise.resolve(),
  };
}
