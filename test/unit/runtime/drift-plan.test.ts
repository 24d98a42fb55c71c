import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { planDriftCycle, type DriftBudget, type PlannedObject } from '../../../src/runtime/drift-plan.ts';
import { DriftPlanner } from '../../../src/runtime/drift-planner.ts';
import type { EventSubject } from '../../../src/managed/kube-writer.ts';
import type { DriftRead, ManagedKind, ManagedObject } from '../../../src/managed/index.ts';
import { OperatorMetrics } from '../../../src/runtime/metrics.ts';

/** The real limits as the scheduler spends them: 10 per 10 s + 100 ms, 100 per 60 s + 100 ms. */
const MANAGEMENT: DriftBudget = { requests: 10, windowMs: 10_000, safetyMarginMs: 100 };
const ALERTING: DriftBudget = { requests: 100, windowMs: 60_000, safetyMarginMs: 100 };
const budgets = { management: MANAGEMENT, alerting: ALERTING };

const services = (n: number): PlannedObject[] =>
  Array.from({ length: n }, () => ({
    reads: [{ api: 'management', list: 'services' }],
    syncIntervalMs: 600_000,
  }));
const pipesOf = (service: string, n: number): PlannedObject[] =>
  Array.from({ length: n }, () => ({
    reads: [{ api: 'management', list: `pipes of ${service}` }],
    syncIntervalMs: 600_000,
  }));

describe('planning a drift cycle against the quota', () => {
  it('counts each shared list once per cycle and each object read by GET once', () => {
    const plan = planDriftCycle(
      [
        ...services(300),
        ...pipesOf('s1', 5),
        ...pipesOf('s2', 1),
        { reads: [{ api: 'management', list: 'reversePrivateEndpoints of s1' }], syncIntervalMs: 600_000 },
        { reads: [{ api: 'management' }], syncIntervalMs: 600_000 },
        { reads: [{ api: 'management' }], syncIntervalMs: 600_000 },
        { reads: [{ api: 'alerting', list: 'alerts' }], syncIntervalMs: 600_000 },
        { reads: [{ api: 'alerting', list: 'alerts' }], syncIntervalMs: 600_000 },
      ],
      budgets,
      600_000,
    );
    // 1 services list + 2 pipes lists + 1 endpoints list + 2 query endpoint GETs; 1 alerts list.
    expect(plan.calls).toEqual({ management: 6, alerting: 1 });
    expect(plan.objects).toBe(311);
    // 6 calls at 10 per 10.1 s: 6.06 s.
    expect(plan.cycleMs).toBe(6_060);
    expect(plan.met).toBe(true);
  });

  it('finds the shortest interval the quota allows, and that a shorter sync interval cannot be met', () => {
    // 3,000 pipes on 300 services: 1 + 300 lists, at 10 per 10.1 s = 304.01 s.
    const objects = Array.from({ length: 300 }, (_, i) => pipesOf(`s${i}`, 10)).flat();
    objects.push(...services(300));
    const every = (ms: number) => objects.map((o) => ({ ...o, syncIntervalMs: ms }));
    const fiveMinutes = planDriftCycle(every(300_000), budgets, 600_000);
    expect(fiveMinutes.calls.management).toBe(301);
    expect(fiveMinutes.cycleMs).toBe(304_010);
    expect(fiveMinutes.met).toBe(false);
    expect(planDriftCycle(every(305_000), budgets, 600_000).met).toBe(true);
  });

  it('plans the APIs it is given budgets for, by whatever names the operator gives them', () => {
    const plan = planDriftCycle(
      [
        { reads: [{ api: 'orders', list: 'orders' }], syncIntervalMs: 60_000 },
        { reads: [{ api: 'orders', list: 'orders' }], syncIntervalMs: 60_000 },
        { reads: [{ api: 'orders' }], syncIntervalMs: 60_000 },
      ],
      { orders: MANAGEMENT, audit: false },
      60_000,
    );
    expect(plan.calls).toEqual({ orders: 2, audit: 0 });
    expect(plan.share).toEqual({ orders: 0, audit: 0 });
    expect(plan.cycleMs).toBe(2_020);
  });

  it('takes the shortest sync interval in use on the key, else the flag’s', () => {
    const objects = [
      ...services(2),
      { reads: [{ api: 'management', list: 'services' } as DriftRead], syncIntervalMs: 30_000 },
    ];
    expect(planDriftCycle(objects, budgets, 600_000).intervalMs).toBe(30_000);
    expect(planDriftCycle([], budgets, 600_000)).toMatchObject({
      intervalMs: 600_000,
      cycleMs: 0,
      met: true,
    });
  });

  it('plans each API against its own budget and takes the longer, and none for an unthrottled API', () => {
    const alerts = Array.from({ length: 150 }, () => ({
      reads: [{ api: 'alerting' as const }],
      syncIntervalMs: 60_000,
    }));
    // 150 GETs at 100 per 60.1 s = 90.15 s.
    expect(planDriftCycle(alerts, budgets, 60_000)).toMatchObject({ cycleMs: 90_150, met: false });
    expect(planDriftCycle(alerts, { ...budgets, alerting: false }, 60_000)).toMatchObject({
      cycleMs: 0,
      met: true,
    });
  });
});

/** A fake kind whose objects read the services list, and objects using Secret `ns/cloud`. */
const kind = {
  kind: 'DatabaseService',
  driftReads: () => [{ api: 'management', list: 'services' }],
} as unknown as ManagedKind<ManagedObject, unknown, unknown>;
const object = (name: string, namespace = 'ns'): ManagedObject => ({
  apiVersion: 'sluice.dev/v1alpha1',
  kind: 'DatabaseService',
  metadata: { name, namespace, uid: `uid-${name}` },
  spec: {},
});

function plannerUnderTest(objects: ManagedObject[], budget: DriftBudget) {
  const events: { subject: EventSubject; type: string; reason: string; message: string }[] = [];
  const logs: Record<string, unknown>[] = [];
  const metrics = new OperatorMetrics();
  const logger = pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line)) });
  const planner = new DriftPlanner({
    objects: () => objects.map((o) => ({ kind, object: o })),
    credentialsOf: (o) => ({ namespace: o.metadata.namespace, name: 'cloud' }),
    secretUid: (ref) => `uid-secret-${ref.namespace}`,
    budgets: { management: budget, alerting: ALERTING },
    syncIntervalMs: 1_000,
    events: { record: (subject, type, reason, message) => events.push({ subject, type, reason, message }) },
    metrics: metrics.drift,
    logger,
  });
  return { planner, events, logs, metrics };
}

describe('reporting a sync interval the quota cannot meet', () => {
  // 1 call per 2 s + 20 ms: a one-list cycle needs 2.02 s, more than the 1 s interval.
  const slow: DriftBudget = { requests: 1, windowMs: 2_000, safetyMarginMs: 20 };

  it('says so once per key, on the Secret and in one log line, however often it plans', () => {
    const objects = [object('a'), object('b'), object('c')];
    const { planner, events, logs } = plannerUnderTest(objects, slow);
    for (let i = 0; i < 5; i++) planner.plan();

    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event!.subject).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: 'ns', name: 'cloud', uid: 'uid-secret-ns' },
    });
    expect(event).toMatchObject({ type: 'Warning', reason: 'SyncIntervalNotMet' });
    expect(event!.message).toBe(
      'drift checks of the 3 objects using Secret ns/cloud cost 1 cloud calls per cycle (management 1, alerting 0); ' +
        'the request quota allows one cycle every 2s20ms at the shortest, so the sync interval 1s cannot be met',
    );
    const warnings = logs.filter((line) => line.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      credentials: 'ns/cloud',
      objects: 3,
      callsPerCycle: 1,
      syncInterval: '1s',
      shortestInterval: '2s20ms',
    });
  });

  it('says once when it recovers, and again only when it breaks again', () => {
    const objects = [object('a')];
    const { planner, events } = plannerUnderTest(objects, slow);
    planner.plan();
    objects.splice(0); // the key's objects are gone: nothing to report, and the next shortfall is news
    planner.plan();
    objects.push(object('b'));
    planner.plan();
    planner.plan();
    expect(events.map((e) => e.reason)).toEqual(['SyncIntervalNotMet', 'SyncIntervalNotMet']);
  });

  it('reports the recovery of a key whose objects got a longer sync interval', () => {
    const objects = [object('a')];
    const { planner, events } = plannerUnderTest(objects, slow);
    planner.plan();
    objects[0]!.metadata.annotations = { 'sluice.dev/sync-interval': '5s' };
    planner.plan();
    planner.plan();
    expect(events.map((e) => [e.type, e.reason])).toEqual([
      ['Warning', 'SyncIntervalNotMet'],
      ['Normal', 'SyncIntervalMet'],
    ]);
  });

  it('keeps keys apart: each Secret is planned and reported by its own objects', () => {
    const objects = [object('a', 'team-a'), object('b', 'team-b')];
    const roomy: DriftBudget = { requests: 10, windowMs: 1_000, safetyMarginMs: 10 };
    const { planner, events } = plannerUnderTest(objects, roomy);
    expect([...planner.plan().keys()].sort()).toEqual(['team-a/cloud', 'team-b/cloud']);
    expect(events).toEqual([]);
  });

  it('exposes per key the calls per cycle, the planned cycle and its interval, and drops a key that went', async () => {
    const objects = [object('a'), object('b')];
    const { planner, metrics } = plannerUnderTest(objects, slow);
    planner.plan();
    const text = await metrics.registry.metrics();
    expect(text).toContain('sluice_drift_cycle_calls{credentials="ns/cloud",api="management"} 1');
    expect(text).toContain('sluice_drift_cycle_calls{credentials="ns/cloud",api="alerting"} 0');
    expect(text).toContain('sluice_drift_cycle_objects{credentials="ns/cloud"} 2');
    expect(text).toContain('sluice_drift_cycle_seconds{credentials="ns/cloud"} 2.02');
    expect(text).toContain('sluice_drift_interval_seconds{credentials="ns/cloud"} 1');
    objects.splice(0);
    planner.plan();
    expect(await metrics.registry.metrics()).not.toContain('credentials="ns/cloud"');
  });

  it('drops a released Secret’s series at once, without waiting for the next plan', async () => {
    const objects = [object('a')];
    const { planner, metrics } = plannerUnderTest(objects, slow);
    planner.plan();
    expect(await metrics.registry.metrics()).toContain('credentials="ns/cloud"');
    objects.splice(0);
    planner.forget('ns/cloud');
    expect(await metrics.registry.metrics()).not.toContain('credentials="ns/cloud"');
    expect(planner.floorOf(object('a'))).toBe(0);
  });
});
