import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { argoHealthOf } from '../../../harness/argocd-health.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { condition, isReady, startOperatorEnv, type OperatorEnv } from '../support.ts';

const SERVICES = '/v1/organizations/:organizationId/services';
const SERVICE = `${SERVICES}/:serviceId`;

/** The generation a condition was set for. */
const generationOf = (resource: Parameters<typeof condition>[0], type: string) =>
  (condition(resource, type) as { observedGeneration?: number } | undefined)?.observedGeneration;

describe.skipIf(clusterSkipReason())('DatabaseService status while the cloud fails its updates', () => {
  let env: OperatorEnv;

  beforeAll(async () => {
    env = await startOperatorEnv('dbs-failure-status');
    await env.startOperator();
    await env.apply('orders', { name: 'orders' });
    await env.apply('ledger', { name: 'ledger' });
    await env.waitFor('orders', 'Ready', isReady);
    await env.waitFor('ledger', 'Ready', isReady);
  });
  afterEach(async () => env?.fault());
  afterAll(async () => env?.close());

  it('a spec edit the cloud answers 500 to: Ready=False (SyncFailed) for the new generation, Argo CD not Healthy; Ready again once the cloud takes it', async () => {
    const before = (await env.get('orders'))!;
    const id = before.status!.id!;
    await env.fault({ method: 'PATCH', status: 500 });
    await env.patchSpec('orders', { name: 'orders renamed' });
    const generation = before.metadata.generation! + 1;

    const failed = await env.waitFor(
      'orders',
      'the failed update of the new generation in status',
      (r) => r?.status?.observedGeneration === generation && condition(r, 'Synced')?.status === 'False',
    );
    expect((await env.calls()).some((c) => c.method === 'PATCH' && c.route === SERVICE)).toBe(true);
    expect((await env.cloud.getService(id)).name).toBe('orders');
    expect(condition(failed, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'SyncFailed',
      observedGeneration: generation,
    });
    expect(condition(failed, 'Ready')!.message).toContain('500');
    expect(argoHealthOf(failed).status).not.toBe('Healthy');
    expect(['Progressing', 'Degraded']).toContain(argoHealthOf(failed).status);

    await env.fault();
    const recovered = await env.waitFor(
      'orders',
      'Ready for the new generation after the fault is cleared',
      (r) => isReady(r) && generationOf(r, 'Ready') === generation,
      60_000,
    );
    expect(recovered.status!.observedGeneration).toBe(generation);
    expect(condition(recovered, 'Synced')).toMatchObject({ status: 'True' });
    expect((await env.cloud.getService(id)).name).toBe('orders renamed');
    expect(argoHealthOf(recovered).status).toBe('Healthy');
  });

  it('a drift check that fails on a 500 keeps Ready=True of a spec the cloud matched: Synced=False, Argo CD Healthy', async () => {
    const before = (await env.get('ledger'))!;
    expect(isReady(before)).toBe(true);
    // The drift check reads the organization's services list, or the service itself: both answer 500.
    await env.fault({ method: 'GET', route: SERVICE, status: 500 });
    await env.fault({ method: 'GET', route: SERVICES, status: 500 });
    // Drift checks every second: each reads the cloud again (a snapshot older than that is not used).
    await env.annotate('ledger', { 'sluice.dev/sync-interval': '1s' });

    const looked = await env.waitFor(
      'ledger',
      'the failed drift check in Synced',
      (r) => condition(r, 'Synced')?.status === 'False',
    );
    expect(condition(looked, 'Ready')).toMatchObject({
      status: 'True',
      observedGeneration: before.metadata.generation,
    });
    expect(argoHealthOf(looked).status).toBe('Healthy');

    await env.fault();
    await env.waitFor('ledger', 'Synced again', (r) => condition(r, 'Synced')?.status === 'True', 60_000);
  });
});
