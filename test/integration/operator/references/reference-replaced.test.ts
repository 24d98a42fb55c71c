import { beforeAll, describe, expect, it, vi } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { kafkaPipe, PIPE, PIPES } from '../../../../tools/fixtures/pipe.ts';
import {
  baseSpec,
  condition,
  isReady,
  writes,
  type SluiceObject,
  useOperatorEnv,
  isReadyWithId,
} from '../support.ts';

describe.skipIf(clusterSkipReason())('a referenced object replaced under a dependant', () => {
  const env = useOperatorEnv('reference-replaced', { operator: false });
  const pipes = () => env.of<SluiceObject>('Pipe');
  /** The garbage collector removes the connection Secret a deleted DatabaseService owned. */
  const collected = (secret: string) =>
    vi.waitFor(async () => expect(await env.secret(secret)).toBeUndefined(), {
      timeout: 30_000,
      interval: 200,
    });

  beforeAll(async () => {
    await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass' });
    await env.startOperator();
  });

  it('a DatabaseService deleted (Orphan) and applied again takes back its service: the Pipe keeps its id and nothing is written', async () => {
    await env.apply('events', { name: 'events' });
    const serviceId = (await env.waitFor('events', 'service Ready', isReady)).status!.id!;
    await pipes().apply('clicks', kafkaPipe('clicks', { service: 'events' }));
    const pipe = await pipes().waitFor('clicks', 'Ready', isReadyWithId);

    await env.removeUntilGone('events');
    await collected('events-connection');
    await env.clearCalls();
    await env.apply('events', { name: 'events' });
    const back = await env.waitFor('events', 'taken back', (s) => isReady(s) && !!s?.status?.id);
    expect(back.status!.id).toBe(serviceId);
    // Looked at the Pipe again with the service taken back: still Ready, nothing to send.
    await env.freshLook('Pipe', 'clicks');
    expect(isReady(await pipes().get('clicks'))).toBe(true);
    expect((await pipes().get('clicks'))!.status!.id).toBe(pipe.status!.id);
    expect(writes(await env.calls())).toEqual([]);
  });

  it('a Pipe whose DatabaseService was deleted (Orphan) and applied again on another service says ReferenceReplaced naming both ids, creates no second pipe, and is still deleted from the old service', async () => {
    await env.apply('analytics', { name: 'analytics' });
    const oldServiceId = (await env.waitFor('analytics', 'service Ready', isReady)).status!.id!;
    await pipes().apply('orders', kafkaPipe('orders'));
    const pipe = await pipes().waitFor('orders', 'Ready', isReadyWithId);
    const pipeId = pipe.status!.id!;

    // Replace the DatabaseService: its default deletionPolicy (Orphan) leaves the old service, and the
    // object applied again manages another one (by id: applied as it was, it would take back the old one).
    await env.removeUntilGone('analytics');
    await collected('analytics-connection');
    const { service } = await env.cloud.createService({ name: 'analytics', ...baseSpec });
    await env.clearCalls();
    await env.apply('analytics', { name: 'analytics' }, { 'sluice.dev/external-id': service.id });
    const newServiceId = (
      await env.waitFor('analytics', 'new service Ready', (s) => isReady(s) && s?.status?.id !== oldServiceId)
    ).status!.id!;

    const replaced = await pipes().waitFor(
      'orders',
      'ReferenceReplaced',
      (p) => condition(p, 'Ready')?.reason === 'ReferenceReplaced',
    );
    const ready = condition(replaced, 'Ready')!;
    expect(ready.status).toBe('False');
    expect(ready.message).toContain(oldServiceId);
    expect(ready.message).toContain(newServiceId);
    expect(replaced.status).toMatchObject({ id: pipeId, serviceId: oldServiceId });

    const pipeCalls = (await env.calls()).filter((c) => c.route === PIPES || c.route === PIPE);
    expect(writes(pipeCalls)).toEqual([]);
    expect(env.emulator.store.pipesOf(newServiceId).size).toBe(0);
    expect(env.emulator.store.pipesOf(oldServiceId).has(pipeId)).toBe(true);

    // Deleting it deletes its pipe where it lives: under the old service, which status keeps.
    await pipes().removeUntilGone('orders');
    expect(env.emulator.store.pipesOf(oldServiceId).has(pipeId)).toBe(false);
    const deletes = (await env.calls()).filter((c) => c.method === 'DELETE' && c.route === PIPE);
    expect(deletes.map((c) => c.path)).toEqual([
      expect.stringContaining(`/services/${oldServiceId}/pipes/${pipeId}`),
    ]);
  });
});
