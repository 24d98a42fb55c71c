import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { ALERTS, tileAlert } from '../../../../tools/fixtures/alert.ts';
import { isReady, startOperatorEnv, type OperatorEnv, type SluiceObject } from '../support.ts';
import { busiestWindow } from './noisy-editor.ts';

describe.skipIf(clusterSkipReason())('Alerts under --alerting-quota', () => {
  let env: OperatorEnv;

  beforeAll(async () => {
    // The emulator enforces 5 alerting requests per second per token; the operator is told the same.
    env = await startOperatorEnv('alert-quota', {
      rateLimit: { requests: 1000, windowSeconds: 1 },
      alertsRateLimit: { requests: 5, windowSeconds: 1 },
    });
    await env.startOperator({ alertingQuota: '5/1s' });
  });
  afterAll(async () => env?.close());

  it('creates 20 alerts applied at once with at most 5 alerting calls in any second and no 429', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `burst-${i}`);
    await Promise.all(names.map((name) => env.of('Alert').apply(name, tileAlert(name))));
    for (const name of names) {
      await env
        .of<SluiceObject>('Alert')
        .waitFor(name, 'Ready', (a) => isReady(a) && a?.status?.id !== undefined, 60_000);
    }

    const calls = (await env.calls()).filter((c) => c.route.startsWith('/api/'));
    expect(calls.filter((c) => c.method === 'POST' && c.route === ALERTS)).toHaveLength(names.length);
    expect(calls.filter((c) => c.status === 429)).toEqual([]);
    expect(busiestWindow(calls, 1000)).toBeLessThanOrEqual(5);
  }, 90_000);
});
