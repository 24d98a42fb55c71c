import { describe, expect, it } from 'vitest';
import { KINDS } from '../../../src/kinds/index.ts';
import { CHAOS_KINDS, generateManifests } from '../../../tools/chaos/kinds.ts';

describe('chaos manifest generators', () => {
  it('cover every kind of the registry, so every kind is in every chaos run', () => {
    expect(CHAOS_KINDS.map((k) => k.kind).sort()).toEqual(KINDS.map((k) => k.kind).sort());
  });

  it('write manifests every kind admits, with unique names and references to objects generated before', () => {
    const manifests = generateManifests(40);
    expect(manifests).toHaveLength(40);
    expect(new Set(manifests.map((m) => `${m.kind}/${m.name}`)).size).toBe(40);
    for (const [i, m] of manifests.entries()) {
      const kind = KINDS.find((k) => k.kind === m.kind)!;
      expect(kind.spec.safeParse(m.spec).error).toBeUndefined();
      const ref = (m.spec.serviceRef as { name?: string } | undefined)?.name;
      if (ref) expect(manifests.slice(0, i).some((o) => o.name === ref)).toBe(true);
    }
    for (const kind of CHAOS_KINDS) expect(manifests.some((m) => m.kind === kind.kind)).toBe(true);
  });

  it('rename to a spec whose cloud name differs', () => {
    for (const m of generateManifests(CHAOS_KINDS.length)) {
      const kind = CHAOS_KINDS.find((k) => k.kind === m.kind)!;
      if (kind.rename)
        expect(kind.cloudName({ ...m.spec, ...kind.rename(m.spec) })).not.toBe(kind.cloudName(m.spec));
    }
  });
});
