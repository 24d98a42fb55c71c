import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/testCluster.ts';
import { kafkaPipe, lookAlikeBody, PIPES } from '../../../../tools/fixtures/pipe.ts';
import { crashDuringCreate, isReady, startOperatorEnv, type OperatorEnv } from '../support.ts';

describe.skipIf(clusterSkipReason())('crash-safe pipe create (no tags: the create intent)', () => {
  let env: OperatorEnv;

  beforeAll(async () => {
    env = await startOperatorEnv('pipe-crash');
    await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass' });
  });
  afterAll(async () => env?.close());

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

    const { orphaned, ready } = await crashDuringCreate(
      env,
      { kind: 'Pipe', name: 'phoenix', spec },
      { route: PIPES, created: () => pipesNamed().length, count: 2 },
    );
    expect(orphaned.status?.id).toBeUndefined();
    expect(orphaned.metadata.annotations?.['sluice.dev/create-pending']).toBeDefined();

    const ours = pipesNamed().find((p) => p.id !== foreign.id)!;
    expect(ready.status!.id).toBe(ours.id);
    expect(pipesNamed()).toHaveLength(2);
    const posts = (await env.calls()).filter((c) => c.method === 'POST' && c.route === PIPES);
    expect(posts).toHaveLength(0);
  });
});
