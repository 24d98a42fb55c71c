import { describe, expect, it } from 'vitest';
import { closestName } from '../../../src/base/similar-name.ts';

describe('the name a mistyped reference most likely meant', () => {
  it('is the one name within two edits', () => {
    expect(closestName('analytcs', ['analytics', 'sandbox'])).toBe('analytics');
    expect(closestName('order', ['orders', 'events-backfill'])).toBe('orders');
  });

  it('is none when nothing is close, or two names are equally close', () => {
    expect(closestName('reports', ['analytics', 'sandbox'])).toBeUndefined();
    expect(closestName('team-c', ['team-a', 'team-b'])).toBeUndefined();
    expect(closestName('db', ['dbx', 'ab'])).toBeUndefined();
  });
});
