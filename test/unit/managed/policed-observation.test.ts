import { describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../../../src/managed/annotations.ts';
import type { FieldPolicy, PolicyFields } from '../../../src/managed/field-policy.ts';
import { comparison, policedObservation } from '../../../src/managed/policed-observation.ts';
import type { ManagedObject } from '../../../src/managed/types.ts';

interface Gadget extends ManagedObject {
  spec: ManagedObject['spec'] & { size: number; label: string; fieldPolicy?: FieldPolicy };
}

const FIELDS: PolicyFields = { paths: ['size', 'label'], fixed: [], additive: {} };
const CLOUD = { size: 3, label: 'old' };

function gadget(fieldPolicy?: FieldPolicy, annotations?: Record<string, string>): Gadget {
  return {
    apiVersion: 'example.dev/v1',
    kind: 'Gadget',
    metadata: { name: 'g', namespace: 'n', uid: 'u', ...(annotations ? { annotations } : {}) },
    spec: { size: 5, label: 'new', ...(fieldPolicy ? { fieldPolicy } : {}) },
  };
}

/** A kind's comparison: the differing fields, and what `conclude` was given. */
function compare(extraDifferences: string[] = []) {
  const seen: { spec?: Gadget['spec'] } = {};
  const found = comparison({
    observed: CLOUD,
    diff: (spec: Gadget['spec']) => ({
      differences: (['size', 'label'] as const).filter((field) => spec[field] !== CLOUD[field]),
    }),
    conclude: (policed) => {
      seen.spec = policed.spec;
      return { plan: policed.plan, differences: extraDifferences, available: true, status: {} };
    },
  });
  return { found, seen };
}

describe('the field policy the reconciler applies around a kind’s diff', () => {
  it('runs the diff on the spec the policy enforces: a reportOnly field is drift, never a difference', () => {
    const { found, seen } = compare();
    const observation = policedObservation(gadget({ reportOnly: ['size'] }), FIELDS, found);
    expect(observation).toMatchObject({
      exists: true,
      differences: ['label'],
      changes: [{ field: 'label', from: 'old', to: 'new' }],
      drift: [{ path: 'size', observed: 3 }],
    });
    expect(seen.spec?.size).toBe(3);
  });

  it('keeps the differences a kind adds beyond the spec’s fields, after the policy’s, even when drift is only reported', () => {
    const { found } = compare(['owner']);
    expect(policedObservation(gadget(), FIELDS, found)).toMatchObject({
      differences: ['size', 'label', 'owner'],
    });
    const reported = policedObservation(
      gadget(undefined, { [ANNOTATIONS.drift]: 'report' }),
      FIELDS,
      compare(['owner']).found,
    );
    expect(reported).toMatchObject({ differences: ['owner'] });
    expect(reported.exists && reported.drift?.map((d) => d.path)).toEqual(['size', 'label']);
  });

  it('takes the differences of a kind that declares no policy fields as its diff finds them', () => {
    const observation = policedObservation(gadget(), undefined, compare().found);
    expect(observation).toMatchObject({ differences: ['size', 'label'], drift: [] });
  });
});
