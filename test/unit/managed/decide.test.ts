import { describe, expect, it } from 'vitest';
import { decideObserved, type Effect, type ObservedSnapshot } from '../../../src/managed/decide.ts';

type Existing = ObservedSnapshot<unknown>['observation'];

const observation = (extra: Partial<Existing> = {}): Existing => ({
  exists: true,
  plan: {},
  differences: [],
  available: true,
  status: {},
  ...extra,
});

const snapshot = (
  seen: Partial<Existing> = {},
  extra: Partial<ObservedSnapshot<unknown>> = {},
): ObservedSnapshot<unknown> => ({
  kind: 'DatabaseService',
  spec: { name: 'orders-2', state: 'Running', tags: [{ key: 'team', value: 'a' }] },
  observation: observation(seen),
  status: {},
  readyReasonBefore: 'Available',
  observeOnly: false,
  now: new Date('2026-11-29T00:00:00Z'),
  ...extra,
});

/** What each effect is, in order: `status`, `update`, `event:Updated`…. */
const shape = (effects: Effect[]) =>
  effects.map((effect) => ('event' in effect ? `event:${effect.event.reason}` : Object.keys(effect)[0]));
const readyOf = (effects: Effect[]) =>
  effects
    .flatMap((e) => ('status' in e ? (e.status.conditions ?? []) : []))
    .filter((c) => c.type === 'Ready');

describe('the decision on an observed cloud object', () => {
  it('updates what differs, then records the Secrets sent, an Event naming the change and Ready=False Updating', () => {
    const decision = decideObserved(snapshot({ differences: ['name', 'tags'] }));
    expect(shape(decision.effects)).toEqual([
      'status',
      'status',
      'update',
      'secretsRecorded',
      'event:Updated',
      'status',
    ]);
    expect(decision.effects).toContainEqual({
      event: { type: 'Normal', reason: 'Updated', message: 'updated name orders-2, tags' },
    });
    expect(readyOf(decision.effects)).toEqual([
      { type: 'Ready', status: 'False', reason: 'Updating', message: 'applying name orders-2, tags' },
    ]);
    expect(decision.outcome).toEqual({ kind: 'waitForCloud' });
  });

  it('publishes connection values an update makes true only after the update', () => {
    const accepted = { password: 'from-the-update' };
    const { effects } = decideObserved(
      snapshot({ differences: ['password'], connectionDetailsAfterUpdate: accepted }),
    );
    const at = (name: string) => shape(effects).indexOf(name);
    expect(at('publishAccepted')).toBeGreaterThan(at('update'));
    expect(effects).toContainEqual({ publishAccepted: accepted });
  });

  it('is Ready when nothing differs, and looks again when the kind says it is due', () => {
    const decision = decideObserved(snapshot({ dueInMs: -5 }));
    expect(shape(decision.effects)).not.toContain('update');
    expect(readyOf(decision.effects)).toEqual([{ type: 'Ready', status: 'True', reason: 'Available' }]);
    expect(decision.outcome).toEqual({ kind: 'driftCheck', dueInMs: 0 });
  });

  it('says the drift its field policy allows in Ready and Drifted, and still sends nothing', () => {
    const drift = [{ path: 'tags', observed: [] }];
    const { effects } = decideObserved(snapshot({ drift }));
    expect(shape(effects)).not.toContain('update');
    const message = '1 field differs from the spec, as the field policy allows: tags';
    expect(readyOf(effects)).toEqual([{ type: 'Ready', status: 'True', reason: 'Available', message }]);
    expect(effects).toContainEqual({
      status: { conditions: [{ type: 'Drifted', status: 'True', reason: 'DriftAllowed', message }] },
    });
  });

  it('waits for the cloud while the object is not usable yet, saying why', () => {
    const decision = decideObserved(snapshot({ available: false, waitingFor: 'service is starting' }));
    expect(readyOf(decision.effects)).toEqual([
      { type: 'Ready', status: 'False', reason: 'Unavailable', message: 'service is starting' },
    ]);
    expect(decision.outcome).toEqual({ kind: 'waitForCloud' });
  });

  it('reports a failed cloud object with one Warning when Ready turns, none while it stays so', () => {
    const failed = { failed: 'pipe is Failed: broker unreachable', reason: 'CloudFailed' as const };
    const turning = decideObserved(snapshot(failed));
    expect(shape(turning.effects)).toEqual(['event:CloudFailed', 'status']);
    expect(readyOf(turning.effects)).toEqual([
      { type: 'Ready', status: 'False', reason: 'CloudFailed', message: failed.failed },
    ]);
    const staying = decideObserved(snapshot(failed, { readyReasonBefore: 'CloudFailed' }));
    expect(shape(staying.effects)).toEqual(['status']);
    expect(staying.outcome).toEqual({ kind: 'waitForCloud' });
  });

  it('under Observe records what Full would send instead of updating, with what Observe withheld', () => {
    const decision = decideObserved(
      snapshot({ differences: ['name'] }, { observeOnly: true, withheld: 'a reset is asked for' }),
    );
    expect(shape(decision.effects)).toEqual(['status', 'status', 'recordPendingChanges']);
    expect(decision.effects).toContainEqual({ recordPendingChanges: { notes: ['a reset is asked for'] } });
    expect(decision.outcome).toEqual({ kind: 'driftCheck' });
  });

  it('keeps the since of drift already recorded, and leaves the snapshot as it was', () => {
    const since = '2026-11-01T00:00:00.000Z';
    const status = { drift: [{ path: 'tags', observed: '[]', since }] };
    const taken = snapshot({ drift: [{ path: 'tags', observed: [] }] }, { status });
    const before = structuredClone(taken);
    const { effects } = decideObserved(taken);
    expect(effects).toContainEqual({
      status: expect.objectContaining({
        set: expect.objectContaining({ drift: [{ path: 'tags', observed: '[]', since }] }),
      }),
    });
    expect(taken).toEqual(before);
  });
});
