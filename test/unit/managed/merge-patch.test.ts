import { describe, expect, it } from 'vitest';
import { replacingMergePatch } from '../../../src/managed/kube-writer.ts';

/** RFC 7386 applied, to check the patch does what the apiserver will do with it. */
function apply(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = apply(result[key], value);
  }
  return result;
}

describe('replacingMergePatch', () => {
  it('removes a key dropped from a nested map, which a plain merge patch would keep', () => {
    const current = { state: 'Running', settings: { a: 1, b: 2 } };
    const next = { state: 'Running', settings: { a: 1 } };
    const patch = replacingMergePatch(current, next);
    expect(patch).toEqual({ state: 'Running', settings: { a: 1, b: null } });
    expect(apply(current, patch)).toEqual(next);
  });

  it('removes dropped top-level fields and replaces arrays whole', () => {
    const current = { id: 'x', endpoints: [{ host: 'a' }, { host: 'b' }], old: true };
    const next = { id: 'x', endpoints: [{ host: 'c' }] };
    expect(apply(current, replacingMergePatch(current, next))).toEqual(next);
  });
});
