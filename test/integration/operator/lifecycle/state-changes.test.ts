import { beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { kafkaPipe } from '../../../../tools/fixtures/pipe.ts';
import { condition, isReady, type SluiceObject, useOperatorEnv } from '../support.ts';

/** The emulator's cloud takes this long per step of a change (stopping → stopped, degraded → running). */
const TRANSITION_MS = 3_000;

/**
 * What a user watching `kubectl get` and `kubectl get events` sees through a stop, a start and a resize: the
 * STATE column (status.state) shows the change under way as soon as Ready says it is being applied, and each
 * change has its own Event naming what it asked for.
 */
describe.skipIf(clusterSkipReason())('State changes as a user sees them, on a real apiserver', () => {
  const env = useOperatorEnv('state-changes', {
    emulator: { transitionMs: TRANSITION_MS },
    operator: false,
    timeoutMs: 60_000,
  });

  beforeAll(async () => {
    // The operator's own poll interval: its first look after a change waits for the cloud to settle.
    await env.startOperator({ pollInterval: '2s' });
    await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass-1' });
    await env.apply('analytics', { name: 'analytics' });
    await env.waitFor('analytics', 'service Ready', isReady, 30_000);
  }, 60_000);

  /** The first status that says generation `generation` is being applied (Ready=False, Updating). */
  const updating = (kind: string, name: string, generation: number) =>
    env.of<SluiceObject>(kind).waitFor(name, `${kind} ${name} updating generation ${generation}`, (o) => {
      return condition(o, 'Ready')?.reason === 'Updating' && o?.status?.observedGeneration === generation;
    });
  const generationOf = async (kind: string, name: string) =>
    (await env.of<SluiceObject>(kind).get(name))!.metadata.generation!;
  const updatedEvents = async (name: string) =>
    (await env.core.listNamespacedEvent({ namespace: env.namespace })).items
      .filter((e) => e.involvedObject.name === name && e.reason === 'Updated')
      .sort((a, b) =>
        String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)),
      )
      .map((e) => e.message);

  it('a service: stop, start and resize each show their transitional state and have their own Event', async () => {
    const services = env.of<SluiceObject>('DatabaseService');
    const change = async (spec: Record<string, unknown>, transitional: string, settled: string) => {
      await services.patchSpec('analytics', spec);
      const seen = await updating(
        'DatabaseService',
        'analytics',
        await generationOf('DatabaseService', 'analytics'),
      );
      expect(seen.status!.state).toBe(transitional);
      await services.waitFor('analytics', settled, (o) => isReady(o) && o?.status?.state === settled, 30_000);
    };
    await change({ state: 'Stopped' }, 'stopping', 'stopped');
    await change({ state: 'Running' }, 'starting', 'running');
    const id = (await services.get('analytics'))!.status!.id!;
    const replicas = (await env.cloud.getService(id)).numReplicas! + 1;
    await change({ numReplicas: replicas }, 'degraded', 'running');

    expect(await updatedEvents('analytics')).toEqual([
      'updated state Stopped',
      'updated state Running',
      `updated numReplicas ${replicas}`,
    ]);
  }, 120_000);

  it('a pipe: stop then start show their transitional state and make two Events', async () => {
    const pipes = env.of<SluiceObject>('Pipe');
    /** Waits until the pipe is Ready in `state`. */
    const pipeIn = (state: string) =>
      pipes.waitFor('orders', `pipe ${state}`, (o) => isReady(o) && o?.status?.state === state, 30_000);
    await pipes.apply('orders', kafkaPipe('orders'));
    await pipeIn('Running');
    await pipes.patchSpec('orders', { state: 'Stopped' });
    const stopping = await updating('Pipe', 'orders', await generationOf('Pipe', 'orders'));
    expect(stopping.status!.state).toBe('Stopping');
    await pipeIn('Stopped');
    await pipes.patchSpec('orders', { state: 'Running' });
    await pipeIn('Running');

    expect(await updatedEvents('orders')).toEqual(['updated state Stopped', 'updated state Running']);
  }, 120_000);
});
