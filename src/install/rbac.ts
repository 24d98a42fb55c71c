import { GROUP } from '../kinds/shared/common.ts';
import type { GrantSchema } from '../kinds/shared/grant-schema.ts';
import type { KindDescriptor } from '../kinds/shared/descriptor.ts';

/** A Kubernetes RBAC PolicyRule. */
export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
  verbs: string[];
}

/**
 * Why each rule exists, in the order the operator needs them. The RBAC test on the real apiserver removes
 * each rule in turn and shows what breaks; keep this list and that test in step.
 */
export interface OperatorRules {
  /** Granted where resources are watched: cluster-wide (ClusterRole) or in `watchNamespace` (Role). */
  watched: PolicyRule[];
  /** Granted in the operator's own namespace only: the leader-election Lease. */
  leaderElection: PolicyRule[];
  /**
   * Cluster-wide, only without `--cluster-name`: the cluster's identity (the uid of namespace kube-system)
   * is the derived cluster name recorded in the cloud.
   */
  clusterIdentity: PolicyRule[];
}

/**
 * The least privilege `sluice run` needs, derived from the kind registry: a new kind in KINDS
 * (src/kinds/index.ts) gets its rules by `npm run generate`. Every verb here is one the operator sends:
 * the reflector lists and watches and leader election reads, creates and replaces its Lease (src/kube); the
 * reconciler merge-patches finalizers and status, writes connection Secrets and creates Events (src/managed).
 */
export function operatorRules(
  kinds: readonly KindDescriptor[],
  grants: readonly GrantSchema[] = [],
): OperatorRules {
  const plurals = kinds.map((k) => k.plural);
  return {
    watched: [
      // The reflector per kind (list, watch); the finalizer is added with a merge patch.
      { apiGroups: [GROUP], resources: plurals, verbs: ['list', 'watch', 'patch'] },
      // Grants are watched, and read again (get) before one lets a plain id through: never written.
      ...(grants.length > 0
        ? [{ apiGroups: [GROUP], resources: grants.map((g) => g.plural), verbs: ['get', 'list', 'watch'] }]
        : []),
      // Status is written with a merge patch on the status subresource.
      { apiGroups: [GROUP], resources: plurals.map((p) => `${p}/status`), verbs: ['patch'] },
      // Connection Secrets are owned by their resource with blockOwnerDeletion, which the
      // OwnerReferencesPermissionEnforcement admission plugin allows only with update on <kind>/finalizers.
      { apiGroups: [GROUP], resources: plurals.map((p) => `${p}/finalizers`), verbs: ['update'] },
      // Credentials (get); connection Secrets (create, patch; list and watch to notice one deleted).
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch', 'create', 'patch'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create'] },
    ],
    leaderElection: [
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
    ],
    clusterIdentity: [
      { apiGroups: [''], resources: ['namespaces'], resourceNames: ['kube-system'], verbs: ['get'] },
    ],
  };
}
