import type { ClusterIdentity } from '../managed/index.ts';
import type { KubeAccess } from '../kube/kube-config.ts';
import { KubeApiError, kubeRequestJson } from '../kube/kube-http.ts';

/** The namespace every cluster has from its start and never loses: its uid is the cluster's identity. */
const IDENTITY_NAMESPACE = 'kube-system';

/**
 * The name recorded in the cloud as this cluster's: `--cluster-name` when set; otherwise the uid of the
 * `kube-system` namespace (the cluster id multi-cluster tools use), so that two default installs are always
 * different owners and neither can take the other's objects. A rebuilt cluster has a new uid: only an
 * explicit name lets it take back what it had.
 */
export async function resolveClusterIdentity(
  kubeConfig: KubeAccess,
  explicit: string | undefined,
  takeOverFrom: readonly string[] = [],
): Promise<ClusterIdentity> {
  if (explicit !== undefined) return { name: explicit, explicit: true, takeOverFrom };
  try {
    const namespace = await kubeRequestJson<{ metadata?: { uid?: string } }>(kubeConfig, {
      path: `/api/v1/namespaces/${IDENTITY_NAMESPACE}`,
    });
    const uid = namespace.metadata?.uid;
    if (!uid) throw new Error(`namespace ${IDENTITY_NAMESPACE} has no uid`);
    return { name: uid, explicit: false, takeOverFrom };
  } catch (error) {
    const why = error instanceof KubeApiError ? `HTTP ${error.statusCode}` : String(error);
    throw new Error(
      `--cluster-name is not set and the cluster's identity (the uid of namespace ${IDENTITY_NAMESPACE}) could not be read (${why}): set --cluster-name (chart value clusterName), or grant get on namespace ${IDENTITY_NAMESPACE}`,
      { cause: error },
    );
  }
}
