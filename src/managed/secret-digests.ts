import { createHmac, hkdfSync } from 'node:crypto';

/**
 * The key that status digests of Secret values are made with: a keyed hash, so that reading status does not
 * let anyone test guesses of a password. `id` is a fingerprint of the key that may be shown; a new `id`
 * means digests made before cannot be compared any more.
 */
export interface DigestKey {
  readonly key: Buffer;
  readonly id: string;
}

/** Fixed labels: the same credentials give the same key in every process, and a key for nothing else. */
const KEY_LABEL = 'sluice.dev/secret-digests/v1';
const ID_LABEL = 'sluice.dev/secret-digests/key-id';

/**
 * Derives the digest key (HKDF-SHA-256) from a secret the operator already holds for the resource (its
 * credentials): stable across restarts and leader hand-overs, and nothing new to create or store.
 */
export function deriveDigestKey(secret: string): DigestKey {
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), KEY_LABEL, 32));
  const id = createHmac('sha256', key).update(ID_LABEL).digest('base64url').slice(0, 16);
  return { key, id };
}

/**
 * HMAC-SHA-256 of the values one spec field uses, bound to the field (equal values under two fields do not
 * show as equal digests). Key order does not matter.
 */
export function digestOf(key: DigestKey, field: string, values: Readonly<Record<string, string>>): string {
  const entries = Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHmac('sha256', key.key)
    .update(JSON.stringify([field, entries]))
    .digest('base64url');
}
