import type { KindDescriptor } from '../kinds/shared/descriptor.ts';
import { KINDS } from '../kinds/index.ts';
import type { KubeAccess } from '../kube/kube-config.ts';
import { KubeApiError } from '../kube/kube-http.ts';
import { externalIdOf, type ManagedObject } from '../managed/index.ts';
import { ClusterReader } from '../plan/cluster.ts';

/** Which object of the cluster manages a cloud object, by kind and id: `DatabaseService team-a/orders`. */
export type ManagedBy = (kind: string, id: string) => string | undefined;

/**
 * The cloud objects sluice objects in the cluster already manage: those whose status.id, or whose
 * `sluice.dev/external-id` annotation, names them. Exporting one again would give a second object that the
 * operator refuses as `AlreadyManaged`. A kind whose CRD is not installed manages nothing.
 */
export async function readManagedBy(access: KubeAccess): Promise<{ managedBy: ManagedBy; count: number }> {
  const cluster = new ClusterReader(access);
  const holders = new Map<string, string>();
  for (const kind of KINDS as readonly KindDescriptor<ManagedObject>[]) {
    const objects = await cluster.list(kind).catch((error: unknown) => {
      if (error instanceof KubeApiError && error.statusCode === 404) return [];
      throw error;
    });
    for (const object of objects) {
      const holder = `${kind.kind} ${object.metadata.namespace}/${object.metadata.name}`;
      for (const id of [object.status?.id, externalIdOf(object)]) {
        const key = keyOf(kind.kind, id);
        if (id && !holders.has(key)) holders.set(key, holder);
      }
    }
  }
  return { managedBy: (kind, id) => holders.get(keyOf(kind, id)), count: holders.size };
}

const keyOf = (kind: string, id: string | undefined) => `${kind}\u0000${id}`;
