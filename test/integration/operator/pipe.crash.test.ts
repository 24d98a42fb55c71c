import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../harness/testCluster.ts';
import { kafkaPipe, lookAlikeBody, PIPES } from './pipe-fixtures.ts';
import { isReady, startOperatorEnv, type OperatorEnv, type SluiceObject } from './support.ts';

describe.skipIf(clusterSkipReason())('crash-safe pipe create (no tags: the create intent)', () => {
  let env: OperatorEnv;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    env = await startOperatorEnv('pipe-crash');
    await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass' });
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await env?.close();
  });

  it('after a kill -9 between the pipe POST and the status write, exactly one pipe exists and is adopted, and a foreign look-alike is not', async () => {
    await env.startOperator();
    await env.apply('analytics', { name: 'analytics' });
    const serviceId = (await env.waitFor('analytics', 'service Ready', isReady)).status!.id!;
    await env.stopOperator();

    // Someone else's pipe with the same name and table, created before sluice records its intent.
    const spec = kafkaPipe('phoenix');
    const foreign = await env.cloud.createPipe(serviceId, lookAlikeBody(spec));
    const pipesNamed = () =>
      [...env.emulator.store.pipesOf(serviceId).values()].filter((p) => p.name === 'phoenix');

    // The emulator creates the pipe but holds its answer back, so the operator dies knowing no id.
    await env.fault({ method: 'POST', route: PIPES, phase: 'response', latencyMs: 60_000 });
    child = env.spawnOperator();
    await env.of('Pipe').apply('phoenix', spec);
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && pipesNamed().length < 2) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    expect(pipesNamed()).toHaveLength(2);
    const orphaned = (await env.of<SluiceObject>('Pipe').get('phoenix'))!;
    expect(orphaned.status?.id).toBeUndefined();
    expect(orphaned.metadata.annotations?.['sluice.dev/create-pending']).toBeDefined();

    await env.fault();
    await env.clearCalls();
    await env.startOperator();
    const ready = await env
      .of<SluiceObject>('Pipe')
      .waitFor('phoenix', 'Ready after restart', (p) => isReady(p) && p?.status?.id !== undefined);

    const ours = pipesNamed().find((p) => p.id !== foreign.id)!;
    expect(ready.status!.id).toBe(ours.id);
    expect(pipesNamed()).toHaveLength(2);
    const posts = (await env.calls()).filter((c) => c.method === 'POST' && c.route === PIPES);
    expect(posts).toHaveLength(0);
  });
});
