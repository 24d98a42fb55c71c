import { mapConcurrently } from '../base/map-concurrently.ts';
import { apiPath, SECRETS, type ResourceType } from '../kube/api-path.ts';
import type { KubeObject } from '../kube/cache.ts';
import type { KubeAccess } from '../kube/kube-config.ts';
import { KubeApiError, kubeRequestJson } from '../kube/kube-http.ts';
import { FINALIZER } from '../managed/index.ts';
import { CREDENTIALS_FINALIZER } from '../runtime/credentials-usage.ts';

export interface ReleaseOptions {
  kubeConfig: KubeAccess;
  /** The resource types of the sluice kinds, whose cleanup finalizer goes. */
  kinds: readonly ResourceType[];
  /** Only these namespaces (the operator's `--namespace`); every namespace when empty. */
  namespaces?: readonly string[];
  /** The operator's Deployment: scaled to 0, and its pods gone, before any finalizer is touched. */
  operator?: { namespace: string; name: string };
  /** How long to wait for the operator's pods to end. Default 5 minutes. */
  stopTimeoutMs?: number;
  /**
   * Finalizers taken off at once; default `RELEASE_CONCURRENCY`. 1 takes them off one after another, the
   * baseline `npm run bench:uninstall` measures against.
   */
  concurrency?: number;
  log(message: string): void;
}

export interface Released {
  secrets: number;
  objects: number;
}

const DEPLOYMENTS: ResourceType = { group: 'apps', version: 'v1', plural: 'deployments' };
const PODS: ResourceType = { group: '', version: 'v1', plural: 'pods' };
/** Secrets are listed by metadata only: a cluster's Secrets' data never passes through here. */
const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
/**
 * Finalizers taken off at once: one after another, a release of 6,000 objects spent most of its time waiting
 * on the apiserver's answers (the Job runs under the operator's CPU limit too); at 16 the apiserver's own
 * in-flight limit (400 mutating requests) is far away.
 */
export const RELEASE_CONCURRENCY = 16;

/**
 * What uninstalling sluice needs so nothing waits for an operator that is gone: the operator stopped first
 * (a running one would put the finalizers back), then `sluice.dev/credentials-in-use` taken off every Secret
 * and `sluice.dev/cleanup` off every sluice object. A sluice object deleted afterwards leaves its cloud
 * object as it is (with its owner record, so a later install takes it back); nothing in the cloud is deleted.
 */
export async function releaseFinalizers(options: ReleaseOptions): Promise<Released> {
  if (options.operator) await stopOperator(options);
  const released: Released = { secrets: 0, objects: 0 };
  for (const namespace of options.namespaces?.length ? options.namespaces : [undefined]) {
    released.secrets += await releaseAll(options, SECRETS, namespace, CREDENTIALS_FINALIZER, METADATA_LIST);
    for (const kind of options.kinds) {
      released.objects += await releaseAll(options, kind, namespace, FINALIZER);
    }
  }
  options.log(`released ${released.secrets} Secret(s) and ${released.objects} sluice object(s)`);
  return released;
}

async function stopOperator(options: ReleaseOptions): Promise<void> {
  const { kubeConfig, operator } = options;
  const { namespace, name } = operator!;
  const path = apiPath(DEPLOYMENTS, namespace, name);
  let deployment: { spec?: { selector?: { matchLabels?: Record<string, string> } } };
  try {
    deployment = await kubeRequestJson(kubeConfig, {
      method: 'PATCH',
      path,
      body: { spec: { replicas: 0 } },
      contentType: 'application/merge-patch+json',
    });
  } catch (error) {
    if (error instanceof KubeApiError && error.statusCode === 404) {
      options.log(`Deployment ${namespace}/${name} not found: no operator to stop`);
      return;
    }
    throw error;
  }
  const labelSelector = Object.entries(deployment.spec?.selector?.matchLabels ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  options.log(`scaled Deployment ${namespace}/${name} to 0; waiting for its pods to end`);
  const deadline = Date.now() + (options.stopTimeoutMs ?? 300_000);
  for (;;) {
    const pods = await kubeRequestJson<{ items: unknown[] }>(kubeConfig, {
      path: apiPath(PODS, namespace),
      query: { labelSelector },
    });
    if (pods.items.length === 0) return;
    if (Date.now() > deadline) {
      throw new Error(`the operator's pods (${labelSelector}) in ${namespace} did not end in time`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** Takes `finalizer` off every object of the type that has it; returns how many. */
async function releaseAll(
  options: ReleaseOptions,
  resource: ResourceType,
  namespace: string | undefined,
  finalizer: string,
  accept?: string,
): Promise<number> {
  let released = 0;
  let continueToken: string | undefined;
  do {
    // An empty metadata-only list has `items: null`.
    const page = await kubeRequestJson<{ items: KubeObject[] | null; metadata?: { continue?: string } }>(
      options.kubeConfig,
      {
        path: apiPath(resource, namespace),
        query: { limit: 500, continue: continueToken },
        ...(accept ? { accept } : {}),
      },
    );
    const holding = (page.items ?? []).filter((object) => finalizersOf(object).includes(finalizer));
    await mapConcurrently(holding, options.concurrency ?? RELEASE_CONCURRENCY, async (object) => {
      if (!(await release(options, resource, object, finalizer))) return;
      released++;
      options.log(
        `${resource.plural} ${object.metadata.namespace}/${object.metadata.name}: ${finalizer} removed`,
      );
    });
    continueToken = page.metadata?.continue || undefined;
  } while (continueToken);
  return released;
}

/** Removes the finalizer from exactly the version read; a concurrent change is read again (a few times). */
async function release(
  options: ReleaseOptions,
  resource: ResourceType,
  object: KubeObject,
  finalizer: string,
): Promise<boolean> {
  const path = apiPath(resource, object.metadata.namespace, object.metadata.name);
  for (let attempt = 1; ; attempt++) {
    const { resourceVersion } = object.metadata;
    const finalizers = finalizersOf(object).filter((f) => f !== finalizer);
    try {
      await kubeRequestJson(options.kubeConfig, {
        method: 'PATCH',
        path,
        body: { metadata: { finalizers, resourceVersion } },
        contentType: 'application/merge-patch+json',
      });
      return true;
    } catch (error) {
      if (error instanceof KubeApiError && error.statusCode === 404) return false;
      if (!(error instanceof KubeApiError && error.statusCode === 409) || attempt >= 5) throw error;
    }
    try {
      object = await kubeRequestJson<KubeObject>(options.kubeConfig, { path });
    } catch (error) {
      if (error instanceof KubeApiError && error.statusCode === 404) return false;
      throw error;
    }
    if (!finalizersOf(object).includes(finalizer)) return false;
  }
}

function finalizersOf(object: KubeObject): string[] {
  const finalizers = object.metadata.finalizers;
  return Array.isArray(finalizers) ? finalizers.filter((f): f is string => typeof f === 'string') : [];
}
