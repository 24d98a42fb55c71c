// Per-test-file namespaces on the shared cluster, so files can run in
// parallel without seeing each other's objects.
import { randomBytes } from 'node:crypto';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { testKubeConfig } from './test-cluster.ts';

export interface TestNamespace {
  name: string;
  /** Admin KubeConfig whose contexts default to this namespace. */
  kc: KubeConfig;
  /** Deletes the namespace; tolerates it being gone already. */
  delete(): Promise<void>;
}

/** Lowercase DNS label: `<prefix>-<6 hex>`, at most 63 characters. */
export function namespaceName(prefix: string): string {
  const clean = prefix
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50);
  return `${clean || 'test'}-${randomBytes(3).toString('hex')}`;
}

/**
 * `on`: another cluster's admin KubeConfig (default the shared test cluster); `name`: an exact name, for the
 * same namespace in two clusters (default `<prefix>-<6 hex>`).
 */
export async function createTestNamespace(
  prefix: string,
  { on, name = namespaceName(prefix) }: { on?: KubeConfig; name?: string } = {},
): Promise<TestNamespace> {
  const admin = on ?? testKubeConfig();
  const core = admin.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name, labels: { 'sluice.dev/test': 'true' } } } });

  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: admin.clusters,
    users: admin.users,
    contexts: admin.contexts.map((c) => ({ ...c, namespace: name })),
    currentContext: admin.currentContext,
  });
  return {
    name,
    kc,
    delete: async () => {
      try {
        await core.deleteNamespace({ name });
      } catch (err) {
        if ((err as { code?: number }).code !== 404) throw err;
      }
    },
  };
}
