import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { timing } from '../../../src/base/timings.ts';
import type { ReconcileError } from '../../../src/managed/errors.ts';
import type { ObjectRead } from '../../../src/managed/object-read.ts';
import { Outcomes } from '../../../src/managed/outcomes.ts';
import { Pacing, type MissingClock } from '../../../src/managed/pacing.ts';
import { decidePreconditions, type PreconditionFacts } from '../../../src/managed/preconditions.ts';
import type { ManagedObject } from '../../../src/managed/types.ts';

const ends = new Outcomes<ManagedObject>({
  kind: { kind: 'Pipe' },
  pacing: new Pacing({ syncIntervalMs: 600_000, pollIntervalMs: 2_000, now: () => new Date(0) }),
  logger: pino({ enabled: false }),
});

const pipe = (status?: ManagedObject['status'], annotations?: Record<string, string>): ManagedObject => ({
  metadata: { name: 'p', namespace: 'ns', uid: 'u', ...(annotations ? { annotations } : {}) },
  spec: { serviceRef: { name: 'analytics' } },
  ...(status ? { status } : {}),
});

/** Facts of a pipe whose service resolved to `svc-1`, with nothing missing, owned or held. */
function facts(overrides: Partial<PreconditionFacts<ManagedObject>> = {}, object = pipe()) {
  const read: ObjectRead<ManagedObject> = {
    key: 'ns/p',
    object,
    latest: object.status ?? {},
    externalId: object.metadata.annotations?.['sluice.dev/external-id'],
  };
  return {
    read,
    kind: { kind: 'Pipe' },
    references: {
      resolved: { service: [{ id: 'svc-1' }] },
      replaced: undefined,
      kept: { serviceId: 'svc-1' },
    },
    exclusiveOwner: undefined,
    holder: undefined,
    ...overrides,
  } satisfies PreconditionFacts<ManagedObject>;
}

/** A missing reference's clock at 100 s, its grace over, missing since `missingSince`. */
const clock = (overrides: Partial<MissingClock> = {}): MissingClock => ({
  arrivalGraceMs: 0,
  missingSince: undefined,
  nowMs: 100_000,
  ...overrides,
});

const missing = {
  waitingFor: 'DatabaseService analytics does not exist yet',
  missing: 'DatabaseService analytics',
};

describe('decidePreconditions', () => {
  it('waits quietly for a missing reference within its arrival grace, recording nothing', () => {
    const { result, records } = decidePreconditions(
      facts({ references: missing, missingClock: clock({ arrivalGraceMs: 400 }) }),
      ends,
    );
    expect(result).toEqual({ outcome: { kind: 'lookAgain', afterMs: 400 }, status: { discard: true } });
    expect(records).toEqual({});
  });

  it("starts a missing reference's clock on the first look that finds it so, and says so only once it has been missing long enough", () => {
    const first = decidePreconditions(facts({ references: missing, missingClock: clock() }), ends);
    expect(first.records).toEqual({ referenceMissingAt: 100_000 });
    expect(first.result).toMatchObject({
      outcome: { kind: 'lookAgain', afterMs: timing.referenceMissingReportMs },
    });
    const later = decidePreconditions(
      facts({
        references: missing,
        missingClock: clock({ missingSince: 100_000 - timing.referenceMissingReportMs }),
      }),
      ends,
    );
    expect(later.records).toEqual({});
    expect(later.result).toMatchObject({
      outcome: { kind: 'waitForObject' },
      status: { conditions: [{ type: 'Synced', reason: 'ReferenceNotFound' }, { type: 'Ready' }] },
    });
  });

  it('grants the id it names, as a record, only when no other object holds it', () => {
    const named = pipe({ id: 'pipe-1' });
    const free = decidePreconditions(facts({}, named), ends);
    expect(free.result).toEqual({
      references: { service: [{ id: 'svc-1' }] },
      id: 'pipe-1',
      adopting: false,
      status: { set: { serviceId: 'svc-1' } },
    });
    expect(free.records).toEqual({ referenceFound: true, grant: 'pipe-1' });
    const held = decidePreconditions(facts({ holder: 'ns/other' }, named), ends);
    expect(held.records).toEqual({ referenceFound: true });
    expect(held.result).toMatchObject({ outcome: { kind: 'waitForObject' }, status: { unset: ['id'] } });
  });

  it('adopts the id its annotation names when status records none, and grants nothing to an object with no id', () => {
    const adopting = pipe(undefined, { 'sluice.dev/external-id': 'pipe-9' });
    expect(decidePreconditions(facts({}, adopting), ends).result).toMatchObject({
      id: 'pipe-9',
      adopting: true,
    });
    expect(decidePreconditions(facts(), ends).records).toEqual({ referenceFound: true });
  });

  it('fails on an annotation longer than any cloud id, as data, with the found reference still recorded', () => {
    const overlong = pipe(undefined, { 'sluice.dev/external-id': 'x'.repeat(1_000) });
    const { result, records } = decidePreconditions(facts({}, overlong), ends);
    expect((result as { fail: ReconcileError }).fail.reason).toBe('InvalidAnnotation');
    expect(records).toEqual({ referenceFound: true });
  });

  it('waits for the object that owns what this one would make, keeping the ids its references resolved to', () => {
    const owned = decidePreconditions(
      facts({ kind: { kind: 'Pipe', exclusiveOn: 'service' }, exclusiveOwner: 'ns/first' }),
      ends,
    );
    expect(owned.result).toMatchObject({
      outcome: { kind: 'waitForObject' },
      status: {
        set: { serviceId: 'svc-1' },
        conditions: [
          { type: 'Synced', status: 'True' },
          {
            type: 'Ready',
            reason: 'Conflict',
            message: 'Pipe ns/first already manages this for the same service',
          },
        ],
      },
    });
    expect(owned.records).toEqual({ referenceFound: true });
  });
});
