import { describe, expect, it } from 'vitest';
import {
  CREATED_AT_TOLERANCE_MS,
  createdSince,
  listedSince,
} from '../../../../src/kinds/shared/cloud-calls.ts';
import { ReconcileError } from '../../../../src/managed/index.ts';

const intent = new Date('2030-01-01T12:00:00.500Z');
const at = (offsetMs: number) => new Date(intent.getTime() + offsetMs).toISOString();
const held = (ids: Record<string, string>) => (id: string) => ids[id];
const nobody = held({});
const all = () => true;
const found = (objects: { id: string; createdAt?: string }[], claimedBy = nobody) =>
  createdSince(objects, intent, all, claimedBy);

describe('createdSince: what a lost create made, by its creation time', () => {
  it('takes the first match dated at or after the intent', () => {
    expect(
      found([
        { id: 'later', createdAt: at(2_000) },
        { id: 'first', createdAt: at(0) },
      ]),
    ).toBe('first');
  });

  it('takes a match dated up to the tolerance before the intent: a cloud clock behind, whole seconds', () => {
    expect(found([{ id: 'truncated', createdAt: '2030-01-01T12:00:00Z' }])).toBe('truncated');
    expect(found([{ id: 'behind', createdAt: at(-CREATED_AT_TOLERANCE_MS) }])).toBe('behind');
  });

  it('never takes a look-alike dated more than the tolerance before the intent', () => {
    expect(found([{ id: 'foreign', createdAt: at(-CREATED_AT_TOLERANCE_MS - 1) }])).toBeUndefined();
    expect(found([{ id: 'foreign', createdAt: at(-3_600_000) }])).toBeUndefined();
  });

  it('within the tolerance, takes the latest: what was made for the intent came after any look-alike', () => {
    const objects = [
      { id: 'look-alike', createdAt: at(-6_000) },
      { id: 'ours', createdAt: at(-2_000) },
      { id: 'old', createdAt: at(-60_000) },
    ];
    expect(found(objects)).toBe('ours');
  });

  it('prefers a match dated after the intent to one dated within the tolerance before it', () => {
    const objects = [
      { id: 'look-alike', createdAt: at(-1_000) },
      { id: 'ours', createdAt: at(300) },
    ];
    expect(found(objects)).toBe('ours');
  });

  it('compares instants, not text: whole seconds against milliseconds', () => {
    const objects = [
      { id: 'second', createdAt: '2030-01-01T12:00:02Z' },
      { id: 'first', createdAt: '2030-01-01T12:00:01.900Z' },
    ];
    expect(found(objects)).toBe('first');
  });

  it('skips ids another object holds, whichever rule would have taken them', () => {
    const objects = [
      { id: 'theirs', createdAt: at(0) },
      { id: 'ours', createdAt: at(1_000) },
    ];
    expect(found(objects, held({ theirs: 'ns/other' }))).toBe('ours');
    expect(found([{ id: 'theirs', createdAt: at(-1_000) }], held({ theirs: 'ns/other' }))).toBeUndefined();
  });

  it('skips objects that do not match or carry no creation time', () => {
    const objects = [{ id: 'undated' }, { id: 'other', createdAt: at(0) }, { id: 'ours', createdAt: at(10) }];
    expect(createdSince(objects, intent, (o) => o.id !== 'other', nobody)).toBe('ours');
  });

  it('refuses to choose between matches dated the same moment before the intent, naming them', () => {
    const objects = [
      { id: 'a', createdAt: '2030-01-01T12:00:00Z' },
      { id: 'b', createdAt: '2030-01-01T12:00:00Z' },
    ];
    expect(() => found(objects)).toThrow(ReconcileError);
    expect(() => found(objects)).toThrow(/a, b.*sluice\.dev\/external-id/);
  });
});

describe('listedSince', () => {
  it('accepts a snapshot no older than the freshness and never one listed before the create ended', () => {
    const now = Date.parse('2030-01-01T00:01:00Z');
    const endedAt = (iso: string) => ({ listedAfter: new Date(iso) });
    expect(listedSince(endedAt('2030-01-01T00:00:00Z'), 5_000, now)).toBe(5_000);
    expect(listedSince(endedAt('2030-01-01T00:00:58Z'), 5_000, now)).toBe(2_000);
    // An intent ahead of this clock (skew): only a list made now will do.
    expect(listedSince(endedAt('2030-01-01T00:01:03Z'), 5_000, now)).toBe(0);
  });
});
