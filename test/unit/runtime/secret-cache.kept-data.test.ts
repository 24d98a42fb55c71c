import { describe, expect, it } from 'vitest';
import { keptData } from '../../../src/runtime/secret-cache.ts';
import { MAX_KEPT_SECRET_BYTES } from '../../../src/managed/secret-references.ts';

describe('keptData', () => {
  it('keeps only the keys sluice reads, counting only them', () => {
    const all = { keyId: 'id', keySecret: 'secret', blob: 'x'.repeat(1024 * 1024) };
    const kept = keptData(all, ['keyId', 'keySecret', 'alertsUrl']);
    expect(kept.data).toEqual({ keyId: 'id', keySecret: 'secret' });
    expect(kept.bytes).toBe('keyId'.length + 2 + 'keySecret'.length + 6);
    expect(kept.oversized).toEqual([]);
  });

  it('leaves out, and names, a key that would take the Secret past the bound; the rest stays', () => {
    const all = { a: 'x'.repeat(MAX_KEPT_SECRET_BYTES - 10), b: 'y'.repeat(20), c: 'z' };
    const kept = keptData(all, undefined);
    expect(Object.keys(kept.data)).toEqual(['a', 'c']);
    expect(kept.oversized).toEqual(['b']);
    expect(kept.bytes).toBeLessThanOrEqual(MAX_KEPT_SECRET_BYTES);
  });

  it('reads no key from the prototype chain', () => {
    expect(keptData({}, ['constructor', 'toString']).data).toEqual({});
  });
});
