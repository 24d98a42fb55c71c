// Under the real quota (10 requests / 10 s per key, the cloud's and the operator's): one namespace keeps
// editing its objects' specs, asking more user calls of the key than it serves, and another namespace holding
// the same key creates one DatabaseService. Its look-ups and readiness looks are background calls (`poll`),
// which the edits' user calls go before; the scheduler's floor still gives background calls one slot in every
// N while they wait, so the service becomes Ready within a few windows of the key, not never.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REAL_TIMINGS } from '../../../../src/base/timings.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { until } from '../../../support/wait.ts';
import { isReady, putSameKey, REAL_QUOTA_MODE, startOperatorEnv, type OperatorEnv } from '../support.ts';
import {
  at,
  busiestWindow,
  CALLS_PER_WINDOW,
  CallOwners,
  endpointsReady,
  HOLD_MS,
  keepEditing,
  setupCallsOutOfWindow,
  timeline,
  WINDOW_MS,
} from './noisy-editor.ts';

const NOISY_OBJECTS = 8;
/**
 * The service needs three calls of the key: the look-up of what the cloud holds for it (a list, `poll`), the
 * create (`user`, in its namespace's turn beside the edits) and a list that shows it running (`poll`). Each
 * waits at most one window's N grants behind the edits (the floor: at most N − 1 user calls go before a
 * waiting poll), and one window more covers what is not quota: the poll interval before the first look, the
 * service's start and the reconciles themselves. The other namespace's endpoints poll too, between their edits:
 * a look deferred and replaced by the next edit holds no claim on the floor's slot (measured: Ready 20.2–20.4 s
 * after the apply; with those claims kept a window each, 10–30 s, and over 40 s once in CI).
 */
const BOUND_WINDOWS = 4;

describe.skipIf(clusterSkipReason())("a new service's readiness beside another namespace's edits", () => {
  let quiet: OperatorEnv;
  let noisy: OperatorEnv;
  const owners = new CallOwners();

  beforeAll(async () => {
    quiet = await startOperatorEnv('floor-quiet', {
      ...REAL_QUOTA_MODE.emulator,
      transitionMs: REAL_TIMINGS.transitionMs,
    });
    noisy = await startOperatorEnv('floor-noisy', {}, { sharing: quiet });
    // The same key under a Secret of the noisy namespace: one budget.
    await putSameKey(noisy, 'same-key', quiet);
    await owners.endpoints(noisy, NOISY_OBJECTS, 'noisy', { secret: 'same-key' });
    await setupCallsOutOfWindow(quiet);
    await quiet.startOperator({
      ...REAL_QUOTA_MODE.operator,
      namespace: `${quiet.namespace},${noisy.namespace}`,
    });
    await endpointsReady([noisy, NOISY_OBJECTS]);
  }, 240_000);
  afterAll(async () => {
    await noisy?.close();
    await quiet?.close();
  });

  it(`becomes Ready within ${BOUND_WINDOWS} windows of the key while the other namespace's edits ask more than it serves`, async () => {
    const editor = keepEditing(noisy, NOISY_OBJECTS);
    try {
      await quiet.clearCalls();
      // The edits have spent the key for two windows before the service is applied: every slot is taken as
      // soon as it frees, by a user call.
      await until(
        'the edits to spend two windows of the key',
        async () => owners.of(noisy, await quiet.calls()).length >= 2 * CALLS_PER_WINDOW,
        6 * WINDOW_MS,
      );

      const applied = Date.now();
      await quiet.apply('fresh', { name: 'fresh' });
      const ready = await quiet
        .waitFor('fresh', 'Ready', isReady, BOUND_WINDOWS * HOLD_MS)
        .catch(async (error: Error) => {
          const since = (await quiet.calls()).filter((c) => at(c) >= applied);
          throw new Error(
            `${error.message}\nthe cloud's calls since the apply:\n${timeline(since, applied, owners)}`,
          );
        });
      const readyAt = Date.now();
      const edits = await editor.stop();

      const calls = await quiet.calls();
      const meanwhile = calls.filter((c) => at(c) >= applied && at(c) <= readyAt);
      const service = `/services/${ready.status!.id!}`;
      const own = meanwhile.filter((c) => c.route.endsWith('/services') || c.path.includes(service));
      // What the quota promises, counted in the cloud's log rather than by the clock: the key served at most
      // its N calls per window for the bound's windows before the service was Ready, and the edits never
      // stopped asking (more edits than the key could serve).
      expect(own.length).toBeGreaterThanOrEqual(3);
      expect(meanwhile.length).toBeLessThanOrEqual(BOUND_WINDOWS * CALLS_PER_WINDOW);
      expect(edits).toBeGreaterThan(meanwhile.length);
      expect(busiestWindow(calls, WINDOW_MS)).toBeLessThanOrEqual(CALLS_PER_WINDOW);
      expect(calls.filter((c) => c.status === 429)).toEqual([]);
    } finally {
      await editor.stop();
    }
  }, 240_000);
});
