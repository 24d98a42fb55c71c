import { describe, expect, it } from 'vitest';
import { Pacing } from '../../../src/managed/pacing.ts';
import type { ManagedObject } from '../../../src/managed/types.ts';

const object = (namespace: string, credentials?: string): ManagedObject => ({
  apiVersion: 'sluice.dev/v1alpha1',
  kind: 'DatabaseService',
  metadata: { name: 'db', namespace, uid: `uid-${namespace}` },
  spec: credentials ? { credentialsRef: { name: credentials } } : {},
});

describe("the first look of a wait for the cloud follows the wait's own credentials", () => {
  it("one tenant's slow cloud does not move another tenant's first look", () => {
    let now = 0;
    const pacing = new Pacing({
      syncIntervalMs: 600_000,
      pollIntervalMs: 2_000,
      now: () => new Date(now),
    });
    const slow = object('tenant-a', 'slow-cloud');
    // The slow cloud takes 20 s to settle, wait after wait: a look at 2 s finds it still moving.
    for (let wait = 0; wait < 5; wait++) {
      pacing.waitForCloud(slow);
      now += 2_000;
      pacing.waitForCloud(slow);
      now += 18_000;
      pacing.endCloudWait('tenant-a/db', true);
      now += 1_000;
    }
    expect(pacing.waitForCloud(slow)).toBeGreaterThan(10_000);

    // Another tenant, on the operator's credentials or its own, starts from the poll interval.
    expect(pacing.waitForCloud(object('tenant-b'))).toBe(2_000);
    expect(pacing.waitForCloud(object('tenant-c', 'fast-cloud'))).toBe(2_000);
  });
});

describe('the drift-check interval', () => {
  it('is no shorter than the floor the drift planner paces the namespace to', () => {
    const pacing = new Pacing({
      syncIntervalMs: 600_000,
      driftFloorMs: (resource) => (resource.metadata.namespace === 'noisy' ? 12_120 : 0),
      pollIntervalMs: 2_000,
      now: () => new Date(0),
    });
    const asked = (resource: ManagedObject) => {
      resource.metadata.annotations = { 'sluice.dev/sync-interval': '100ms' };
      return resource;
    };
    expect(pacing.syncInterval(asked(object('noisy'))).ms).toBe(12_120);
    expect(pacing.syncInterval(asked(object('quiet'))).ms).toBe(100);
    // A longer interval of its own stays its own.
    expect(pacing.syncInterval(object('noisy')).ms).toBe(600_000);
  });
});

describe('a reconcile its user asked for', () => {
  const ready = (requested: string, handled?: string): ManagedObject => ({
    ...object('ns'),
    metadata: { ...object('ns').metadata, annotations: { 'sluice.dev/reconcile-requested-at': requested } },
    status: {
      ...(handled === undefined ? {} : { lastHandledReconcileAt: handled }),
      conditions: [{ type: 'Ready', status: 'True', reason: 'Available', lastTransitionTime: '' }],
    },
  });

  it('reads the cloud afresh once, also when status cannot record the request handled', () => {
    const pacing = new Pacing({
      syncIntervalMs: 600_000,
      pollIntervalMs: 2_000,
      now: () => new Date(0),
    });
    // Status refused: the request never shows handled, yet only its first reconcile reads afresh.
    expect(pacing.freshness(ready('r1')).ms).toBe(0);
    expect(pacing.freshness(ready('r1')).ms).toBe(600_000);
    expect(pacing.freshness(ready('r1')).ms).toBe(600_000);
    // A new request is read afresh again; once status records it, a still newer one is too.
    expect(pacing.freshness(ready('r2')).ms).toBe(0);
    expect(pacing.freshness(ready('r2', 'r2')).ms).toBe(600_000);
    expect(pacing.freshness(ready('r3', 'r2')).ms).toBe(0);
  });
});
