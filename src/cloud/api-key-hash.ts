import { createHash, randomBytes } from 'node:crypto';
import type { ApiKeyHashData } from './schemas/api-key.ts';

/** A management key's Basic credentials: what a credentials Secret holds as `keyId` and `keySecret`. */
export interface KeyIdentity {
  keyId: string;
  keySecret: string;
}

export const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A key id and secret shaped like the cloud's: 20 letters and digits, and a `4b1d`-prefixed secret. */
export function newKeyIdentity(): KeyIdentity {
  const keyId = randomBytes(15).toString('base64url').replace(/[-_]/g, 'x').slice(0, 20);
  return { keyId, keySecret: `4b1d${randomBytes(27).toString('base64url')}` };
}

/** The create's `hashData` for a key made by the caller: the secret itself is never sent. */
export function apiKeyHashData(identity: KeyIdentity): ApiKeyHashData {
  return {
    keyIdHash: sha256Hex(identity.keyId),
    keyIdSuffix: identity.keyId.slice(-4),
    keySecretHash: sha256Hex(identity.keySecret),
  };
}
