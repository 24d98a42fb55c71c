import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeApiError, kubeRequestJson } from '../kube-http.ts';
import { MANAGED_BY_LABEL } from './annotations.ts';
import type { ConnectionDetails, ManagedObject, ManagedStatus } from './types.ts';

const MERGE_PATCH = 'application/merge-patch+json';

export interface KindPath {
  group: string;
  version: string;
  plural: string;
}

interface SecretObject {
  metadata: { name: string; namespace: string; resourceVersion?: string; ownerReferences?: unknown[] };
  data?: Record<string, string>;
}

/** The writes the reconciler makes to Kubernetes: status, finalizers, connection Secrets and Events. */
export class KubeWriter {
  constructor(private readonly kubeConfig: KubeConfig) {}

  /**
   * Replaces the status with a JSON merge patch; fields the new status drops, at any depth, are sent as null
   * so the patch removes them rather than leaving stale cloud values behind.
   */
  async patchStatus<R extends ManagedObject>(kind: KindPath, resource: R, status: ManagedStatus): Promise<R> {
    const patch = replacingMergePatch(resource.status ?? {}, status);
    return this.request<R>('PATCH', `${objectPath(kind, resource)}/status`, { status: patch }, MERGE_PATCH);
  }

  /** Sets the finalizer list; the resourceVersion makes a concurrent change fail (409) instead of being lost. */
  async setFinalizers<R extends ManagedObject>(
    kind: KindPath,
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
    kind: KindPath,
    resource: R,
    change: { finalizers?: string[]; annotations?: Record<string, string | null> },
  ): Promise<R> {
    const metadata = { ...change, resourceVersion: resource.metadata.resourceVersion };
    return this.request<R>('PATCH', objectPath(kind, resource), { metadata }, MERGE_PATCH);
  }

  async getSecretData(namespace: string, name: string): Promise<Record<string, string> | undefined> {
    try {
      const secret = await this.request<SecretObject>('GET', secretPath(namespace, name));
      return decode(secret.data ?? {});
    } catch (error) {
      if (error instanceof KubeApiError && error.statusCode === 404) return undefined;
      throw error;
    }
  }

  /**
   * Creates the connection Secret owned by the resource (so it goes when the resource goes), or merges the
   * given values into it, leaving other keys as they are.
   */
  async writeConnectionSecret(
    owner: ManagedObject,
    name: string,
    details: ConnectionDetails,
    exists: boolean,
  ): Promise<void> {
    const namespace = owner.metadata.namespace;
    const data = encode(details);
    if (exists) {
      await this.request('PATCH', secretPath(namespace, name), { data }, MERGE_PATCH);
      return;
    }
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: {
        name,
        namespace,
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
    await this.request('POST', `/api/v1/namespaces/${namespace}/secrets`, secret);
  }

  async createEvent(
    regarding: ManagedObject,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
    now: Date,
  ): Promise<void> {
    const namespace = regarding.metadata.namespace;
    const timestamp = now.toISOString();
    await this.request('POST', `/api/v1/namespaces/${namespace}/events`, {
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

  private request<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    return kubeRequestJson<T>(this.kubeConfig, { method, path, body, contentType });
  }
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON merge patch (RFC 7386) that turns `current` into exactly `next`: dropped keys become null. */
export function replacingMergePatch(current: Json, next: Json): Json {
  const patch: Json = {};
  for (const [key, value] of Object.entries(next)) {
    const before = current[key];
    patch[key] = isObject(value) && isObject(before) ? replacingMergePatch(before, value) : value;
  }
  for (const key of Object.keys(current)) if (!(key in next)) patch[key] = null;
  return patch;
}

export function objectPath(kind: KindPath, resource: ManagedObject): string {
  const { namespace, name } = resource.metadata;
  return `/apis/${kind.group}/${kind.version}/namespaces/${namespace}/${kind.plural}/${name}`;
}

const secretPath = (namespace: string, name: string) => `/api/v1/namespaces/${namespace}/secrets/${name}`;

const encode = (values: Record<string, string>) =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]));
const decode = (values: Record<string, string>) =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
