import { isCredentialField, urlCredentials, withoutUrlCredentials } from '../base/credential-fields.ts';

/**
 * Credentials kept out of what the cloud clients log and report (and out of the emulator's call log): fields
 * named like credentials (src/base/credential-fields.ts) are replaced, and known secret values scrubbed from text.
 */

export const REDACTED = '[REDACTED]';

/**
 * A deep copy of `value` with every credential-named field replaced by `[REDACTED]` (any depth). Used before
 * a request or response body goes near a log line.
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 32) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  // Only plain data is copied: an Error or a Date keeps what its serializer shows (message, stack).
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      out[key] = isCredentialField(key) ? REDACTED : redactSecrets(inner, depth + 1);
    }
    return out;
  }
  // A URL's user and password, under a field of any name.
  if (typeof value === 'string') return withoutUrlCredentials(value, REDACTED);
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Every string value held under a credential-named field, and every URL's password (any depth): the values
 * to scrub from text.
 */
export function collectSecrets(
  value: unknown,
  into: Set<string> = new Set(),
  underSecret = false,
  depth = 0,
): Set<string> {
  if (depth > 32) return into;
  if (typeof value === 'string') {
    if (underSecret && value.length >= 1) into.add(value);
    for (const credential of urlCredentials(value)) into.add(credential);
  } else if (Array.isArray(value)) {
    for (const item of value) collectSecrets(item, into, underSecret, depth + 1);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      collectSecrets(inner, into, underSecret || isCredentialField(key), depth + 1);
    }
  }
  return into;
}

/**
 * `text` with every occurrence of a secret (and of its base64 and URL-encoded forms) replaced, and the user
 * and password of every URL in it. Secrets shorter than 4 characters are skipped: replacing them would
 * shred ordinary words and they are not worth anything to an attacker anyway.
 */
export function scrub(text: string, secrets: Iterable<string>): string {
  let out = withoutUrlCredentials(text, REDACTED);
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    for (const form of encodedForms(secret)) {
      if (out.includes(form)) out = out.split(form).join(REDACTED);
    }
  }
  return out;
}

/** The shortest base64 run kept as a form of a secret (as for secrets themselves): shorter ones match words. */
const MIN_BASE64_FORM = 4;

/**
 * The ways a secret shows up in text: as is, URL-encoded, JSON-escaped, and base64 (standard and URL-safe)
 * wherever it sits in the encoded bytes. Inside a longer base64 text (`Basic base64(user:secret)`) the
 * secret's characters depend on its offset modulo 3, so each of the three offsets gives the run of
 * characters that encode the secret's bytes alone.
 */
export function encodedForms(secret: string): Set<string> {
  const forms = new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]);
  const bytes = Buffer.from(secret, 'utf8');
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    // Characters carry 6 bits: skip those holding bits of the padding before, and the last partial one.
    const run = encoded.slice(Math.ceil((offset * 8) / 6), Math.floor(((offset + bytes.length) * 8) / 6));
    if (run.length < MIN_BASE64_FORM) continue;
    forms.add(run);
    forms.add(run.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}
