import { isCredentialField } from '../base/credential-fields.ts';
import type { RecordedWrite } from '../base/recorded-writes.ts';
import type { FieldChange } from '../managed/index.ts';

/** What a plan prints in place of a secret value. */
export const SENSITIVE = '(sensitive)';

/** One call the operator would send, as the plan shows it. */
export interface PlannedCall {
  method: string;
  /** The request path as it would be sent; an id not known yet reads `<id of Kind namespace/name>`. */
  path: string;
  /** The request body with every secret value replaced by `(sensitive)`. */
  body?: unknown;
  /** The call sends credentials (a password, a key): shown as a credentials change, never by value. */
  credentials: boolean;
}

/**
 * Besides the fields every log redacts, those that carry a password in another form: a hash of a password
 * lets anyone test guesses of it.
 */
const sensitiveField = (key: string) => isCredentialField(key) || /password|hash/i.test(key);

/** A recorded write as the plan shows it: secret values masked, placeholder ids readable in the path. */
export function plannedCall(write: RecordedWrite, secretValues: readonly string[] = []): PlannedCall {
  const masked = { found: false };
  const body = write.body === undefined ? undefined : mask(write.body, new Set(secretValues), masked);
  return {
    method: write.method,
    path: write.path.replace(/%3C[^/]*?%3E/gi, (encoded) => decodeURIComponent(encoded)),
    ...(body === undefined ? {} : { body }),
    credentials: masked.found,
  };
}

/**
 * A field change as the plan shows it: a field named like a secret shows neither value, and any value equal
 * to a referenced Secret's is masked as in a call's body.
 */
export function plannedChange(change: FieldChange, secretValues: readonly string[] = []): FieldChange {
  if (change.field.split('.').some(sensitiveField)) return { field: change.field };
  const secrets = new Set(secretValues);
  const masked = { found: false };
  return Object.fromEntries(
    Object.entries(change).map(([key, value]) => [
      key,
      key === 'field' ? value : mask(value, secrets, masked),
    ]),
  ) as unknown as FieldChange;
}

/** `value` with every field named like a secret, and every string equal to a referenced Secret's value, masked. */
function mask(value: unknown, secrets: ReadonlySet<string>, masked: { found: boolean }): unknown {
  if (typeof value === 'string' && value.length > 0 && secrets.has(value)) {
    masked.found = true;
    return SENSITIVE;
  }
  if (Array.isArray(value)) return value.map((item) => mask(item, secrets, masked));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => {
      if (!sensitiveField(key)) return [key, mask(inner, secrets, masked)];
      masked.found = true;
      return [key, SENSITIVE];
    }),
  );
}
