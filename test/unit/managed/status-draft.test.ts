import { describe, expect, it } from 'vitest';
import { StatusDraft } from '../../../src/managed/status-draft.ts';
import type { ManagedObject, ManagedStatus } from '../../../src/managed/types.ts';

const NOW = new Date('2030-01-01T00:00:00Z');
const object = (status: ManagedStatus): ManagedObject => ({
  apiVersion: 'sluice.dev/v1alpha1',
  kind: 'DatabaseService',
  metadata: { name: 'orders', namespace: 'shop', uid: 'u-1', generation: 3 },
  spec: {},
  status,
});
const draftOf = (status: ManagedStatus = {}) => new StatusDraft(object(status), () => NOW);
const drifted = { type: 'Drifted', status: 'True', reason: 'DriftAllowed', message: 'tags' } as const;

describe('a status draft takes the changes the steps of a reconcile returned', () => {
  it('one after another: a later change sets or removes what an earlier one set', () => {
    const draft = draftOf({ id: 's-1', adopted: true });
    draft.apply(
      { set: { driftCount: 1, secretVersions: { a: '1' } }, unset: ['adopted'] },
      { unset: ['secretVersions'], set: { driftCount: 0 } },
    );
    expect(draft.result()).toEqual({ id: 's-1', driftCount: 0, observedGeneration: 3 });
  });

  it('a field set to undefined is gone from the written status, as the cloud no longer answers it', () => {
    const draft = draftOf({ id: 's-1', endpoint: 'h:9440' });
    draft.apply({ set: { endpoint: undefined } });
    expect(draft.result()).not.toHaveProperty('endpoint');
  });

  it('conditions set and removed, each observing the generation read', () => {
    const draft = draftOf();
    draft.apply({ conditions: [drifted] });
    expect(draft.condition('Drifted')).toMatchObject({ status: 'True', observedGeneration: 3 });
    draft.apply({ removed: ['Drifted'] });
    expect(draft.condition('Drifted')).toBeUndefined();
  });

  it('a failure is Synced=False and Ready=SyncFailed; a spec not acted on keeps the generation observed', () => {
    const draft = draftOf({ observedGeneration: 2 });
    draft.apply({ failure: { reason: 'CloudRefused', message: 'no', needsAPerson: true } });
    draft.apply({ keepObservedGeneration: true });
    const status = draft.result();
    expect(status.observedGeneration).toBe(2);
    expect(draft.condition('Synced')).toMatchObject({ status: 'False', reason: 'CloudRefused' });
    expect(draft.condition('Ready')).toMatchObject({ status: 'False', reason: 'SyncFailed' });
  });

  it('a discarded draft says so, for the reconciler to write nothing', () => {
    const draft = draftOf();
    draft.apply({});
    expect(draft.discarded).toBe(false);
    draft.apply({ discard: true });
    expect(draft.discarded).toBe(true);
  });
});
