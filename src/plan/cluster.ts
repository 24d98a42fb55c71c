import type { KindDescriptor } from '../kinds/shared/descriptor.ts';
import { apiPath, SECRETS } from '../kube/api-path.ts';
import type { KubeAccess } from '../kube/kube-config.ts';
import { KubeApiError, kubeRequestJson } from '../kube/kube-http.ts';
import { decodeSecretData, type SecretObject } from '../kube/secret-data.ts';
import type { SecretSnapshot, ManagedObject } from '../managed/index.ts';

/** What the plan reads of the cluster: sluice objects and Secrets, with GET and LIST only. */
export class ClusterReader {
  constructor(private readonly access: KubeAccess) {}

  /**
   * Every object of `kind` in the cluster; with `namespaces`, in those only (for a user who may not list
   * across namespaces).
   */
  async list(kind: KindDescriptor<ManagedObject>, namespaces?: readonly string[]): Promise<ManagedObject[]> {
    const lists = await Promise.all(
      (namespaces ?? [undefined]).map((namespace) =>
        kubeRequestJson<{ items: ManagedObject[] }>(this.access, { path: apiPath(kind, namespace) }),
      ),
    );
    // A LIST leaves apiVersion and kind out of its items.
    return lists.flatMap((list) =>
      list.items.map((item) => ({ ...item, apiVersion: `${kind.group}/${kind.version}`, kind: kind.kind })),
    );
  }

  /** The Secret's values, undefined when there is none. */
  async secret(namespace: string, name: string): Promise<SecretSnapshot | undefined> {
    try {
      const secret = await kubeRequestJson<SecretObject>(this.access, {
        path: apiPath(SECRETS, namespace, name),
      });
      return {
        data: decodeSecretData(secret.data ?? {}),
        resourceVersion: secret.metadata.resourceVersion ?? '',
        ...(secret.metadata.ownerReferences ? { ownerReferences: secret.metadata.ownerReferences } : {}),
      };
    } catch (error) {
      if (error instanceof KubeApiError && error.statusCode === 404) return undefined;
      throw error;
    }
  }
}

export const isForbidden = (error: unknown) => error instanceof KubeApiError && error.statusCode === 403;
