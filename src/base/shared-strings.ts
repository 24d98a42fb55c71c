/**
 * One copy of each short string value the operator keeps for long: JSON.parse makes a new string for every
 * value of every object, so 10,000 cached objects hold 10,000 copies of their namespace, apiVersion,
 * finalizer, condition types, reasons and messages, and the cloud snapshots as many of a region or a state.
 * Values are unchanged; only the copies are shared.
 */

/** Longer strings are rarely repeated (messages naming an id, certificates, JSON documents). */
const MAX_SHARED_LENGTH = 128;
/**
 * The table starts over when it holds this many strings, so unique values (names, uids, timestamps) never
 * accumulate: a repeated string is back in it after its next sighting.
 */
const CAPACITY = 8192;

const table = new Map<string, string>();

function shared(text: string): string {
  if (text.length > MAX_SHARED_LENGTH) return text;
  const known = table.get(text);
  if (known !== undefined) return known;
  if (table.size >= CAPACITY) table.clear();
  table.set(text, text);
  return text;
}

/**
 * Replaces, in place, every short string held by `value` (in objects and arrays, at any depth) with the copy
 * already held by an earlier value, and returns `value`. Frozen parts are left as they are.
 */
export function shareStrings<V>(value: V): V {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    const field = fields[key];
    if (typeof field === 'string') fields[key] = shared(field);
    else shareStrings(field);
  }
  return value;
}

/** How many strings the table holds now (at most its capacity). */
export const sharedStringCount = (): number => table.size;
export const SHARED_STRINGS_CAPACITY = CAPACITY;
