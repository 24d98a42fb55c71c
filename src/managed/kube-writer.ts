import { hostname } from 'node:os';
import { apiPath, EVENTS, type ResourceType, SECRETS } from '../kube/api-path.ts';
import type { KubeAccess } from '../kube/kube-config.ts';
import { KubeApiError, kubeRequestJson } from '../kube/kube-http.ts';
import {
  decodeSecretData,
  encodeSecretData,
  type OwnerReference,
  type SecretObject,
} from '../kube/secret-data.ts';
import { MANAGED_BY_LABEL } from './annotations.ts';
import { snapshotOf, type SecretSnapshot } from './secret-references.ts';
import { ReconcileError } from './errors.ts';
import { RETRY_DELAYS } from '../base/retry-delays.ts';
import type { ConnectionDetails, ManagedObject, ManagedStatus } from './types.ts';
import { REASON } from '../base/reasons.ts';

const MERGE_PATCH = 'application/merge-patch+json';

/** What tells who controls a Secret: its owner references (from the apiserver, or the cache's snapshot). */
interface SecretOwners {
  metadata: {
    name: string;
    ownerReferences?: readonly Pick<OwnerReference, 'uid' | 'controller'>[] | undefined;
  };
}

/**
 * Throws `SecretConflict` unless `owner` controls the Secret (an owner reference with `controller: true`
 * and its uid). Without this, a resource could write its password into any Secret of its namespace, and
 * two resources naming one Secret would overwrite each other's.
 */
export function assertControlledBy(secret: SecretOwners, owner: ManagedObject): void {
  const refs = secret.metadata.ownerReferences ?? [];
  if (refs.some((ref) => ref.controller === true && ref.uid === owner.metadata.uid)) return;
  throw ReconcileError.terminal(
    REASON.SecretConflict,
    `Secret ${secret.metadata.name} exists and is not controlled by this ${owner.kind ?? 'resource'}; ` +
      'name another Secret in spec.connectionSecret.name, or delete that one',
    RETRY_DELAYS.secretConflict,
  );
}

/**
 * The writes a reconcile's executor makes to Kubernetes: status, finalizers and annotations, connection
 * Secrets.
 */
export interface KubeWriter {
  /** Replaces the status; fields the new status drops are removed, not left behind. */
  patchStatus<R extends ManagedObject>(kind: ResourceType, resource: R, status: ManagedStatus): Promise<R>;
  /** Sets the finalizer list; a concurrent change to the object fails (409) instead of being lost. */
  setFinalizers<R extends ManagedObject>(kind: ResourceType, resource: R, finalizers: string[]): Promise<R>;
  /** Sets finalizers and/or annotations (null removes one) on exactly the object version that was read. */
  patchMetadata<R extends ManagedObject>(
    kind: ResourceType,
    resource: R,
    change: { finalizers?: string[]; annotations?: Record<string, string | null> },
  ): Promise<R>;
  /** The connection Secret's values, undefined when it does not exist; `SecretConflict` if not the owner's. */
  readConnectionSecret(owner: ManagedObject, name: string): Promise<Record<string, string> | undefined>;
  /**
   * Creates the owner's connection Secret or merges `details` into it; `SecretConflict` if the owner does not
   * control it. `checkedVersion`: the version of the Secret the caller already found controlled. Resolves to
   * the Secret as the apiserver stored it.
   */
  writeConnectionSecret(
    owner: ManagedObject,
    name: string,
    details: ConnectionDetails,
    exists: boolean,
    checkedVersion?: string,
  ): Promise<SecretSnapshot>;
  /**
   * Whether the connection Secret write of `details` would land now, asked of the apiserver without writing
   * (a dry run of the same create or patch, with the same keys and values): throws `SecretNotWritable`, with
   * the apiserver's reason, when admission, a quota or a namespace being deleted would refuse it. Asked
   * before a secret value is made that only that Secret would keep.
   */
  checkConnectionSecretWritable(
    owner: ManagedObject,
    name: string,
    details: ConnectionDetails,
    exists: boolean,
  ): Promise<void>;
}

/** What an Event is about: a sluice object, or another object the operator reports on (a credentials Secret). */
export type EventSubject = Pick<ManagedObject, 'apiVersion' | 'kind'> & {
  metadata: Pick<ManagedObject['metadata'], 'name' | 'namespace' | 'uid' | 'resourceVersion'>;
};

/** The one write the Event recorder makes. */
export interface EventWriter {
  createEvent(
    regarding: EventSubject,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
    now: Date,
  ): Promise<void>;
}

/** `KubeWriter` and `EventWriter` over the apiserver's HTTP API. */
export class HttpKubeWriter implements KubeWriter, EventWriter {
  constructor(private readonly kubeConfig: KubeAccess) {}

  /**
   * Replaces the status with a JSON merge patch; fields the new status drops, at any depth, are sent as null
   * so the patch removes them rather than leaving stale cloud values behind.
   */
  async patchStatus<R extends ManagedObject>(
    kind: ResourceType,
    resource: R,
    status: ManagedStatus,
  ): Promise<R> {
    const patch = replacingMergePatch(resource.status ?? {}, status);
    return this.request<R>('PATCH', `${objectPath(kind, resource)}/status`, { status: patch }, MERGE_PATCH);
  }

  /** Sets the finalizer list; the resourceVersion makes a concurrent change fail (409) instead of being lost. */
  async setFinalizers<R extends ManagedObject>(
    kind: ResourceType,
    resource: R,
    finalizers: string[],
  ): Promise<R> {
    return this.patchMetadata(kind, resource, { finalizers });
  }

  /**
   * Sets finalizers and/or annotations in one write, guarded by the resourceVersion: a create intent must
   * be recorded on exactly the object version that was read, or not at all.
   */
  async patchMetadata<R extends ManagedObject>(
    kind: ResourceType,
    resource: R,
    change: { finalizers?: string[]; annotations?: Record<string, string | null> },
  ): Promise<R> {
    const metadata = { ...change, resourceVersion: resource.metadata.resourceVersion };
    return this.request<R>('PATCH', objectPath(kind, resource), { metadata }, MERGE_PATCH);
  }

  async getSecretData(namespace: string, name: string): Promise<Record<string, string> | undefined> {
    const secret = await this.getSecret(namespace, name);
    return secret && decodeSecretData(secret.data ?? {});
  }

  /**
   * The values of the resource's connection Secret, undefined when it does not exist. Throws
   * `SecretConflict` when the Secret exists but the resource does not control it.
   */
  async readConnectionSecret(
    owner: ManagedObject,
    name: string,
  ): Promise<Record<string, string> | undefined> {
    const secret = await this.getSecret(owner.metadata.namespace, name);
    if (!secret) return undefined;
    assertControlledBy(secret, owner);
    return decodeSecretData(secret.data ?? {});
  }

  /**
   * Creates the connection Secret owned by the resource (so it goes when the resource goes), or merges the
   * given values into it, leaving other keys as they are. Only a Secret the resource controls is written
   * (else `SecretConflict`); the resourceVersion of the checked Secret guards the patch, so an ownership
   * change in between fails (409) instead of being written over. `checkedVersion` is the version of the
   * Secret the caller already found controlled (from the cache): the patch then needs no GET first, and
   * falls back to reading it only when that version is stale. Resolves to the Secret as stored (the write's
   * answer), data and version.
   */
  async writeConnectionSecret(
    owner: ManagedObject,
    name: string,
    details: ConnectionDetails,
    exists: boolean,
    checkedVersion?: string,
  ): Promise<SecretSnapshot> {
    return snapshotOf(
      await this.storeConnectionSecret(owner, name, encodeSecretData(details), exists, checkedVersion),
    );
  }

  async checkConnectionSecretWritable(
    owner: ManagedObject,
    name: string,
    details: ConnectionDetails,
    exists: boolean,
  ): Promise<void> {
    const namespace = owner.metadata.namespace;
    const data = encodeSecretData(details);
    const create = () =>
      this.request(
        'POST',
        apiPath(SECRETS, namespace),
        connectionSecret(owner, name, data),
        undefined,
        DRY_RUN,
      );
    if (!exists) return refusalOf(name, create());
    // The merge patch the write sends: admission judges the Secret as it would be stored.
    await refusalOf(
      name,
      this.request('PATCH', apiPath(SECRETS, namespace, name), { data }, MERGE_PATCH, DRY_RUN),
    );
    // An update still lands in a namespace being deleted, but what it stores goes with the namespace: a
    // create's dry run tells (its other answers, an AlreadyExists first, say nothing of the update).
    await create().catch((error: unknown) => {
      if (isNamespaceTerminating(error)) throw notWritable(name, error);
    });
  }

  /** `writeConnectionSecret` with `data` encoded: the Secret as stored. */
  private async storeConnectionSecret(
    owner: ManagedObject,
    name: string,
    data: Record<string, string>,
    exists: boolean,
    checkedVersion: string | undefined,
  ): Promise<SecretObject> {
    const namespace = owner.metadata.namespace;
    if (exists) {
      const patched =
        checkedVersion === undefined
          ? ('stale' as const)
          : await this.patchSecret(namespace, name, data, checkedVersion).catch((error) => {
              if (error instanceof KubeApiError && error.statusCode === 409) return 'stale' as const;
              throw error;
            });
      // No version known, or a stale one: the Secret is read, and written only if it is ours.
      const stored = patched === 'stale' ? await this.patchIfControlled(owner, name, data) : patched;
      if (stored) return stored;
    }
    try {
      return await this.request<SecretObject>(
        'POST',
        apiPath(SECRETS, namespace),
        connectionSecret(owner, name, data),
      );
    } catch (error) {
      // Created meanwhile, maybe by someone else: write only if it is ours.
      if (!(error instanceof KubeApiError && error.statusCode === 409)) throw error;
      const patched = await this.patchIfControlled(owner, name, data);
      if (!patched) throw error;
      return patched;
    }
  }

  /**
   * Merges `data` into the Secret if it exists and `owner` controls it: the Secret as stored, or undefined
   * when it does not exist.
   */
  private async patchIfControlled(
    owner: ManagedObject,
    name: string,
    data: Record<string, string>,
  ): Promise<SecretObject | undefined> {
    const namespace = owner.metadata.namespace;
    const secret = await this.getSecret(namespace, name);
    if (!secret) return undefined;
    assertControlledBy(secret, owner);
    return this.patchSecret(namespace, name, data, secret.metadata.resourceVersion);
  }

  /** Merges `data` into the Secret at exactly `resourceVersion`: the Secret as stored, undefined if none. */
  private async patchSecret(
    namespace: string,
    name: string,
    data: Record<string, string>,
    resourceVersion: string | undefined,
  ): Promise<SecretObject | undefined> {
    try {
      const metadata = { resourceVersion };
      return await this.request<SecretObject>(
        'PATCH',
        apiPath(SECRETS, namespace, name),
        { metadata, data },
        MERGE_PATCH,
      );
    } catch (error) {
      if (error instanceof KubeApiError && error.statusCode === 404) return undefined;
      throw error;
    }
  }

  async createEvent(
    regarding: EventSubject,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
    now: Date,
  ): Promise<void> {
    const namespace = regarding.metadata.namespace;
    const timestamp = now.toISOString();
    await this.request('POST', apiPath(EVENTS, namespace), {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { generateName: `${regarding.metadata.name}.`, namespace },
      involvedObject: {
        apiVersion: regarding.apiVersion,
        kind: regarding.kind,
        name: regarding.metadata.name,
        namespace,
        uid: regarding.metadata.uid,
        resourceVersion: regarding.metadata.resourceVersion,
      },
      type,
      reason,
      message,
      count: 1,
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      source: { component: 'sluice' },
      reportingComponent: 'sluice.dev/operator',
      reportingInstance: hostname(),
    });
  }

  private async getSecret(namespace: string, name: string): Promise<SecretObject | undefined> {
    try {
      return await this.request<SecretObject>('GET', apiPath(SECRETS, namespace, name));
    } catch (error) {
      if (error instanceof KubeApiError && error.statusCode === 404) return undefined;
      throw error;
    }
  }

  private request<T>(
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
    query?: Record<string, string>,
  ): Promise<T> {
    return kubeRequestJson<T>(this.kubeConfig, { method, path, body, contentType, query });
  }
}

/** A write the apiserver checks but does not store. */
const DRY_RUN = { dryRun: 'All' };

/** Throws `SecretNotWritable` when the apiserver refuses the (dry-run) write; anything else is no answer. */
async function refusalOf(name: string, write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (error) {
    if (!(error instanceof KubeApiError) || error.statusCode >= 500 || error.statusCode === 429) throw error;
    // Created or deleted meanwhile: the write itself finds out which.
    if (error.statusCode === 404 || error.statusCode === 409) return;
    throw notWritable(name, error);
  }
}

function notWritable(name: string, error: KubeApiError): ReconcileError {
  const reason = error.status?.message ?? error.message;
  return ReconcileError.terminal(
    REASON.SecretNotWritable,
    `Secret ${name} cannot be written (${reason}); no password is made that it could not keep`,
    RETRY_DELAYS.secretNotWritable,
  );
}

/** The namespace lifecycle's refusal of anything new in a namespace being deleted. */
function isNamespaceTerminating(error: unknown): error is KubeApiError {
  return (
    error instanceof KubeApiError &&
    (error.status?.details?.causes ?? []).some((cause) => cause.reason === 'NamespaceTerminating')
  );
}

/** The connection Secret as sluice creates it: labelled, and controlled by its resource (it goes with it). */
function connectionSecret(owner: ManagedObject, name: string, data: Record<string, string>) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name,
      namespace: owner.metadata.namespace,
      labels: { ...MANAGED_BY_LABEL },
      ownerReferences: [
        {
          apiVersion: owner.apiVersion,
          kind: owner.kind,
          name: owner.metadata.name,
          uid: owner.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    data,
  };
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON merge patch (RFC 7386) that turns `current` into exactly `next`: dropped keys become null. */
export function replacingMergePatch(current: Json, next: Json): Json {
  const patch: Json = {};
  for (const [key, value] of Object.entries(next)) {
    const before = current[key];
    // A field set to undefined is dropped, as one left out is.
    if (value === undefined) patch[key] = null;
    else patch[key] = isObject(value) && isObject(before) ? replacingMergePatch(before, value) : value;
  }
  for (const key of Object.keys(current)) if (!(key in next)) patch[key] = null;
  return patch;
}

export function objectPath(kind: ResourceType, resource: ManagedObject): string {
  return apiPath(kind, resource.metadata.namespace, resource.metadata.name);
}
