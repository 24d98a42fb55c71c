// The reflector against the real kube-apiserver of the test harness: real list pagination, watch
// semantics, bookmarks and managedFields. Fault injection lives in test/unit/kube/reflector.faults.test.ts.
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Reflector } from '../../../src/kube/reflector.ts';
import { createTestNamespace, type TestNamespace } from '../../harness/namespace.ts';
import { clusterSkipReason } from '../../harness/test-cluster.ts';

const skip = clusterSkipReason();
const until = { timeout: 10_000, interval: 50 };
const CONFIGMAPS = { group: '', version: 'v1', plural: 'configmaps' };

describe.skipIf(skip)('Reflector on a real apiserver', () => {
  let ns: TestNamespace;
  let core: CoreV1Api;
  let reflector: Reflector | undefined;
  let changes: string[];

  beforeAll(async () => {
    ns = await createTestNamespace('reflector');
    core = ns.kc.makeApiClient(CoreV1Api);
  });
  afterAll(async () => {
    await ns?.delete();
  });
  afterEach(async () => {
    await reflector?.stop();
    reflector = undefined;
  });

  const configMap = (name: string, labels: Record<string, string> = {}) =>
    core.createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: { name, labels }, data: { value: '1' } },
    });

  async function start(options: { labelSelector?: string; pageSize?: number } = {}) {
    changes = [];
    reflector = new Reflector({
      kubeConfig: ns.kc,
      resource: CONFIGMAPS,
      namespace: ns.name,
      onChange: (key) => changes.push(key),
      ...options,
    });
    reflector.start();
    await reflector.waitForSync();
    return reflector;
  }

  const ours = () =>
    reflector!.cache
      .keys()
      .filter((key) => key.includes('/test-'))
      .sort();

  it('lists across pages, then follows creates, updates and deletes', async () => {
    for (const name of ['test-a', 'test-b', 'test-c']) await configMap(name, { suite: 'paging' });
    await start({ pageSize: 1, labelSelector: 'suite=paging' });
    expect(ours()).toEqual([`${ns.name}/test-a`, `${ns.name}/test-b`, `${ns.name}/test-c`]);

    await configMap('test-d', { suite: 'paging' });
    await core.patchNamespacedConfigMap(
      { namespace: ns.name, name: 'test-a', body: { data: { value: '2' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await core.deleteNamespacedConfigMap({ namespace: ns.name, name: 'test-b' });

    await vi.waitFor(
      () => expect(ours()).toEqual([`${ns.name}/test-a`, `${ns.name}/test-c`, `${ns.name}/test-d`]),
      until,
    );
    await vi.waitFor(
      () => expect(reflector!.cache.get(`${ns.name}/test-a`)?.data).toEqual({ value: '2' }),
      until,
    );
    expect(changes).toEqual(expect.arrayContaining([`${ns.name}/test-b`, `${ns.name}/test-d`]));
  });

  it('caches objects without managedFields, with apiVersion and kind', async () => {
    await configMap('test-fields', { suite: 'fields' });
    await start({ labelSelector: 'suite=fields' });
    const cached = reflector!.cache.get(`${ns.name}/test-fields`)!;
    expect(cached).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(cached.metadata).not.toHaveProperty('managedFields');
    const live = await core.readNamespacedConfigMap({ namespace: ns.name, name: 'test-fields' });
    expect(live.metadata?.managedFields?.length).toBeGreaterThan(0); // so the absence above means stripped
  });

  it('ignores objects outside its label selector', async () => {
    await start({ labelSelector: 'suite=selected' });
    await configMap('test-other', { suite: 'other' });
    await configMap('test-selected', { suite: 'selected' });
    await vi.waitFor(() => expect(ours()).toEqual([`${ns.name}/test-selected`]), until);
    expect(changes).not.toContain(`${ns.name}/test-other`);
  });
});
