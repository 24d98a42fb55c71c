/**
 * spec.scalingSchedule on the real apiserver, with the emulator applying the schedule on its clock (the test
 * moves the clock across a window's edges) and recording every call: the schedule is sent, sluice never sends
 * a PATCH that undoes it, status says which window applies, a real drift inside a window is still corrected;
 * an organization without the feature gets Synced=False with the API's message while the rest converges.
 * The edges are crossed with the quota lifted, at the real limits on compressed time, and at the real limits
 * in real time.
 */
import { describe, expect, it } from 'vitest';
import type { DatabaseService } from '../../../../src/kinds/database-service/schema.ts';
import { hourOfWeek } from '../../../../src/cloud/schemas/index.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import {
  condition,
  isReady,
  useOperatorEnv,
  writes,
  type CallRecord,
  type OperatorEnv,
  QUOTA_MODES,
  REAL_QUOTA_MODE,
} from '../support.ts';

const SERVICE = '/v1/organizations/:organizationId/services/:serviceId';
const TIMEOUT = 120_000;
const HOUR = 3_600_000;
const FAST = { 'sluice.dev/sync-interval': '1s' };

const resizes = (calls: CallRecord[]) =>
  writes(calls).filter((c) => c.route === `${SERVICE}/replicaScaling` && c.status === 200);
const schedulePosts = (calls: CallRecord[]) =>
  writes(calls).filter((c) => c.route === `${SERVICE}/scalingSchedule`);

async function control(env: OperatorEnv, path: string, body?: unknown) {
  const response = await fetch(`${env.emulator.url}/_emulator/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { now: string };
}

/** A window over the hour after the emulator's current one, and clock offsets inside it and after it. */
async function nextHourWindow(env: OperatorEnv) {
  const now = Date.parse((await control(env, 'clock')).now);
  const next = hourOfWeek(now + HOUR);
  const startOfNext = Math.floor(now / HOUR) * HOUR + HOUR;
  const offset = (at: number) => at - Date.now();
  return {
    window: {
      name: 'peak',
      weekdays: [Math.floor(next / 24)],
      startHourUtc: next % 24,
      endHourUtc: (next % 24) + 1,
      minReplicas: 5,
      maxReplicas: 5,
    },
    inside: () => offset(startOfNext + 60_000),
    after: () => offset(startOfNext + HOUR + 60_000),
  };
}

/**
 * A service whose schedule has one window: the cloud enters it and leaves it on its clock (two edges), with
 * no write of the operator's in between; then a resize by hand inside the window is put back to the window's
 * sizing with one PATCH.
 */
async function followsTheSchedule(env: OperatorEnv): Promise<void> {
  const { window, inside, after } = await nextHourWindow(env);
  const spec = { name: 'scheduled', numReplicas: 3, scalingSchedule: [window] };
  await env.apply('scheduled', spec as Partial<DatabaseService['spec']>, FAST);
  const id = (await env.waitFor('scheduled', 'Ready', isReady, 30_000)).status!.id!;
  expect(schedulePosts(await env.calls()).map((c) => c.body)).toEqual([{ entries: [window] }]);
  await env.clearCalls();

  // Edge one: the window starts on the cloud's clock; the cloud runs 5 replicas, status names the window.
  await env.setClock({ offsetMs: inside() });
  const during = await env.waitFor(
    'scheduled',
    'the window in status',
    (r) => r?.status?.activeScalingWindow === 'peak',
    30_000,
  );
  expect(isReady(during)).toBe(true);
  expect((await env.cloud.getService(id)).numReplicas).toBe(5);

  // Edge two: the window ends; the spec's 3 replicas again, and no window in status.
  await env.setClock({ offsetMs: after() });
  await env.waitFor(
    'scheduled',
    'no window in status',
    (r) => r?.status !== undefined && r.status.activeScalingWindow === undefined,
    30_000,
  );
  expect((await env.cloud.getService(id)).numReplicas).toBe(3);
  await env.lookedAgain('DatabaseService');
  // Across both edges the operator wrote nothing at all: no PATCH of the sizing, nor of anything else. (The
  // test's own reads share the key's budget: under the real quota one may be answered 429 and retried.)
  expect(writes(await env.calls())).toEqual([]);

  // Inside the window again, someone sets 7 replicas by hand: one PATCH back to the window's 5.
  await env.setClock({ offsetMs: inside() });
  await env.waitFor(
    'scheduled',
    'the window again',
    (r) => r?.status?.activeScalingWindow === 'peak',
    30_000,
  );
  await env.clearCalls();
  await env.cloud.updateReplicaScaling(id, { numReplicas: 7 });
  await expect
    .poll(async () => (await env.cloud.getService(id)).numReplicas, { timeout: 30_000, interval: 250 })
    .toBe(5);
  expect(resizes(await env.calls()).map((c) => c.body)).toEqual([{ numReplicas: 7 }, { numReplicas: 5 }]);
  await env.setClock({ offsetMs: 0 });
}

describe.skipIf(clusterSkipReason()).each(QUOTA_MODES)(
  'DatabaseService spec.scalingSchedule ($mode)',
  ({ lifted, emulator, operator }) => {
    const env = useOperatorEnv(`dbs-ss${lifted ? '' : 'q'}`, { emulator, operator });

    it(
      'follows the schedule across two window edges with no corrective PATCH, and corrects a real drift inside a window',
      () => followsTheSchedule(env),
      TIMEOUT,
    );

    it(
      'sets spec.upgradeWindow by PUT and puts back a window changed in the console',
      async () => {
        const upgradeWindow = { weekday: 3, startHourUtc: 12 };
        await env.apply(
          'upgraded',
          { name: 'upgraded', upgradeWindow } as Partial<DatabaseService['spec']>,
          FAST,
        );
        const id = (await env.waitFor('upgraded', 'Ready', isReady, 30_000)).status!.id!;
        await expect
          .poll(async () => env.cloud.getUpgradeWindow(id).catch(() => undefined), { timeout: 30_000 })
          .toEqual({ ...upgradeWindow, duration: 6 });
        await env.cloud.setUpgradeWindow(id, { weekday: 0, startHourUtc: 0 });
        await expect
          .poll(async () => (await env.cloud.getUpgradeWindow(id)).weekday, {
            timeout: 30_000,
            interval: 250,
          })
          .toBe(3);
      },
      TIMEOUT,
    );

    it(
      'without the feature: Synced=False with the API’s message, no hot retry, and the rest of the spec converges',
      async () => {
        await control(env, 'organization/features', { scheduledScaling: false });
        try {
          const spec = {
            name: 'unscheduled',
            scalingSchedule: [{ name: 'night', weekdays: [0], startHourUtc: 22, endHourUtc: 6 }],
          };
          await env.apply('unscheduled', spec as Partial<DatabaseService['spec']>, FAST);
          const refused = await env.waitFor(
            'unscheduled',
            'Synced=False',
            (r) => condition(r, 'Synced')?.status === 'False' && r?.status?.id !== undefined,
            30_000,
          );
          expect(condition(refused, 'Synced')?.message).toMatch(/canUseScheduledAutoscaling/);
          const id = refused.status!.id!;

          // A rename still reaches the cloud.
          await env.patchSpec('unscheduled', { name: 'renamed' });
          await expect
            .poll(async () => (await env.cloud.getService(id)).name, { timeout: 30_000, interval: 250 })
            .toBe('renamed');

          // The refusal is not retried hot: no schedule is ever sent that the cloud would refuse again.
          await env.lookedAgain('DatabaseService');
          expect(schedulePosts(await env.calls())).toEqual([]);
        } finally {
          await control(env, 'organization/features', { scheduledScaling: true });
        }
      },
      TIMEOUT,
    );
  },
);

// At the cloud's real limits and the operator's default quota, in real time: the drift checks of a one-second
// sync interval queue behind the key's 10 requests per 10 s, and the edges still pass without a write.
describe.skipIf(clusterSkipReason())(`DatabaseService spec.scalingSchedule (${REAL_QUOTA_MODE.mode})`, () => {
  const { emulator, operator } = REAL_QUOTA_MODE;
  const env = useOperatorEnv('dbs-ssr', { emulator, operator });

  it(
    'follows the schedule across two window edges with no corrective PATCH, and corrects a real drift inside a window',
    () => followsTheSchedule(env),
    2 * TIMEOUT,
  );
});
