import { applyFieldPolicy, type PolicedObject, type PolicyFields } from './field-policy.ts';
import type { ManagedObject, Observation, Observed } from './types.ts';

/** A kind that declares no policy fields: `sluice.dev/drift: report` still reports its differences. */
const NO_FIELDS: PolicyFields = { paths: [], fixed: [], additive: {} };

/**
 * The observation of a resource, its field policy applied: the kind's diff runs on the spec the policy
 * enforces, and its judgement of that spec joins what the kind found whatever the spec; the policy's
 * differences, changes, drift and managed entries are taken as they are, so no kind can leave them out.
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
  const { exists: _exists, observed: _observed, diff: _diff, unheldDifferences = [], ...data } = found;
  const { differences: _differences, ...judged } = policed.judgement;
  return {
    exists: true,
    ...data,
    ...judged,
    differences: [...policed.differences, ...unheldDifferences],
    changes: policed.changes,
    drift: policed.drift,
    ...(policed.managedEntries ? { managedEntries: policed.managedEntries } : {}),
  };
}
