import { describe, expect, it } from 'vitest';
import { removeCondition, setCondition } from '../../../src/kube/conditions.ts';

const t0 = () => new Date('2026-01-01T00:00:00Z');
const t1 = () => new Date('2026-01-01T00:05:00Z');

describe('setCondition', () => {
  it('stamps a new condition with the current time', () => {
    const [ready] = setCondition([], { type: 'Ready', status: 'False', reason: 'Creating' }, t0);
    expect(ready).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'Creating',
      lastTransitionTime: t0().toISOString(),
    });
  });

  it('keeps lastTransitionTime when only the reason or message changes', () => {
    const first = setCondition([], { type: 'Ready', status: 'False', reason: 'Creating' }, t0);
    const second = setCondition(
      first,
      { type: 'Ready', status: 'False', reason: 'Unavailable', message: 'x' },
      t1,
    );
    expect(second[0]).toMatchObject({ reason: 'Unavailable', lastTransitionTime: t0().toISOString() });
  });

  it('moves lastTransitionTime when the status flips', () => {
    const first = setCondition([], { type: 'Ready', status: 'False', reason: 'Creating' }, t0);
    const second = setCondition(first, { type: 'Ready', status: 'True', reason: 'Available' }, t1);
    expect(second[0]!.lastTransitionTime).toBe(t1().toISOString());
  });

  it('produces an equal list when nothing changed, so no status write follows', () => {
    const first = setCondition([], { type: 'Synced', status: 'True', reason: 'ReconcileSuccess' }, t0);
    expect(setCondition(first, { type: 'Synced', status: 'True', reason: 'ReconcileSuccess' }, t1)).toEqual(
      first,
    );
  });

  it('replaces only the condition of the same type', () => {
    let list = setCondition([], { type: 'Ready', status: 'True', reason: 'Available' }, t0);
    list = setCondition(list, { type: 'Drifted', status: 'True', reason: 'DriftDetected' }, t0);
    expect(removeCondition(list, 'Drifted').map((c) => c.type)).toEqual(['Ready']);
  });
});
