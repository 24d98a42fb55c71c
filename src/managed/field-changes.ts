import { isDeepStrictEqual } from 'node:util';
import { readPath } from './field-paths.ts';

/**
 * One spec field a reconcile changes, as a reviewer reads it: the cloud's value and the spec's, or for a
 * list the entries added and removed. A value neither side names (a credential sent by reference) has none.
 */
export interface FieldChange {
  field: string;
  from?: unknown;
  to?: unknown;
  added?: unknown[];
  removed?: unknown[];
}

/**
 * The changes behind `differences` (spec field paths): `observed` is the cloud in the spec's own terms,
 * `desired` the spec sluice enforces. A field neither holds (a password, the owner record) keeps its name only.
 */
export function fieldChanges(
  differences: readonly string[],
  observed: Readonly<Record<string, unknown>>,
  desired: object,
): FieldChange[] {
  return differences.map((field) => {
    const from = readPath(observed, field);
    const to = readPath(desired, field);
    if (Array.isArray(from) || Array.isArray(to)) {
      const before = Array.isArray(from) ? from : [];
      const after = Array.isArray(to) ? to : [];
      const missingFrom = (list: unknown[]) => (item: unknown) =>
        !list.some((other) => isDeepStrictEqual(other, item));
      return { field, added: after.filter(missingFrom(before)), removed: before.filter(missingFrom(after)) };
    }
    return {
      field,
      ...(from === undefined ? {} : { from }),
      ...(to === undefined ? {} : { to }),
    };
  });
}
