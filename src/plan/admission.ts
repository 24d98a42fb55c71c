import type { KindDescriptor } from '../kinds/shared/descriptor.ts';
import { kindNamed } from '../kinds/index.ts';
import { apiPath } from '../kube/api-path.ts';
import type { KubeAccess } from '../kube/kube-config.ts';
import { KubeApiError, kubeRequestJson } from '../kube/kube-http.ts';
import type { ManagedObject } from '../managed/index.ts';

/** One input object as `kubectl apply` would send it: its own spec, over the cluster's object if any. */
export interface Submission {
  /** Where it was read, for the error: `all.yaml`. */
  file: string;
  /** The object as applied (the cluster's metadata, the input's spec, labels and annotations). */
  object: ManagedObject;
  /** The spec as written in the input, before any default. */
  spec: unknown;
  /** The cluster has it: an update (rules that compare with the stored object apply), else a create. */
  exists: boolean;
}

/**
 * Asks the apiserver whether it would accept each object, with a server-side dry run (nothing is stored):
 * the CRD's schema and every CEL rule, those that compare with the stored object included, are the
 * apiserver's own, so plan refuses exactly what `kubectl apply` would. Returns each refused object with
 * the file, the object and the apiserver's message, also told to `note`: one refusal leaves the other
 * objects to be planned. Without the rights a dry run needs (create, update) or with the namespace not
 * there yet, the check is skipped and `note` says so.
 */
export async function checkAdmission(
  access: KubeAccess,
  submissions: readonly Submission[],
  note: (line: string) => void,
): Promise<Map<ManagedObject, string>> {
  const refused = new Map<ManagedObject, string>();
  const skipped = new Set<string>();
  for (const { file, object, spec, exists } of submissions) {
    const kind = kindNamed(object.kind ?? '') as KindDescriptor<ManagedObject>;
    const { namespace, name } = object.metadata;
    const { status: _status, ...applied } = object;
    const { managedFields: _fields, ...stored } = object.metadata as ManagedObject['metadata'] & {
      managedFields?: unknown;
    };
    const metadata = exists ? stored : { name, namespace, ...labelsAndAnnotations(object) };
    const path = apiPath(kind, namespace, exists ? name : undefined);
    const dryRun = (resourceVersion = object.metadata.resourceVersion) =>
      kubeRequestJson(access, {
        method: exists ? 'PUT' : 'POST',
        path,
        query: { dryRun: 'All', fieldManager: 'sluice-plan', fieldValidation: 'Strict' },
        body: { ...applied, metadata: exists ? { ...metadata, resourceVersion } : metadata, spec },
      });
    try {
      await dryRun().catch(async (error: unknown) => {
        // The operator wrote the object (its status) since plan read it: the same update, on the new version.
        if (!(error instanceof KubeApiError && error.statusCode === 409)) throw error;
        const current = await kubeRequestJson<ManagedObject>(access, { path });
        await dryRun(current.metadata.resourceVersion);
      });
    } catch (error) {
      if (!(error instanceof KubeApiError)) throw error;
      if (error.statusCode === 400 || error.statusCode === 422) {
        const refusal = `${file}: ${kind.kind} ${name}: ${error.status?.message ?? error.message}`;
        refused.set(object, refusal);
        note(`refused by the apiserver: ${refusal}`);
        continue;
      }
      if (error.statusCode !== 403 && error.statusCode !== 404) throw error;
      // 403: no right to create or update (a read-only plan); 404: the namespace is not there yet.
      const why = error.statusCode === 403 ? 'no right to create or update' : 'the namespace does not exist';
      const where = `${kind.kind} in ${namespace}`;
      if (!skipped.has(where)) note(`not checked by the apiserver (${why}): ${where}; the schema checked it`);
      skipped.add(where);
    }
  }
  return refused;
}

const labelsAndAnnotations = ({ metadata }: ManagedObject) => ({
  ...(metadata.labels ? { labels: metadata.labels } : {}),
  ...(metadata.annotations ? { annotations: metadata.annotations } : {}),
});
