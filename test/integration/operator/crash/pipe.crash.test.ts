import { beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { kafkaPipe, lookAlikeBody, PIPES } from '../../../../tools/fixtures/pipe.ts';
import { crashBesideLookAlike, isReady, useOperatorEnv } from '../support.ts';

describe.skipIf(clusterSkipReason())('crash-safe pipe create (no tags: the create intent)', () => {
  const env = useOperatorEnv('pipe-crash', { operator: false });

  beforeAll(async () => {
    await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass' });
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

    const { orphaned } = await crashBesideLookAlike(
      env,
      { kind: 'Pipe', name: 'phoenix', spec },
      { route: PIPES, named: pipesNamed, foreignId: foreign.id },
    );
    expect(orphaned.status?.id).toBeUndefined();
    expect(orphaned.metadata.annotations?.['sluice.dev/create-pending']).toBeDefined();
  });
});
