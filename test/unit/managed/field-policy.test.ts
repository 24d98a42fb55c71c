import { describe, expect, it } from 'vitest';
import {
  DATABASE_SERVICE_POLICY,
  type DatabaseServiceSpec,
} from '../../../src/kinds/database-service/schema.ts';
import type { Service } from '../../../src/cloud/schemas/service.ts';
import { diffService, serviceAsSpec } from '../../../src/kinds/database-service/mapping.ts';
import { OWNER_TAG } from '../../../src/kinds/shared/service-tags.ts';
import { driftRecorded } from '../../../src/managed/drift-status.ts';
import { applyFields } from '../../../src/managed/status-draft.ts';
import { applyFieldPolicy, type FieldPolicy } from '../../../src/managed/field-policy.ts';
import type { ManagedStatus } from '../../../src/managed/types.ts';

const uid = '7c1c0f4e-0000-4000-8000-000000000001';
const marker = { key: OWNER_TAG, value: uid };

function object(
  spec: Partial<DatabaseServiceSpec>,
  fieldPolicy?: FieldPolicy,
  extra: { annotations?: Record<string, string>; managedEntries?: Record<string, string[]> } = {},
) {
  return {
    metadata: { ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: {
      name: 'analytics',
      provider: 'aws',
      region: 'us-east-1',
      state: 'Running',
      deletionPolicy: 'Orphan',
      ...spec,
      ...(fieldPolicy ? { fieldPolicy } : {}),
    } as DatabaseServiceSpec,
    ...(extra.managedEntries ? { status: { managedEntries: extra.managedEntries } } : {}),
  };
}

const cloud = (extra: Partial<Service> = {}): Service => ({
  id: 'svc-1',
  name: 'analytics',
  state: 'running',
  ipAccessList: [],
  tags: [marker],
  endpoints: [{ protocol: 'https', host: 'h', port: 8443 }],
  ...extra,
});

const policed = (resource: ReturnType<typeof object>, service: Service) =>
  applyFieldPolicy(resource, DATABASE_SERVICE_POLICY, serviceAsSpec(service), (spec) =>
    diffService(spec, uid, service),
  );

/** `policed` with the upgrade window the cloud holds (null: none). */
const policedWindow = (
  resource: ReturnType<typeof object>,
  upgradeWindow: { weekday: number; startHourUtc: number } | null,
) => {
  const surroundings = { upgradeWindow };
  return applyFieldPolicy(resource, DATABASE_SERVICE_POLICY, serviceAsSpec(cloud(), surroundings), (spec) =>
    diffService(spec, uid, cloud(), surroundings),
  );
};

describe('applyFieldPolicy', () => {
  it('sends a createOnly field of an upgrade window when the window is made, then keeps the cloud’s', () => {
    const window = { weekday: 3, startHourUtc: 12 };
    const resource = object({ upgradeWindow: window }, { createOnly: ['upgradeWindow.startHourUtc'] });
    expect(policedWindow(resource, null).judgement.upgradeWindow).toEqual(window);
    const changed = policedWindow(resource, { weekday: 3, startHourUtc: 18 });
    expect(changed.judgement.upgradeWindow).toBeUndefined();
    expect(changed.drift).toEqual([{ path: 'upgradeWindow.startHourUtc', observed: 18 }]);
    // The weekday is enforced: put back with the cloud's start hour.
    const moved = policedWindow(resource, { weekday: 5, startHourUtc: 18 });
    expect(moved.judgement.upgradeWindow).toEqual({ weekday: 3, startHourUtc: 18 });
    expect(moved.changes).toEqual([{ field: 'upgradeWindow.weekday', from: 5, to: 3 }]);
  });

  it('sends no half upgrade window: a reportOnly field the cloud has no window for leaves nothing to send', () => {
    const resource = object(
      { upgradeWindow: { weekday: 3, startHourUtc: 12 } },
      { reportOnly: ['upgradeWindow.startHourUtc'] },
    );
    const outcome = policedWindow(resource, null);
    expect(outcome.judgement.upgradeWindow).toBeUndefined();
    expect(outcome.drift).toEqual([{ path: 'upgradeWindow.startHourUtc', observed: undefined }]);
  });

  it('enforces a field no policy names: the difference is corrected, nothing is drift', () => {
    const outcome = policed(object({ maxReplicaMemoryGb: 16 }), cloud({ maxReplicaMemoryGb: 32 }));
    expect(outcome.differences).toEqual(['maxReplicaMemoryGb']);
    expect(outcome.judgement.replicaScaling).toEqual({ maxReplicaMemoryGb: 16 });
    expect(outcome.drift).toEqual([]);
  });

  it('leaves a createOnly field to the cloud: no call, and the cloud value shown as drift', () => {
    const outcome = policed(
      object({ maxReplicaMemoryGb: 16 }, { createOnly: ['maxReplicaMemoryGb'] }),
      cloud({ maxReplicaMemoryGb: 32 }),
    );
    expect(outcome.differences).toEqual([]);
    expect(outcome.judgement.replicaScaling).toBeUndefined();
    expect(outcome.drift).toEqual([{ path: 'maxReplicaMemoryGb', observed: 32 }]);
  });

  it('reports a reportOnly field without correcting it, while other fields are still corrected', () => {
    const outcome = policed(
      object({ name: 'wanted', tags: [{ key: 'team', value: 'data' }] }, { reportOnly: ['tags'] }),
      cloud({ tags: [marker, { key: 'team', value: 'ops' }] }),
    );
    expect(outcome.differences).toEqual(['name']);
    expect(outcome.judgement.patch).toEqual({ name: 'wanted' });
    expect(outcome.drift).toEqual([{ path: 'tags', observed: [{ key: 'team', value: 'ops' }] }]);
  });

  it('lists nothing as drift when a policed field matches the cloud', () => {
    const outcome = policed(
      object({ maxReplicaMemoryGb: 16 }, { reportOnly: ['maxReplicaMemoryGb'] }),
      cloud({ maxReplicaMemoryGb: 16 }),
    );
    expect(outcome).toMatchObject({ differences: [], drift: [] });
  });

  it('runs the kind’s diff once while the cloud holds the spec’s values in the fields left alone', () => {
    const service = cloud({ maxReplicaMemoryGb: 16, tags: [marker, { key: 'team', value: 'data' }] });
    const diffs: unknown[] = [];
    const outcome = applyFieldPolicy(
      object(
        { name: 'wanted', maxReplicaMemoryGb: 16, tags: [{ key: 'team', value: 'data' }] },
        { createOnly: ['maxReplicaMemoryGb'], reportOnly: ['tags'] },
      ),
      DATABASE_SERVICE_POLICY,
      serviceAsSpec(service),
      (spec) => {
        diffs.push(spec);
        return diffService(spec, uid, service);
      },
    );
    expect(outcome).toMatchObject({ differences: ['name'], drift: [] });
    expect(diffs).toHaveLength(1);
  });

  it('runs one diff more for each field left alone whose value the cloud holds otherwise', () => {
    const service = cloud({ maxReplicaMemoryGb: 32, tags: [marker, { key: 'team', value: 'data' }] });
    let diffs = 0;
    const outcome = applyFieldPolicy(
      object(
        { maxReplicaMemoryGb: 16, tags: [{ key: 'team', value: 'data' }] },
        { createOnly: ['maxReplicaMemoryGb'], reportOnly: ['tags'] },
      ),
      DATABASE_SERVICE_POLICY,
      serviceAsSpec(service),
      (spec) => {
        diffs++;
        return diffService(spec, uid, service);
      },
    );
    expect(outcome.drift).toEqual([{ path: 'maxReplicaMemoryGb', observed: 32 }]);
    expect(diffs).toBe(2);
  });

  it('lists nothing as drift when the cloud holds a policed list’s entries in another order, as the diff sees it', () => {
    // Drift is what the kind's diff would change, not what compares unequal: its lists are sets of entries.
    const outcome = policed(
      object(
        { ipAccessList: [{ source: '10.0.0.1' }, { source: '10.0.0.2' }] },
        { reportOnly: ['ipAccessList'] },
      ),
      cloud({ ipAccessList: [{ source: '10.0.0.2' }, { source: '10.0.0.1' }] }),
    );
    expect(outcome).toMatchObject({ differences: [], drift: [] });
  });

  it('adds missing entries to an additive list and leaves the entries others added alone', () => {
    const outcome = policed(
      object({ ipAccessList: [{ source: '10.0.0.0/8' }] }, { additive: ['ipAccessList'] }),
      cloud({ ipAccessList: [{ source: '203.0.113.7', description: 'security tool' }] }),
    );
    expect(outcome.judgement.patch).toEqual({ ipAccessList: { add: [{ source: '10.0.0.0/8' }] } });
    expect(outcome.drift).toEqual([]);
    expect(outcome.managedEntries).toEqual({ ipAccessList: ['10.0.0.0/8'] });
  });

  it('changes an entry of its own that differs in an additive list', () => {
    const outcome = policed(
      object(
        { ipAccessList: [{ source: '10.0.0.0/8', description: 'vpc' }] },
        { additive: ['ipAccessList'] },
      ),
      cloud({ ipAccessList: [{ source: '10.0.0.0/8', description: 'edited' }, { source: '203.0.113.7' }] }),
    );
    expect(outcome.judgement.patch).toEqual({
      ipAccessList: {
        add: [{ source: '10.0.0.0/8', description: 'vpc' }],
        remove: [{ source: '10.0.0.0/8', description: 'edited' }],
      },
    });
  });

  it('removes an entry sluice set once the spec drops it, and only that one', () => {
    const outcome = policed(
      object(
        { tags: [{ key: 'team', value: 'data' }] },
        { additive: ['tags'] },
        {
          managedEntries: { tags: ['team', 'old'] },
        },
      ),
      cloud({
        tags: [
          marker,
          { key: 'team', value: 'data' },
          { key: 'old', value: 'x' },
          { key: 'cost', value: 'c1' },
        ],
      }),
    );
    expect(outcome.judgement.patch).toEqual({ tags: { remove: [{ key: 'old', value: 'x' }] } });
    // Remembered until the cloud no longer holds it.
    expect(outcome.managedEntries).toEqual({ tags: ['old', 'team'] });
  });

  it('forgets an entry it removed once the cloud no longer holds it', () => {
    const outcome = policed(
      object(
        { tags: [{ key: 'team', value: 'data' }] },
        { additive: ['tags'] },
        {
          managedEntries: { tags: ['team', 'old'] },
        },
      ),
      cloud({ tags: [marker, { key: 'team', value: 'data' }, { key: 'cost', value: 'c1' }] }),
    );
    expect(outcome.differences).toEqual([]);
    expect(outcome.managedEntries).toEqual({ tags: ['team'] });
  });

  it('makes sluice.dev/drift: report the same as reportOnly for every field', () => {
    const outcome = policed(
      object({ name: 'wanted', maxReplicaMemoryGb: 16 }, undefined, {
        annotations: { 'sluice.dev/drift': 'report' },
      }),
      cloud({ maxReplicaMemoryGb: 32, state: 'stopped' }),
    );
    expect(outcome.differences).toEqual([]);
    expect(outcome.drift).toEqual([
      { path: 'name', observed: 'analytics' },
      { path: 'maxReplicaMemoryGb', observed: 32 },
      { path: 'state', observed: 'Stopped' },
    ]);
  });

  it('tells a nested field left alone from its enforced siblings, though the diff names only their parent', () => {
    const fields = { paths: ['scaling', 'scaling.replicas', 'scaling.concurrency'], fixed: [], additive: {} };
    const cloudScaling = { replicas: 4, concurrency: 1 };
    // Like a pipe's: one difference, `scaling`, when any of its keys differs; the PATCH sends them all.
    const diff = (spec: { scaling: Record<string, number> }) => {
      const differs = Object.entries(spec.scaling).some(([k, v]) => cloudScaling[k as 'replicas'] !== v);
      return { differences: differs ? ['scaling'] : [], patch: differs ? spec.scaling : undefined };
    };
    const pipe = (scaling: Record<string, number>) => ({
      metadata: {},
      spec: { scaling, fieldPolicy: { createOnly: ['scaling.replicas'] } },
    });
    const onlySibling = applyFieldPolicy(
      pipe({ replicas: 4, concurrency: 2 }),
      fields,
      { scaling: cloudScaling },
      diff,
    );
    expect(onlySibling).toMatchObject({ differences: ['scaling'], drift: [] });
    expect(onlySibling.judgement.patch).toEqual({ replicas: 4, concurrency: 2 });
    const both = applyFieldPolicy(
      pipe({ replicas: 2, concurrency: 2 }),
      fields,
      { scaling: cloudScaling },
      diff,
    );
    expect(both.drift).toEqual([{ path: 'scaling.replicas', observed: 4 }]);
    // The cloud's replicas travel with the enforced concurrency: the PATCH never undoes the createOnly field.
    expect(both.judgement.patch).toEqual({ replicas: 4, concurrency: 2 });
  });

  it('reports, under sluice.dev/drift: report, a difference no field value explains (a Secret to send)', () => {
    const outcome = applyFieldPolicy(
      object({}, undefined, { annotations: { 'sluice.dev/drift': 'report' } }),
      DATABASE_SERVICE_POLICY,
      serviceAsSpec(cloud()),
      () => ({ differences: ['passwordSecretRef'] }),
    );
    expect(outcome.drift).toEqual([{ path: 'passwordSecretRef', observed: undefined }]);
    expect(outcome.differences).toEqual([]);
  });
});

/** What an observation left uncorrected, written into `status` as a reconcile writes it. */
function recordDrift(status: ManagedStatus, ...found: Tail<Parameters<typeof driftRecorded>>): void {
  applyFields(status, driftRecorded(status, ...found));
}
type Tail<T extends unknown[]> = T extends [unknown, ...infer Rest] ? Rest : never;

describe('drift as status records it', () => {
  it('shows no URL’s user and password, whatever the field is called', () => {
    const status: ManagedStatus = {};
    const observed = { 'extraSettings.sink': 'https://ingest:hunter2-pass@broker.example/topic' };
    recordDrift(
      status,
      Object.entries(observed).map(([path, value]) => ({ path, observed: value })),
      undefined,
      new Date('2026-02-02T00:00:00Z'),
    );
    expect(status.drift).toEqual([
      expect.objectContaining({ observed: 'https://(sensitive)@broker.example/topic' }),
    ]);
  });

  it('keeps the since of a field that stays different and bounds what status holds', () => {
    const status: ManagedStatus = {
      drift: [{ path: 'tags', observed: '[]', since: '2026-01-01T00:00:00.000Z' }],
    };
    const long = 'x'.repeat(1000);
    const many = Array.from({ length: 40 }, (_, i) => ({ path: `f${i}`, observed: i }));
    recordDrift(
      status,
      [{ path: 'tags', observed: [{ key: 'a', value: long }] }, ...many],
      undefined,
      new Date('2026-02-02T00:00:00Z'),
    );
    const drift = status.drift as { path: string; observed: string; since: string }[];
    expect(drift).toHaveLength(32);
    expect(status.driftCount).toBe(41);
    expect(drift[0]!.since).toBe('2026-01-01T00:00:00.000Z');
    expect(drift[0]!.observed).toHaveLength(256);
    expect(drift[1]).toEqual({ path: 'f0', observed: '0', since: '2026-02-02T00:00:00.000Z' });
  });

  it('never shows a credential: a secret field, or a value holding one, is (sensitive)', () => {
    const status: ManagedStatus = {};
    const source = { kafka: { brokers: 'b:9092', credentials: { username: 'u', password: 'p' } } };
    recordDrift(
      status,
      [
        { path: 'passwordSecretRef', observed: undefined },
        { path: 'source', observed: source },
      ],
      undefined,
      new Date('2026-02-02T00:00:00Z'),
    );
    expect(status.drift).toEqual([
      { path: 'passwordSecretRef', observed: '(sensitive)', since: '2026-02-02T00:00:00.000Z' },
      { path: 'source', observed: '(sensitive)', since: '2026-02-02T00:00:00.000Z' },
    ]);
  });

  it('clears drift once nothing differs', () => {
    const status: ManagedStatus = { drift: [{ path: 'tags', observed: '[]', since: 'x' }], driftCount: 1 };
    recordDrift(status, [], undefined, new Date());
    expect(status).toEqual({ driftCount: 0 });
  });
});
