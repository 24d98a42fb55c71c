import { describe, expect, it } from 'vitest';
import { planRotation, type RotationFacts } from '../../../../src/kinds/api-key/rotation.ts';
import type { ApiKeySpec } from '../../../../src/kinds/api-key/schema.ts';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const spec: ApiKeySpec = {
  name: 'team a',
  roles: ['developer'],
  credentialsSecret: { name: 'team-a' },
  deletionPolicy: 'Delete',
};
const old = { keyId: 'oldoldoldoldoldoAAAA', keySecret: '4b1dold' };
const made = { keyId: 'newnewnewnewnewnBBBB', keySecret: '4b1dnew' };
const oldKey = { id: 'k-old', keySuffix: 'AAAA', createdAt: '2026-11-01T00:00:00Z' };
const newKey = { id: 'k-new', keySuffix: 'BBBB', createdAt: '2026-11-28T11:59:00Z' };

const facts = (over: Partial<RotationFacts>): RotationFacts => ({
  spec,
  annotations: undefined,
  status: { id: 'k-old' },
  key: oldKey,
  stored: { keyId: old.keyId, keySecret: old.keySecret },
  now: NOW,
  make: () => made,
  ...over,
});

describe('an ApiKey rotation, step by step from what survives a restart', () => {
  it('does nothing until the annotation has a value not yet made, then makes a new key', () => {
    expect(planRotation(facts({}))).toEqual({ step: 'none' });
    const annotations = { 'sluice.dev/rotate': '1' };
    expect(planRotation(facts({ annotations, status: { id: 'k-old', lastRotation: '1' } }))).toEqual({
      step: 'none',
    });
    expect(planRotation(facts({ annotations }))).toEqual({ step: 'create', identity: made, asked: '1' });
  });

  it('makes again, after a restart, the key already stored as the next one (its create may have gone)', () => {
    const stored = {
      keyId: old.keyId,
      keySecret: old.keySecret,
      nextKeyId: 'x'.repeat(16) + 'CCCC',
      nextKeySecret: 's',
    };
    const step = planRotation(facts({ annotations: { 'sluice.dev/rotate': '2' }, stored }));
    expect(step).toEqual({
      step: 'create',
      identity: { keyId: stored.nextKeyId, keySecret: 's' },
      asked: '2',
    });
  });

  it('rotates when the key is as old as spec.rotation.every, and says when the next one is due', () => {
    const every = { ...spec, rotation: { every: '240h' } };
    expect(planRotation(facts({ spec: every }))).toMatchObject({ step: 'create', identity: made });
    const young = planRotation(facts({ spec: every, key: newKey }));
    expect(young).toEqual({ step: 'none', dueInMs: 240 * 3_600_000 - 60_000 });
  });

  it('gives the Secret the new key once it exists, and dates the deletion of the previous one a grace period later', () => {
    const stored = { ...old, nextKeyId: made.keyId, nextKeySecret: made.keySecret };
    const status = { id: 'k-new', previousKeyId: 'k-old' };
    const withGrace = { ...spec, rotation: { gracePeriod: '30s' } };
    expect(planRotation(facts({ spec: withGrace, status, key: newKey, stored }))).toEqual({
      step: 'promote',
      identity: made,
      deleteAt: new Date(NOW + 30_000).toISOString(),
      dueInMs: 30_000,
    });
  });

  it('waits out the grace period once the Secret holds the new key, then deletes the previous key, never the new one', () => {
    const stored = { ...made, nextKeyId: made.keyId, nextKeySecret: made.keySecret };
    const deleteAt = new Date(NOW + 5_000).toISOString();
    const status = { id: 'k-new', previousKeyId: 'k-old', previousKeyDeleteAt: deleteAt };
    expect(planRotation(facts({ status, key: newKey, stored }))).toEqual({
      step: 'wait',
      deleteAt,
      dueInMs: 5_000,
    });
    expect(planRotation(facts({ status, key: newKey, stored, now: NOW + 5_000 }))).toEqual({
      step: 'deletePrevious',
      previousKeyId: 'k-old',
    });
    // A restart between the Secret write and the status write: the grace starts again, from now.
    const undated = { id: 'k-new', previousKeyId: 'k-old' };
    expect(planRotation(facts({ status: undated, key: newKey, stored }))).toMatchObject({
      step: 'wait',
      dueInMs: 600_000,
    });
  });

  it('keeps the previous key while the Secret holds neither key', () => {
    const status = { id: 'k-new', previousKeyId: 'k-old' };
    expect(
      planRotation(facts({ status, key: newKey, stored: { keyId: 'zzzzzzzzzzzzzzzzZZZZ' } })),
    ).toMatchObject({
      step: 'hold',
    });
  });
});
