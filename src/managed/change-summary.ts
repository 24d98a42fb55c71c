/** A spec value short enough to name in an Event; longer ones are named by their field alone. */
const MAX_VALUE_LENGTH = 64;

/**
 * The fields a change sends, each with the value the spec asks for when it is a plain one (`state Stopped`,
 * `name orders-2`): two different changes of one field never read alike, so neither Event hides the other.
 * Lists, objects and Secret-fed fields are named alone; a spec holds references to Secrets, never their values.
 */
export function describeChanges(spec: Record<string, unknown>, fields: readonly string[]): string {
  return fields
    .map((field) => {
      const value = valueAt(spec, field);
      const plain = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
      return plain && String(value).length <= MAX_VALUE_LENGTH ? `${field} ${String(value)}` : field;
    })
    .join(', ');
}

function valueAt(spec: Record<string, unknown>, path: string): unknown {
  let value: unknown = spec;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
