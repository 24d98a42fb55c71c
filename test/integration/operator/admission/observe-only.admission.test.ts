import { KubernetesObjectApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, type TestNamespace } from '../../../harness/namespace.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { KINDS } from '../../../../src/kinds/index.ts';
import { observeAdmissionPolicy } from '../../../../src/install/admission-policy.ts';

type Manifest = Record<string, unknown> & { metadata: Record<string, unknown> };

describe.skipIf(clusterSkipReason())('the admission policy for managementPolicy Observe', () => {
  let ns: TestNamespace;
  let objects: KubernetesObjectApi;
  const [policy, shipped] = observeAdmissionPolicy(KINDS) as [Manifest, Manifest];
  // The shipped policy as is; its binding limited to this namespace, so other tests' objects are not refused.
  const binding: Manifest = {
    ...structuredClone(shipped),
    metadata: { name: `${String(shipped.metadata.name)}-test` },
  };
  let counter = 0;

  const service = (spec: Record<string, unknown>, annotations?: Record<string, string>) => ({
    apiVersion: 'sluice.dev/v1alpha1',
    kind: 'DatabaseService',
    metadata: { name: `observe-${++counter}`, namespace: ns.name, ...(annotations ? { annotations } : {}) },
    spec: { name: 'x', provider: 'aws', region: 'us-east-1', ...spec },
  });
  const answer = async (manifest: unknown): Promise<string> => {
    try {
      await objects.create(manifest as never);
      return 'accepted';
    } catch (error) {
      return String((error as { body?: string }).body ?? error);
    }
  };

  beforeAll(async () => {
    ns = await createTestNamespace('observe-policy');
    objects = KubernetesObjectApi.makeApiClient(ns.kc);
    (binding.spec as Record<string, unknown>).matchResources = {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns.name } },
    };
    await objects.create(policy as never);
    await objects.create(binding as never);
  });
  afterAll(async () => {
    await objects?.delete(binding as never).catch(() => undefined);
    await objects?.delete(policy as never).catch(() => undefined);
    await ns?.delete();
  });

  it('refuses an Observe object that names no cloud id, saying how to name one', async () => {
    // The apiserver takes a moment to start enforcing a new policy: wait for the first refusal.
    let refused = 'accepted';
    const deadline = Date.now() + 20_000;
    while (refused === 'accepted' && Date.now() < deadline) {
      refused = await answer(service({ managementPolicy: 'Observe' }));
      if (refused === 'accepted') await new Promise((r) => setTimeout(r, 200));
    }
    expect(refused).toContain('managementPolicy Observe never creates');
    expect(refused).toContain('sluice.dev/external-id');
  });

  it('admits an Observe object with sluice.dev/external-id, and objects under Full or no policy', async () => {
    expect(await answer(service({ managementPolicy: 'Observe' }, { 'sluice.dev/external-id': 'abc' }))).toBe(
      'accepted',
    );
    expect(await answer(service({ managementPolicy: 'Full' }))).toBe('accepted');
    expect(await answer(service({}))).toBe('accepted');
  });
});
