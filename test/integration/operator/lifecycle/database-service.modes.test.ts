import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { REAL_TIMINGS } from '../../../../src/base/timings.ts';
import { baseSpec, condition, isReady, TIME_SCALE, writes, useOperatorEnv } from '../support.ts';
import { until, untilValue } from '../../../support/wait.ts';

const SERVICES = '/v1/organizations/:organizationId/services';
const SERVICE = `${SERVICES}/:serviceId`;

describe.skipIf(clusterSkipReason())('DatabaseService adoption, pause and drift', () => {
  const env = useOperatorEnv('dbs-modes');

  it('adopts an existing service named by the external-id annotation instead of creating one', async () => {
    const { service } = await env.cloud.createService({ name: 'legacy', ...baseSpec });
    await env.clearCalls();
    await env.apply('legacy', { name: 'legacy' }, { 'sluice.dev/external-id': service.id });

    const ready = await env.waitFor('legacy', 'Ready', isReady);
    expect(ready.status!.id).toBe(service.id);
    expect((await env.calls()).filter((c) => c.method === 'POST' && c.route === SERVICES)).toHaveLength(0);
    // The password only existed in the create response: adoption leaves it as it is, unknown to sluice.
    expect(await env.secret('legacy-connection')).not.toHaveProperty('password');
  });

  it('does nothing to the cloud while paused, and says so in Synced', async () => {
    await env.apply('paused', { name: 'paused' });
    const id = (await env.waitFor('paused', 'Ready', isReady)).status!.id!;
    await env.annotate('paused', { 'sluice.dev/paused': 'true' });
    await env.waitFor(
      'paused',
      'Synced=ReconcilePaused',
      (r) => condition(r, 'Synced')?.reason === 'ReconcilePaused',
    );
    await env.clearCalls();

    await env.patchSpec('paused', { name: 'renamed while paused' });
    // The operator looked at the new generation and left it: Synced says so for that generation.
    await env.waitFor(
      'paused',
      'the paused reconcile of the rename',
      (r) =>
        (condition(r, 'Synced') as { observedGeneration?: number } | undefined)?.observedGeneration ===
        r?.metadata.generation,
    );
    expect(writes(await env.calls())).toEqual([]);
    expect((await env.cloud.getService(id)).name).toBe('paused');

    await env.annotate('paused', { 'sluice.dev/paused': null });
    await env.waitFor(
      'paused',
      'the rename after unpausing',
      (r) => isReady(r) && r!.status!.observedGeneration === r!.metadata.generation,
    );
    expect((await env.cloud.getService(id)).name).toBe('renamed while paused');
  });

  it('reports drift in status.drift without correcting it when asked to report only, staying Ready', async () => {
    await env.apply(
      'watched',
      { name: 'watched' },
      { 'sluice.dev/drift': 'report', 'sluice.dev/sync-interval': '1s' },
    );
    const id = (await env.waitFor('watched', 'Ready', isReady)).status!.id!;
    await env.cloud.updateService(id, { name: 'changed by hand' });
    await env.clearCalls();

    const drifted = await env.waitFor(
      'watched',
      'Drifted',
      (r) => condition(r, 'Drifted')?.status === 'True',
    );
    expect(condition(drifted, 'Drifted')!.message).toContain('name');
    // The same as reportOnly for every field: an allowed difference, counted in Ready, listed in status.
    expect(condition(drifted, 'Ready')).toMatchObject({
      status: 'True',
      reason: 'Available',
      message: '1 field differs from the spec, as the field policy allows: name',
    });
    expect(drifted.status!.drift).toEqual([
      { path: 'name', observed: 'changed by hand', since: expect.any(String) },
    ]);
    expect(writes(await env.calls())).toEqual([]);
    expect((await env.cloud.getService(id)).name).toBe('changed by hand');
  });

  it('leaves the object untouched when a drift check finds nothing (no timestamp moves)', async () => {
    await env.apply('steady', { name: 'steady' }, { 'sluice.dev/sync-interval': '500ms' });
    const ready = await env.waitFor('steady', 'Ready', isReady);
    await env.clearCalls();

    // A drift check reads the service, by itself or in the organization's services list: three of them.
    const checks = async () =>
      (await env.calls()).filter(
        (c) => c.method === 'GET' && (c.path.endsWith(ready.status!.id!) || c.route === SERVICES),
      );
    await until('three drift checks', async () => (await checks()).length >= 3, 20_000);
    expect((await env.get('steady'))!.metadata.resourceVersion).toBe(ready.metadata.resourceVersion);
  });

  it('corrects an out-of-band change within the sync interval with one PATCH', async () => {
    await env.apply('guarded', { name: 'guarded' }, { 'sluice.dev/sync-interval': '1s' });
    const id = (await env.waitFor('guarded', 'Ready', isReady)).status!.id!;
    await env.clearCalls();
    await env.cloud.updateService(id, { name: 'changed by hand' });

    await until(
      'the name corrected in the cloud',
      async () => (await env.cloud.getService(id)).name === 'guarded',
      10_000,
      100,
    );
    expect((await env.cloud.getService(id)).name).toBe('guarded');
    const operatorPatches = writes(await env.calls()).filter(
      (c) => c.route === SERVICE && c.body && (c.body as { name?: string }).name === 'guarded',
    );
    expect(operatorPatches).toHaveLength(1);
  });
});

describe.skipIf(clusterSkipReason())('DatabaseService errors', () => {
  // Compressed time: the retry of a refused request comes after 1 s instead of 10 s.
  const env = useOperatorEnv('dbs-errors', {
    emulator: { unpaid: true },
    operator: { timeScale: TIME_SCALE },
  });

  it('surfaces an API 400 in Synced with the API message, and backs off instead of retrying hot', async () => {
    // Valid for the CRD (paid bounds), refused by a non-paid organization.
    await env.apply('too-big', { name: 'too big', minReplicaMemoryGb: 8, maxReplicaMemoryGb: 200 });
    const failed = await env.waitFor(
      'too-big',
      'Synced=False',
      (r) => condition(r, 'Synced')?.status === 'False',
    );
    expect(condition(failed, 'Synced')).toMatchObject({ reason: 'CloudRequestRejected' });
    expect(condition(failed, 'Synced')!.message).toContain('maxReplicaMemoryGb must be at most 120');

    // The retry came, and not before the floor under a refused request's back-off: no hot retry.
    const attempts = await untilValue(
      'the refused create retried',
      async () => (await env.calls()).filter((c) => c.method === 'POST' && c.route === SERVICES),
      (posts) => posts.length >= 2,
      30_000,
    );
    const [first, retry] = attempts.map((c) => Date.parse(c.timestamp));
    expect(retry! - first!).toBeGreaterThanOrEqual(REAL_TIMINGS.retry.rejectedRequest / TIME_SCALE);
    expect(await env.cloud.listServices()).toEqual([]);
  });

  it('names the missing Secret when a resource points at credentials that do not exist', async () => {
    await env.apply('no-creds', { name: 'no creds', credentialsRef: { name: 'nowhere' } });
    const failed = await env.waitFor(
      'no-creds',
      'CredentialsMissing',
      (r) => condition(r, 'Synced')?.reason === 'CredentialsMissing',
    );
    expect(condition(failed, 'Synced')!.message).toBe(`Secret ${env.namespace}/nowhere not found`);
  });
});
