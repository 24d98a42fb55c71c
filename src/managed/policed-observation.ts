import { applyFieldPolicy, type PolicedObject, type PolicyFields } from './field-policy.ts';
import type { Comparison, ManagedObject, Observation, Observed } from './types.ts';

/** A kind that declares no policy fields: `sluice.dev/drift: report` still reports its differences. */
const NO_FIELDS: PolicyFields = { paths: [], fixed: [], additive: {} };

/** A comparison, its diff's type kept for `conclude` (the reconciler does not need it). */
export function comparison<Spec, Plan, Diff extends { differences: string[] }>(
  compared: Omit<Comparison<Spec, Plan, Diff>, 'exists'>,
): Comparison<Spec, Plan> {
  return { exists: true, ...compared } as unknown as Comparison<Spec, Plan>;
}

/**
 * The observation of a resource, its field policy applied: the kind's diff runs on the spec the policy
 * enforces, and the kind concludes the rest from the outcome; the policy's differences, changes, drift and
 * managed entries are taken as they are, so no kind can leave them out.
 */
export function policedObservation<R extends ManagedObject, P>(
  resource: R,
  fields: PolicyFields | undefined,
  found: Observed<R, P>,
): Observation<P> {
  if (!found.exists) return found;
  // Every managed status may hold `managedEntries`; ManagedStatus leaves it to the kinds that have lists.
  const policedObject = resource as PolicedObject<R['spec']>;
  const policed = applyFieldPolicy(
    policedObject,
    fields ?? NO_FIELDS,
    found.observed,
    found.diff.bind(found),
  );
  const { differences = [], ...concluded } = found.conclude(policed);
  return {
    exists: true,
    ...concluded,
    differences: [...policed.differences, ...differences],
    changes: policed.changes,
    drift: policed.drift,
    ...(policed.managedEntries ? { managedEntries: policed.managedEntries } : {}),
  };
}
