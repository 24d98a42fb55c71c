import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../../src/kube/health-and-metrics-servers.ts';
import { livenessChecks, readinessChecks } from '../../../src/operator/vital-signs-checks.ts';
import { VitalState } from '../../../src/operator/vital-state.ts';

const STALL_MS = 120_000;

function vitals(leaderElect = false) {
  const state = new VitalState();
  let now = 1_000_000;
  const bounds = { stallTimeoutMs: STALL_MS, leaderElect };
  return {
    state,
    advance: (ms: number) => (now += ms),
    now: () => now,
    liveness: () => livenessChecks(state, bounds, () => now).run(),
    readiness: () => readinessChecks(state, bounds, () => now).run(),
  };
}

const failing = (results: CheckResult[]) => results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.reason}`);

describe('liveness judges progress, not promptness', () => {
  it('passes while the event loop turns and the queues move, however long ago the last answer took', async () => {
    const v = vitals();
    v.state.write('mainTurnedAt', v.now());
    v.advance(STALL_MS);
    expect(failing(await v.liveness())).toEqual([]);
  });

  it('fails once the event loop has not turned for longer than the stall timeout, naming for how long', async () => {
    const v = vitals();
    v.state.write('mainTurnedAt', v.now());
    v.advance(STALL_MS + 1_000);
    expect(failing(await v.liveness())).toEqual(['event-loop: the main event loop has not turned for 121 s']);
  });

  it('fails once a work queue holding work has not moved for longer than the stall timeout', async () => {
    const v = vitals();
    v.state.write('workStalledSince', v.now());
    v.advance(STALL_MS + 5_000);
    v.state.write('mainTurnedAt', v.now());
    expect(failing(await v.liveness())).toEqual([
      'work-queues: a work queue holding work has not moved for 125 s',
    ]);
  });

  it('checks the elector only with leader election, and fails when it made no attempt for the stall timeout', async () => {
    const without = vitals(false);
    without.advance(STALL_MS * 2);
    without.state.write('mainTurnedAt', without.now());
    expect((await without.liveness()).map((r) => r.name)).toEqual(['event-loop', 'work-queues']);

    const v = vitals(true);
    v.state.write('electorTriedAt', v.now());
    v.advance(STALL_MS + 1);
    v.state.write('mainTurnedAt', v.now());
    expect(failing(await v.liveness())).toEqual([
      'leader-election: the leader election has made no attempt for 120 s',
    ]);
  });
});

describe('readiness says whether this replica can serve', () => {
  it('is ready as a standby, and as the leader only once its caches synced', async () => {
    const v = vitals(true);
    expect(failing(await v.readiness())).toEqual([]);
    v.state.write('leadingUntil', v.now() + 10_000);
    expect(failing(await v.readiness())).toEqual(['controllers-synced: not ready']);
    v.state.write('synced', 1);
    expect(failing(await v.readiness())).toEqual([]);
  });

  it('is not ready without leader election until synced, nor once it is shutting down', async () => {
    const v = vitals(false);
    expect(failing(await v.readiness())).toEqual(['controllers-synced: not ready']);
    v.state.write('synced', 1);
    expect(failing(await v.readiness())).toEqual([]);
    v.state.write('stopping', 1);
    expect(failing(await v.readiness())).toEqual(['controllers-synced: shutting down']);
  });
});
