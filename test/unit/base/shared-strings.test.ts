import { describe, expect, it } from 'vitest';
import {
  SHARED_STRINGS_CAPACITY,
  shareStrings,
  sharedStringCount,
} from '../../../src/base/shared-strings.ts';
import { ObjectCache } from '../../../src/kube/cache.ts';

const object = () =>
  JSON.parse(
    JSON.stringify({
      apiVersion: 'sluice.example.com/v1alpha1',
      metadata: { namespace: 'team-a', finalizers: ['sluice.example.com/finalizer'], generation: 3 },
      spec: {
        region: 'us-east-1',
        replicas: 2,
        paused: false,
        tags: [{ key: 'env', value: 'prod' }],
        none: null,
      },
      status: {
        conditions: [{ type: 'Ready', status: 'True', reason: 'Available', message: 'x'.repeat(500) }],
      },
    }),
  ) as Record<string, unknown>;

describe('shareStrings', () => {
  it('keeps every value as it was, at any depth, in objects and arrays', () => {
    const value = object();
    expect(shareStrings(value)).toBe(value);
    expect(value).toEqual(object());
  });

  it('leaves frozen parts as they are', () => {
    const value = object();
    Object.freeze(value.metadata);
    expect(() => shareStrings(value)).not.toThrow();
    expect(value).toEqual(object());
  });

  it('takes scalars and null as they are', () => {
    expect(shareStrings('text')).toBe('text');
    expect(shareStrings(null)).toBe(null);
    expect(shareStrings(7)).toBe(7);
  });

  it('holds no more strings than its capacity however many unique values pass through it', () => {
    for (let i = 0; i < SHARED_STRINGS_CAPACITY * 2 + 10; i++) shareStrings({ uid: `uid-${i}` });
    expect(sharedStringCount()).toBeGreaterThan(0);
    expect(sharedStringCount()).toBeLessThanOrEqual(SHARED_STRINGS_CAPACITY);
  });

  it('does not hold long strings, which are rarely repeated', () => {
    const before = sharedStringCount();
    shareStrings({ message: `${'y'.repeat(200)}-${before}` });
    expect(sharedStringCount()).toBe(before);
  });
});

describe('ObjectCache and the shared strings', () => {
  const secret = (value: string) => ({
    metadata: { namespace: 'team-a', name: `s-${value}` },
    data: { password: value },
  });

  it("keeps a Secret's values out of the shared table when told to (the Secrets' informers are)", () => {
    const secrets = new ObjectCache(false);
    const before = sharedStringCount();
    secrets.upsert(secret(`pw-${before}-a`));
    secrets.replace([secret(`pw-${before}-b`)]);
    expect(sharedStringCount()).toBe(before);
    expect(secrets.get(`team-a/s-pw-${before}-b`)?.metadata.name).toBe(`s-pw-${before}-b`);
  });

  it('shares the strings of the objects it holds by default', () => {
    const objects = new ObjectCache();
    const before = sharedStringCount();
    objects.upsert(secret(`value-${before}`));
    expect(sharedStringCount()).toBeGreaterThan(before);
  });
});
