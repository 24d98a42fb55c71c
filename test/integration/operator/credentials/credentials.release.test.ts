// Namespaces with their own credentials come and go (preview environments): what the operator keeps for a
// credentials Secret (clients, budgets, list snapshots, metric series) goes with its last user.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CREDENTIALS_FINALIZER } from '../../../../src/runtime/credentials-usage.ts';
import { createTestNamespace, type TestNamespace } from '../../../harness/namespace.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { baseSpec, isReady, startOperatorEnv, type OperatorEnv, type SluiceObject } from '../support.ts';

const OWN = 'tenant-credentials';

describe.skipIf(clusterSkipReason())('credentials of namespaces that come and go', () => {
  let env: OperatorEnv;
  let tenants: TestNamespace[];

  beforeAll(async () => {
    env = await startOperatorEnv('release');
    tenants = [await createTestNamespace('tenant-a'), await createTestNamespace('tenant-b')];
    await env.startOperator({
      namespace: [env.namespace, ...tenants.map((t) => t.name)].join(','),
      allowedApiHosts: `http://${new URL(env.emulator.url).host}`,
    });
  });
  afterAll(async () => {
    await env?.close();
    for (const tenant of tenants ?? []) await tenant.delete();
  });

  const scrape = async () => (await fetch(`${env.operator!.metrics!.url}/metrics`)).text();
  /** The metric lines that name a tenant's credentials Secret. */
  const seriesOf = (text: string, tenant: TestNamespace) =>
    text.split('\n').filter((line) => line.includes(`credentials="${tenant.name}/${OWN}"`));

  it('drops the clients, budgets, snapshots and metric series of a namespace’s credentials once the namespace is gone', async () => {
    const { credentials, url } = env.emulator;
    const service = (tenant: TestNamespace) => ({
      apiVersion: 'sluice.dev/v1alpha1',
      kind: 'DatabaseService',
      metadata: { name: 'db', namespace: tenant.name },
    });
    for (const tenant of tenants) {
      await tenant.kc.makeApiClient(CoreV1Api).createNamespacedSecret({
        namespace: tenant.name,
        body: {
          metadata: { name: OWN },
          stringData: {
            organizationId: credentials.organizationId,
            keyId: credentials.keyId,
            keySecret: credentials.keySecret,
            managementUrl: url,
          },
        },
      });
      await env.objects.create({
        ...service(tenant),
        spec: { ...baseSpec, name: `db ${tenant.name.replace(/-/g, ' ')}`, credentialsRef: { name: OWN } },
      } as never);
    }
    for (const tenant of tenants) {
      await vi.waitFor(
        async () =>
          expect(isReady((await env.objects.read(service(tenant) as never)) as SluiceObject)).toBe(true),
        { timeout: 30_000, interval: 200 },
      );
    }
    const before = await scrape();
    for (const tenant of tenants) {
      const series = seriesOf(before, tenant).join('\n');
      expect(series).toContain('sluice_cloud_quota_spent_total{');
      expect(series).toContain('sluice_snapshot_age_seconds{');
    }

    for (const tenant of tenants) await tenant.delete();
    const core = env.kc.makeApiClient(CoreV1Api);
    for (const tenant of tenants) {
      await vi.waitFor(
        async () =>
          expect(
            await core.readNamespace({ name: tenant.name }).then(
              () => 'present',
              (error: { code?: number }) => error.code,
            ),
          ).toBe(404),
        { timeout: 60_000, interval: 500 },
      );
    }
    const after = await scrape();
    for (const tenant of tenants) expect(seriesOf(after, tenant)).toEqual([]);
  }, 120_000);

  it('keeps the credentials-in-use finalizer on a Secret while any object uses it, and removes it (the Secret stays) with the last', async () => {
    await env.putCredentials('team');
    const finalizers = async () =>
      (await env.core.readNamespacedSecret({ name: 'team', namespace: env.namespace })).metadata
        ?.finalizers ?? [];
    for (const name of ['one', 'two']) await env.apply(name, { name, credentialsRef: { name: 'team' } });
    for (const name of ['one', 'two']) await env.waitFor(name, 'Ready', isReady, 30_000);
    expect(await finalizers()).toEqual([CREDENTIALS_FINALIZER]);

    await env.removeUntilGone('one');
    expect(await finalizers()).toEqual([CREDENTIALS_FINALIZER]);

    await env.removeUntilGone('two');
    await vi.waitFor(async () => expect(await finalizers()).toEqual([]), { timeout: 10_000, interval: 100 });
  });
});
