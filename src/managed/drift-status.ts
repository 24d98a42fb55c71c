import { isCredentialField, withoutUrlCredentials } from '../base/credential-fields.ts';
import {
  MAX_DRIFT_ENTRIES,
  MAX_OBSERVED_LENGTH,
  type DriftedField,
  type ManagedEntries,
} from './field-policy.ts';
import type { StatusChange } from './status-changes.ts';
import type { ManagedStatus } from './types.ts';

/** One entry of `status.drift`. */
export interface DriftEntry {
  path: string;
  /**
   * The cloud's value as JSON text, cut to `MAX_OBSERVED_LENGTH`; `(sensitive)` for a credential or a value
   * sluice never reads back (a webhook's URL).
   */
  observed: string;
  /** When sluice first saw this field differ (RFC 3339). */
  since: string;
}

/** What status shows instead of a value that is, or holds, a credential. */
export const SENSITIVE = '(sensitive)';

/**
 * What an observation left uncorrected, for status: `drift` (a field that stays different keeps its `since`
 * from `status`, as recorded so far), `driftCount` (all of them, also those beyond the listed bound) and the
 * entries sluice manages in shared lists.
 */
export function driftRecorded(
  status: ManagedStatus,
  drift: readonly DriftedField[],
  managedEntries: ManagedEntries | undefined,
  now: Date,
): StatusChange {
  const earlier = new Map(((status.drift as DriftEntry[] | undefined) ?? []).map((e) => [e.path, e.since]));
  const entries = drift.slice(0, MAX_DRIFT_ENTRIES).map(({ path, observed, unread }) => ({
    path,
    observed: unread ? SENSITIVE : observedText(path, observed),
    since: earlier.get(path) ?? now.toISOString(),
  }));
  const set: ManagedStatus = {};
  const unset: string[] = [];
  if (entries.length > 0) set.drift = entries;
  else unset.push('drift');
  set.driftCount = drift.length;
  if (managedEntries) set.managedEntries = managedEntries;
  else unset.push('managedEntries');
  return { set, unset };
}

/** `2 fields differ from the spec, as the field policy allows: tags, maxReplicaMemoryGb`. */
export function describeDrift(drift: readonly DriftedField[]): string {
  const fields = drift.length === 1 ? '1 field differs' : `${drift.length} fields differ`;
  return `${fields} from the spec, as the field policy allows: ${drift.map((d) => d.path).join(', ')}`;
}

function observedText(path: string, value: unknown): string {
  if (isSecret(path, value)) return SENSITIVE;
  // A string is shown as it is; anything else as JSON, absent as `null`.
  // A URL's user and password are a credential under any field name.
  const text = withoutUrlCredentials(
    typeof value === 'string' ? value : JSON.stringify(value ?? null),
    SENSITIVE,
  );
  return text.length <= MAX_OBSERVED_LENGTH ? text : `${text.slice(0, MAX_OBSERVED_LENGTH - 1)}…`;
}

/** A credential's field (`…SecretRef`, `password`), or a value that holds one anywhere within it. */
function isSecret(path: string, value: unknown): boolean {
  const secretName = (name: string) => name.endsWith('SecretRef') || isCredentialField(name);
  return path.split('.').some(secretName) || holds(value, secretName);
}

function holds(value: unknown, secretName: (name: string) => boolean): boolean {
  if (Array.isArray(value)) return value.some((item) => holds(item, secretName));
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, inner]) => secretName(key) || holds(inner, secretName));
}
