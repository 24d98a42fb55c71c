import { describe, expect, it } from 'vitest';
import { otherObjectAsSeenBy } from '../../../src/managed/claims.ts';
import { ClaimIndex, holderOf, type Claim } from '../../../src/managed/ownership.ts';

const claim = (key: string, fields: Partial<Claim> = {}): Claim => ({
  key,
  uid: `uid-${key}`,
  creationTimestamp: '2025-01-01T00:00:00Z',
  ...fields,
});

describe('holderOf', () => {
  it('is undefined when no object claims the id', () => {
    expect(holderOf('s-1', [claim('a/x', { recordedId: 's-2' }), claim('a/y')])).toBeUndefined();
  });

  it('gives the id to the object that records it over an older one only asking to adopt it', () => {
    const holder = claim('b/new', { recordedId: 's-1', creationTimestamp: '2025-06-01T00:00:00Z' });
    const adopter = claim('a/old', { externalId: 's-1' });
    expect(holderOf('s-1', [adopter, holder])).toBe(holder);
  });

  it('gives the id to the object that created it over one that adopted it, whatever their ages', () => {
    const creator = claim('a/creator', { recordedId: 's-1', creationTimestamp: '2025-06-01T00:00:00Z' });
    const adopter = claim('a/adopter', { recordedId: 's-1', externalId: 's-1' });
    expect(holderOf('s-1', [adopter, creator])).toBe(creator);
  });

  it('between two objects asking for one unheld id, gives it to the older, then by key', () => {
    const older = claim('b/z', { externalId: 's-1', creationTimestamp: '2025-01-01T00:00:00Z' });
    const newer = claim('a/a', { externalId: 's-1', creationTimestamp: '2025-01-01T00:00:01Z' });
    expect(holderOf('s-1', [newer, older])).toBe(older);
    expect(holderOf('s-1', [older, newer])).toBe(older);
    const tie = claim('a/b', { externalId: 's-1' });
    const first = claim('a/a', { externalId: 's-1' });
    expect(holderOf('s-1', [tie, first])).toBe(first);
  });

  it('counts an object by the id it records, not by an annotation naming another', () => {
    const moved = claim('a/moved', { recordedId: 's-2', externalId: 's-1' });
    const adopter = claim('a/later', { externalId: 's-1', creationTimestamp: '2025-06-01T00:00:00Z' });
    expect(holderOf('s-1', [moved, adopter])).toBe(adopter);
    expect(holderOf('s-2', [moved, adopter])).toBe(moved);
  });
});

describe('ClaimIndex', () => {
  it('finds the objects that may claim an id, and forgets what an object no longer names', () => {
    const index = new ClaimIndex();
    index.set('a/x', ['s-1', undefined]);
    index.set('b/y', ['s-2', 's-1', 's-1']);
    expect(index.keysOf('s-1').sort()).toEqual(['a/x', 'b/y']);

    index.set('b/y', ['s-2']);
    index.set('a/x', []);
    expect(index.keysOf('s-1')).toEqual([]);
    expect(index.keysOf('s-2')).toEqual(['b/y']);
  });
});

describe('otherObjectAsSeenBy', () => {
  const viewer = { metadata: { namespace: 'team-a', name: 'probe' } } as never;

  it('names an object of the viewer’s namespace in full', () => {
    expect(otherObjectAsSeenBy(viewer, 'DatabaseService', 'team-a/orders')).toBe(
      'DatabaseService team-a/orders',
    );
  });

  it('names an object of another namespace by neither namespace nor name', () => {
    const shown = otherObjectAsSeenBy(viewer, 'DatabaseService', 'team-b/orders');
    expect(shown).toBe('a DatabaseService of another namespace');
    // A namespace whose name starts with the viewer's is another namespace all the same.
    expect(otherObjectAsSeenBy(viewer, 'Alert', 'team-a-prod/cpu')).toBe('an Alert of another namespace');
  });
});
