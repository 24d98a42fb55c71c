import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { kubectlApply, operatorPodTemplate, type Manifest } from '../../../tools/cluster/install.ts';

export const RESTRICTED = { 'pod-security.kubernetes.io/enforce': 'restricted' };

/** Labels a namespace so the apiserver's PodSecurity admission enforces the restricted profile there. */
export async function enforceRestricted(kc: KubeConfig, namespace: string): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const ns = await core.readNamespace({ name: namespace });
  ns.metadata!.labels = { ...ns.metadata!.labels, ...RESTRICTED };
  await core.replaceNamespace({ name: namespace, body: ns });
}

/**
 * The Deployment's pod as the ReplicaSet controller would create it, dry-run in `namespace`: PodSecurity
 * admission checks pods (for Deployments it only warns), so this is where the restricted profile is enforced.
 */
export function dryRunOperatorPod(
  kubeconfig: string,
  objects: readonly Manifest[],
  namespace: string,
): string {
  const template = operatorPodTemplate(objects);
  const pod: Manifest = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { ...(template.metadata ?? {}), name: 'sluice-operator-pod-check', namespace },
    spec: template.spec,
  };
  return kubectlApply(kubeconfig, [pod], { dryRun: true });
}
