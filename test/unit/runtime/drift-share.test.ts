import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { budgetRate, type DriftBudget, type PlannedObject } from '../../../src/runtime/drift-plan.ts';
import { DriftPlanner } from '../../../src/runtime/drift-planner.ts';
import { driftRate, shareBudget, type Sharer } from '../../../src/runtime/drift-share.ts';
import type { ManagedKind, ManagedObject } from '../../../src/managed/index.ts';
import { OperatorMetrics } from '../../../src/runtime/metrics.ts';

/** The real management limit as the scheduler spends it: 10 per 10 s + 100 ms. */
const MANAGEMENT: DriftBudget = { requests: 10, windowMs: 10_000, safetyMarginMs: 100 };
const ALERTING: DriftBudget = { requests: 100, windowMs: 60_000, safetyMarginMs: 100 };
const capacity = budgetRate(MANAGEMENT);

/** Objects read by a GET of their own (query endpoints), checked every `everyMs`. */
const endpoints = (n: number, everyMs: number): PlannedObject[] =>
  Array.from({ length: n }, () => ({ reads: [{ api: 'management' }], syncIntervalMs: everyMs }));
const sharer = (namespace: string, objects: PlannedObject[]): Sharer => ({
  namespace,
  secrets: new Map([[`${namespace}/cloud`, objects]]),
});

describe('sharing a key’s budget between namespaces', () => {
  it('counts a GET per object and a list once per Secret, at the shortest interval of its readers', () => {
    const objects: PlannedObject[] = [
      ...endpoints(2, 1_000),
      { reads: [{ api: 'management', list: 'services' }], syncIntervalMs: 500 },
      { reads: [{ api: 'management', list: 'services' }], syncIntervalMs: 2_000 },
      { reads: [{ api: 'alerting', list: 'alerts' }], syncIntervalMs: 100 },
    ];
    expect(driftRate(objects, 'management', 0)).toBeCloseTo(2 / 1_000 + 1 / 500);
    // A floor slows every object that asks for more often.
    expect(driftRate(objects, 'management', 4_000)).toBeCloseTo(3 / 4_000);
    expect(driftRate(objects, 'alerting', 0)).toBeCloseTo(1 / 100);
  });

  it('gives two namespaces that both ask for more than the budget half each, and together no more than it', () => {
    const shares = shareBudget(
      [sharer('noisy', endpoints(6, 100)), sharer('quiet', endpoints(2, 100))],
      'management',
      MANAGEMENT,
    );
    const noisy = shares.get('noisy')!;
    const quiet = shares.get('quiet')!;
    expect(noisy.rate + quiet.rate).toBeLessThanOrEqual(capacity);
    expect(noisy.rate).toBeCloseTo(capacity / 2, 6);
    expect(quiet.rate).toBeCloseTo(capacity / 2, 6);
    // 6 GETs at half of 10 calls per 10.1 s: one check every 12.12 s; 2 GETs: every 4.04 s.
    expect(noisy.floorMs).toBe(12_120);
    expect(quiet.floorMs).toBe(4_040);
  });

  it('leaves a namespace that asks for less than its share what it asks, and the rest to the other', () => {
    const shares = shareBudget(
      [sharer('noisy', endpoints(6, 100)), sharer('quiet', endpoints(1, 10_000))],
      'management',
      MANAGEMENT,
    );
    expect(shares.get('quiet')).toMatchObject({ floorMs: 0, rate: 1 / 10_000 });
    const noisy = shares.get('noisy')!;
    expect(noisy.rate + 1 / 10_000).toBeLessThanOrEqual(capacity);
    expect(noisy.rate).toBeGreaterThan(0.99 * (capacity - 1 / 10_000));
  });

  it('paces no namespace whose key has room for every check at its own interval', () => {
    const shares = shareBudget(
      [sharer('a', endpoints(3, 60_000)), sharer('b', endpoints(3, 60_000))],
      'management',
      MANAGEMENT,
    );
    expect([...shares.values()].map((share) => share.floorMs)).toEqual([0, 0]);
  });
});

/** Query endpoints: one GET each; every namespace's Secret `cloud` holds one key unless `keys` says not. */
const kind = {
  kind: 'QueryEndpoint',
  driftReads: () => [{ api: 'management' }],
} as unknown as ManagedKind<ManagedObject, unknown, unknown>;
const endpoint = (name: string, namespace: string): ManagedObject => ({
  apiVersion: 'sluice.dev/v1alpha1',
  kind: 'QueryEndpoint',
  metadata: {
    name,
    namespace,
    uid: `uid-${namespace}-${name}`,
    annotations: { 'sluice.dev/sync-interval': '100ms' },
  },
  spec: {},
});

function plannerUnderTest(objects: ManagedObject[], keys: Record<string, string>) {
  const metrics = new OperatorMetrics();
  const planner = new DriftPlanner({
    objects: () => objects.map((o) => ({ kind, object: o })),
    credentialsOf: (o) => ({ namespace: o.metadata.namespace, name: 'cloud' }),
    budgetKeyOf: (ref) => keys[ref.namespace],
    secretUid: (ref) => `uid-secret-${ref.namespace}`,
    budgets: { management: MANAGEMENT, alerting: ALERTING },
    syncIntervalMs: 600_000,
    events: { record: () => {} },
    metrics: metrics.drift,
    logger: pino({ level: 'silent' }),
  });
  return { planner, metrics };
}

describe('planning per key', () => {
  const objects = [
    ...Array.from({ length: 6 }, (_, i) => endpoint(`e${i}`, 'noisy')),
    ...Array.from({ length: 2 }, (_, i) => endpoint(`e${i}`, 'quiet')),
  ];

  it('plans two Secrets holding one key against that key: together they never plan more than its budget', async () => {
    const { planner, metrics } = plannerUnderTest(objects, { noisy: 'key-1', quiet: 'key-1' });
    const plans = planner.plan();
    const noisy = plans.get('noisy/cloud')!;
    const quiet = plans.get('quiet/cloud')!;
    expect(noisy.share.management! + quiet.share.management!).toBeLessThanOrEqual(1 + 1e-9);
    expect(noisy.share.management).toBeCloseTo(0.5, 6);
    expect(quiet.share.management).toBeCloseTo(0.5, 6);
    // The 100 ms objects are paced to their namespace's share.
    expect(planner.floorOf(objects[0]!)).toBe(12_120);
    expect(planner.floorOf(objects[6]!)).toBe(4_040);
    expect(noisy).toMatchObject({ intervalMs: 100, pacedIntervalMs: 12_120, cycleMs: 12_120, met: false });
    const text = await metrics.registry.metrics();
    expect(text).toContain('sluice_drift_paced_interval_seconds{credentials="noisy/cloud"} 12.12');
    expect(text).toContain('sluice_drift_budget_share{credentials="quiet/cloud",api="management"} 0.5');
    expect(text).toContain('sluice_drift_cycle_seconds{credentials="quiet/cloud"} 4.04');
  });

  it('keeps Secrets holding different keys apart: each may have all of its own key', () => {
    const { planner } = plannerUnderTest(objects, { noisy: 'key-1', quiet: 'key-2' });
    const plans = planner.plan();
    expect(plans.get('noisy/cloud')).toMatchObject({ pacedIntervalMs: 6_060, cycleMs: 6_060 });
    expect(plans.get('quiet/cloud')).toMatchObject({ pacedIntervalMs: 2_020, cycleMs: 2_020 });
    expect(plans.get('quiet/cloud')!.share.management).toBeCloseTo(1, 6);
  });
});
