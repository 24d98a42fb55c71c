import { beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { kafkaPipe, lookAlikeBody, PIPE, PIPES } from '../../../../tools/fixtures/pipe.ts';
import { condition, isReady, type SluiceObject, useOperatorEnv, isReadyWithId } from '../support.ts';

const SERVICE_STATE = '/v1/organizations/:organizationId/services/:serviceId/state';
const reasonIs = (reason: string) => (p: SluiceObject | undefined) =>
  condition(p, 'Ready')?.reason === reason;

describe.skipIf(clusterSkipReason())('Pipe references, waiting and deletion on a real apiserver', () => {
  const env = useOperatorEnv('pipe-deps', { operator: false });
  const pipes = () => env.of<SluiceObject>('Pipe');
  const pipesNamed = (name: string) =>
    [...env.emulator.store.services.values()].flatMap((s) =>
      [...env.emulator.store.pipesOf(s.id).values()].filter((p) => p.name === name),
    );
  const warnings = async (name: string) =>
    (await env.core.listNamespacedEvent({ namespace: env.namespace })).items.filter(
      (e) => e.involvedObject.name === name && e.type === 'Warning',
    );
  const readyService = async (name: string, spec: Record<string, unknown> = {}) => {
    await env.apply(name, { name, ...spec });
    return (await env.waitFor(name, `${name} Ready`, isReady)).status!.id!;
  };

  beforeAll(async () => {
    await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass' });
    await env.startOperator({ managementQuota: '100/1s' });
  });

  it('waits for a DatabaseService applied after the Pipe, then becomes Ready without any manual step', async () => {
    await pipes().apply('early', kafkaPipe('early', { service: 'late' }));
    const waiting = await pipes().waitFor('early', 'WaitingForReference', reasonIs('WaitingForReference'));
    expect(condition(waiting, 'Ready')).toMatchObject({
      status: 'False',
      message: 'DatabaseService late does not exist yet',
    });
    expect(condition(waiting, 'Synced')).toMatchObject({ status: 'True' });

    await env.apply('late', { name: 'late' });
    const ready = await pipes().waitFor('early', 'Ready', isReadyWithId, 30_000);
    expect(ready.status!.serviceId).toBe((await env.get('late'))!.status!.id);
    expect(await warnings('early')).toEqual([]);
  });

  it('wakes an idle service with exactly one awake before the POST', async () => {
    const serviceId = await readyService('sleepy');
    await env.forceState({ kind: 'service', id: serviceId, state: 'idle' });
    await env.clearCalls();
    await pipes().apply('woken', kafkaPipe('woken', { service: 'sleepy' }));
    await pipes().waitFor('woken', 'Ready', isReadyWithId, 30_000);

    const calls = (await env.calls()).filter((c) => c.method !== 'GET');
    const awakes = calls.filter((c) => c.route === SERVICE_STATE);
    expect(awakes.map((c) => c.body)).toEqual([{ command: 'awake' }]);
    const created = calls.findIndex((c) => c.route === PIPES && c.status === 200);
    expect(calls.indexOf(awakes[0]!)).toBeLessThan(created);
  });

  it('never starts a stopped service: no POST, and Ready says the service is stopped', async () => {
    await readyService('halted', { state: 'Stopped' });
    await env.waitFor('halted', 'stopped', (s) => s?.status?.state === 'stopped');
    await env.clearCalls();
    await pipes().apply('blocked', kafkaPipe('blocked', { service: 'halted' }));
    const waiting = await pipes().waitFor('blocked', 'waiting', reasonIs('WaitingForReference'));
    expect(condition(waiting, 'Ready')!.message).toContain('stopped');
    await env.freshLook('Pipe', 'blocked');
    const calls = await env.calls();
    expect(calls.filter((c) => c.route === PIPES && c.method === 'POST')).toEqual([]);
    expect(calls.filter((c) => c.route === SERVICE_STATE)).toEqual([]);
  });

  it('creates its own pipe instead of adopting a look-alike it has no intent for', async () => {
    const serviceId = await readyService('shared');
    const spec = kafkaPipe('lookalike', { service: 'shared' });
    const foreign = await env.cloud.createPipe(serviceId, lookAlikeBody(spec));
    await pipes().apply('lookalike', spec);
    const ready = await pipes().waitFor('lookalike', 'Ready', isReadyWithId);
    expect(ready.status!.id).not.toBe(foreign.id);
    expect(pipesNamed('lookalike')).toHaveLength(2);
  });

  it('deletes the cloud pipe under deletionPolicy Delete and leaves it under Orphan', async () => {
    await readyService('owner');
    await pipes().apply('doomed', kafkaPipe('doomed', { service: 'owner' }));
    await pipes().apply('kept', { ...kafkaPipe('kept', { service: 'owner' }), deletionPolicy: 'Orphan' });
    const doomed = await pipes().waitFor('doomed', 'Ready', isReadyWithId);
    const kept = await pipes().waitFor('kept', 'Ready', isReadyWithId);

    await pipes().remove('doomed');
    await pipes().remove('kept');
    await pipes().waitFor('doomed', 'gone', (p) => p === undefined);
    await pipes().waitFor('kept', 'gone', (p) => p === undefined);
    expect(env.emulator.store.findPipe(doomed.status!.id!)).toBeUndefined();
    expect(env.emulator.store.findPipe(kept.status!.id!)).toBeDefined();
    const deletes = (await env.calls()).filter((c) => c.method === 'DELETE' && c.route === PIPE);
    expect(deletes.map((c) => c.path)).toEqual([expect.stringContaining(doomed.status!.id!)]);
  });

  it('keeps the finalizer and says what unblocks a delete the cloud refuses on a stopped service, without a hot loop', async () => {
    await readyService('pausable');
    await pipes().apply('stuck', kafkaPipe('stuck', { service: 'pausable' }));
    const pipe = await pipes().waitFor('stuck', 'Ready', isReadyWithId);
    await env.patchSpec('pausable', { state: 'Stopped' });
    await env.waitFor('pausable', 'stopped', (s) => s?.status?.state === 'stopped');

    await pipes().remove('stuck');
    const blocked = await pipes().waitFor(
      'stuck',
      'DeleteBlocked',
      (p) => condition(p, 'Synced')?.reason === 'DeleteBlocked',
    );
    expect(condition(blocked, 'Synced')!.message).toContain(
      'start the service or set deletionPolicy: Orphan',
    );
    // Looked at again once: that reconcile's DELETE is the only one since the refusal, none of its own.
    const refused = async () =>
      (await env.calls()).filter((c) => c.method === 'DELETE' && c.route === PIPE).length;
    const refusedFirst = await refused();
    expect(refusedFirst).toBeLessThanOrEqual(2);
    await env.reconciledAgain('Pipe', 'stuck');
    expect(await refused()).toBe(refusedFirst + 1);
    expect(await pipes().get('stuck')).toBeDefined();

    await env.patchSpec('pausable', { state: 'Running' });
    await pipes().waitFor('stuck', 'gone after the service runs again', (p) => p === undefined, 60_000);
    expect(env.emulator.store.findPipe(pipe.status!.id!)).toBeUndefined();
  }, 90_000);

  it('makes a DatabaseService with deletionPolicy Delete wait for the Pipes that reference it', async () => {
    const serviceId = await readyService('retiring', { deletionPolicy: 'Delete' });
    await pipes().apply('last', kafkaPipe('last', { service: 'retiring' }));
    await pipes().waitFor('last', 'Ready', isReadyWithId);

    await env.remove('retiring');
    const waiting = await env.waitFor('retiring', 'waiting for dependants', reasonIs('WaitingForDependants'));
    expect(condition(waiting, 'Ready')!.message).toBe('waiting for Pipe last to be deleted first');
    expect(env.emulator.store.services.get(serviceId)?.state).toBe('running');

    await pipes().remove('last');
    await env.waitFor('retiring', 'gone', (s) => s === undefined, 60_000);
  }, 90_000);

  it('reports a pipe the cloud says Failed as CloudFailed with one Warning Event', async () => {
    await readyService('fragile');
    await pipes().apply('failing', kafkaPipe('failing', { service: 'fragile' }));
    const pipe = await pipes().waitFor('failing', 'Ready', isReadyWithId);
    await env.forceState({ kind: 'pipe', id: pipe.status!.id!, state: 'Failed' });
    await pipes().annotate('failing', { 'sluice.dev/sync-interval': '200ms' });
    await pipes().waitFor('failing', 'CloudFailed', reasonIs('CloudFailed'));
    // Looked at again while the cloud still says Failed: the Warning is not repeated.
    await env.freshLook('Pipe', 'failing');
    const events = (await warnings('failing')).filter((e) => e.reason === 'CloudFailed');
    expect(events).toHaveLength(1);
  });

  it('names the missing Secret and key in Synced, and recovers when the Secret appears', async () => {
    await readyService('guarded');
    await pipes().apply(
      'nosecret',
      kafkaPipe('nosecret', { service: 'guarded', credentialsSecret: 'later' }),
    );
    const failed = await pipes().waitFor(
      'nosecret',
      'SecretMissing',
      (p) => condition(p, 'Synced')?.reason === 'SecretMissing',
    );
    expect(condition(failed, 'Synced')!.message).toBe(
      `Secret ${env.namespace}/later (source.kafka.credentialsSecretRef) not found`,
    );
    await env.putSecret('later', { username: 'u' });
    await pipes().waitFor(
      'nosecret',
      'key missing',
      (p) => condition(p, 'Synced')?.message?.includes('has no key password') ?? false,
    );
    await env.putSecret('later', { username: 'u', password: 'p-later' });
    await pipes().waitFor('nosecret', 'Ready', isReadyWithId, 40_000);
  });
});
