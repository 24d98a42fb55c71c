import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { kafkaPipe, PIPES } from '../../../../tools/fixtures/pipe.ts';
import { isReady, startOperatorEnv, type OperatorEnv, type SluiceObject } from '../support.ts';

describe.skipIf(clusterSkipReason())(
  'Pipes under the cloud’s real limit and the operator’s default quota',
  () => {
    let env: OperatorEnv;

    beforeAll(async () => {
      // The emulator's default rate limit (10 requests / 10 s per key) and the operator's default quota.
      env = await startOperatorEnv('pipe-quota', { rateLimit: undefined });
      await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass' });
      await env.startOperator({ managementQuota: undefined });
    });
    afterAll(async () => env?.close());

    it('creates a service and four pipes applied at once without a single 429 and without a duplicate', async () => {
      const names = ['p1', 'p2', 'p3', 'p4'];
      await Promise.all(names.map((name) => env.of('Pipe').apply(name, kafkaPipe(name))));
      await env.apply('analytics', { name: 'analytics' });
      for (const name of names) {
        await env
          .of<SluiceObject>('Pipe')
          .waitFor(name, 'Ready', (p) => isReady(p) && p?.status?.id !== undefined, 60_000);
      }
      const calls = await env.calls();
      expect(calls.filter((c) => c.status === 429)).toEqual([]);
      expect(calls.filter((c) => c.method === 'POST' && c.route === PIPES)).toHaveLength(names.length);
    }, 90_000);
  },
);
