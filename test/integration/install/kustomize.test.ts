import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KINDS } from '../../../src/kinds/index.ts';
import { GRANT_SCHEMAS } from '../../../src/kinds/index.ts';
import { repoRoot } from '../../../tools/cluster/assets.ts';
import {
  find,
  helmTemplate,
  kubectlApply,
  kubectlBin,
  operatorArgs,
  operatorPodTemplate,
  parseManifests,
  run,
  type Manifest,
} from '../../../tools/cluster/install.ts';
import { clusterSkipReason, testKubeconfigPath } from '../../harness/test-cluster.ts';
import { dryRunOperatorPod } from './support.ts';

const kustomize = (dir: string) => parseManifests(run(kubectlBin(), ['kustomize', join(repoRoot, dir)]));

describe('kustomize base deploy/ (no cluster needed)', () => {
  const base = kustomize('deploy');

  it('installs the CRDs, the RBAC and the operator into sluice-system', () => {
    expect([...new Set(base.map((o) => o.kind))].sort()).toEqual(
      [
        'ClusterRole',
        'ClusterRoleBinding',
        'CustomResourceDefinition',
        'Deployment',
        'Namespace',
        'Role',
        'RoleBinding',
        'Service',
        'ServiceAccount',
        'ValidatingAdmissionPolicy',
        'ValidatingAdmissionPolicyBinding',
      ].sort(),
    );
    expect(base.filter((o) => o.kind === 'CustomResourceDefinition')).toHaveLength(
      KINDS.length + GRANT_SCHEMAS.length,
    );
    for (const o of base.filter(
      (o) =>
        ![
          'Namespace',
          'CustomResourceDefinition',
          'ClusterRole',
          'ClusterRoleBinding',
          'ValidatingAdmissionPolicy',
          'ValidatingAdmissionPolicyBinding',
        ].includes(o.kind),
    ))
      expect(o.metadata.namespace, `${o.kind} ${o.metadata.name}`).toBe('sluice-system');
  });

  it('grants exactly the rules the chart grants and runs the pod exactly as hardened as the chart', () => {
    const chart = parseManifests(helmTemplate({ namespace: 'sluice-system' }));
    expect(find(base, 'ClusterRole', 'sluice-operator')!.rules).toEqual(
      find(chart, 'ClusterRole', 'sluice')!.rules,
    );
    // No --cluster-name in the base: the cluster's name is derived from namespace kube-system, as the chart's.
    expect(find(base, 'ClusterRole', 'sluice-cluster-identity')!.rules).toEqual(
      find(chart, 'ClusterRole', 'sluice-cluster-identity')!.rules,
    );
    expect(find(base, 'ClusterRoleBinding', 'sluice-cluster-identity')).toBeDefined();
    expect(find(base, 'Role')!.rules).toEqual(find(chart, 'Role', 'sluice-leader-election')!.rules);
    const [ours, theirs] = [base, chart].map(
      (objects) =>
        operatorPodTemplate(objects).spec as unknown as {
          securityContext: unknown;
          containers: Record<string, unknown>[];
          volumes: unknown;
        },
    );
    expect(ours!.securityContext).toEqual(theirs!.securityContext);
    // One reconciler, as in the chart: leader election always, and no rollout overlapping two pods.
    expect(operatorArgs(base)).toContain('--leader-elect');
    const strategy = (objects: Manifest[]) =>
      (find(objects, 'Deployment')!.spec as { strategy: unknown }).strategy;
    expect(strategy(base)).toEqual(strategy(chart));
    expect(ours!.volumes).toEqual(theirs!.volumes);
    for (const field of ['securityContext', 'livenessProbe', 'readinessProbe', 'resources', 'volumeMounts'])
      expect(ours!.containers[0]![field], field).toEqual(theirs!.containers[0]![field]);
  });

  it('has an overlay example that runs two replicas with leader election', () => {
    const overlay = kustomize('overlays/example');
    const deployment = find(overlay, 'Deployment')!;
    expect((deployment.spec as { replicas: number }).replicas).toBe(2);
    expect(operatorPodTemplate(overlay).spec.containers[0]!.args).toContain('--leader-elect');
  });
});

describe.skipIf(clusterSkipReason())('kustomize base on the real apiserver', () => {
  it('kubectl apply -k deploy/ and the overlay pass a server-side dry-run, the pod the restricted profile', () => {
    const kubeconfig = testKubeconfigPath()!;
    const base = kustomize('deploy');
    // Objects in a namespace can only be dry-run once it exists; apply -k would create it first as well.
    kubectlApply(kubeconfig, [find(base, 'Namespace')!]);
    for (const objects of [base, kustomize('overlays/example')]) {
      const lines = kubectlApply(kubeconfig, objects, { dryRun: true }).trim().split('\n');
      expect(lines).toHaveLength(objects.length);
      for (const line of lines) expect(line).toMatch(/ (serverside-applied|unchanged) \(server dry run\)$/);
    }
    // deploy/ labels sluice-system to enforce the restricted profile; the operator's pod must pass it.
    expect(dryRunOperatorPod(kubeconfig, base, 'sluice-system')).toMatch(
      /serverside-applied \(server dry run\)/,
    );
  });
});
