import { describe, expect, it } from 'vitest';
import type { ReadonlyCache } from '../../../src/kube/cache.ts';
import { ObjectClaims } from '../../../src/managed/claims.ts';
import type { ObjectRead } from '../../../src/managed/object-read.ts';
import { NO_OBJECTS } from '../../../src/managed/references.ts';
import type { ManagedObject } from '../../../src/managed/types.ts';

/** Claims over a cache held in a map, with each object's status as its latest. */
function claimsOver(objects: Map<string, ManagedObject>) {
  const cache: ReadonlyCache<ManagedObject> = {
    get: (key) => objects.get(key),
    list: () => [...objects.values()],
    keys: () => [...objects.keys()],
    get size() {
      return objects.size;
    },
  };
  return new ObjectClaims<ManagedObject>({
    kind: { kind: 'Widget' },
    cache,
    lookup: NO_OBJECTS,
    statuses: { latest: (object) => object.status },
  });
}

const widget = (name: string, uid: string, externalId?: string): ManagedObject => ({
  metadata: {
    name,
    namespace: 'ns',
    uid,
    ...(externalId ? { annotations: { 'sluice.dev/external-id': externalId } } : {}),
  },
  spec: {},
});

const readOf = (object: ManagedObject): ObjectRead<ManagedObject> => ({
  key: `ns/${object.metadata.name}`,
  object,
  latest: object.status ?? {},
  externalId: object.metadata.annotations?.['sluice.dev/external-id'],
});

describe('ObjectClaims', () => {
  it('indexes a grant at once, and forgets it at once when released', () => {
    const objects = new Map<string, ManagedObject>();
    const claims = claimsOver(objects);
    const named = widget('a', 'uid-a', 'svc-1');
    objects.set('ns/a', named);
    claims.observe('ns/a', named);
    expect(claims.holderOf(readOf(named), 'svc-1')).toBeUndefined();
    claims.grant(readOf(named), 'svc-1');
    // The annotation goes: the grant alone holds the id now.
    const unnamed = widget('a', 'uid-a');
    objects.set('ns/a', unnamed);
    claims.observe('ns/a', unnamed);
    expect(claims.keysHolding('svc-1')).toEqual(['ns/a']);
    claims.release(unnamed);
    expect(claims.keysHolding('svc-1')).toEqual([]);
  });

  it('tells another object naming a held id who holds it, without granting it anything', () => {
    const objects = new Map<string, ManagedObject>();
    const claims = claimsOver(objects);
    const first = { ...widget('a', 'uid-a'), status: { id: 'svc-1' } };
    const second = widget('b', 'uid-b', 'svc-1');
    for (const object of [first, second]) {
      objects.set(`ns/${object.metadata.name}`, object);
      claims.observe(`ns/${object.metadata.name}`, object);
    }
    expect(claims.holderOf(readOf(second), 'svc-1')).toBe('ns/a');
    expect(claims.holderOf(readOf(first), 'svc-1')).toBeUndefined();
    expect(claims.keysHolding('svc-1').sort()).toEqual(['ns/a', 'ns/b']);
  });
});
