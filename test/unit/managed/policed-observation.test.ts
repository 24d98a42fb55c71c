import { describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../../../src/managed/annotations.ts';
import type { FieldPolicy, PolicyFields } from '../../../src/managed/field-policy.ts';
import { policedObservation } from '../../../src/managed/policed-observation.ts';
import type { ManagedObject, Observed } from '../../../src/managed/types.ts';

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

/** A kind's comparison: the differing fields, and a plan that tells which size its diff was given. */
function compare(unheldDifferences: string[] = []) {
  const found: Observed<Gadget, number> = {
    exists: true,
    observed: CLOUD,
    diff: (spec: Gadget['spec']) => ({
      differences: (['size', 'label'] as const).filter((field) => spec[field] !== CLOUD[field]),
      plan: spec.size,
      available: true,
    }),
    unheldDifferences,
    status: {},
  };
  return { found };
}

describe('the field policy the reconciler applies around a kind’s diff', () => {
  it('runs the diff on the spec the policy enforces: a reportOnly field is drift, never a difference', () => {
    const { found } = compare();
    const observation = policedObservation(gadget({ reportOnly: ['size'] }), FIELDS, found);
    expect(observation).toMatchObject({
      exists: true,
      differences: ['label'],
      changes: [{ field: 'label', from: 'old', to: 'new' }],
      drift: [{ path: 'size', observed: 3 }],
    });
    // The observation's plan is the diff's of the enforced spec, the cloud's size in it.
    expect(observation.exists && observation.plan).toBe(3);
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
