import { createHash } from 'node:crypto';

/** The forms in which the management API takes a password it is never sent. */
export interface PasswordHashes {
  /** base64 of SHA-256(password). */
  newPasswordHash: string;
  /** hex of SHA-1(SHA-1(password)): what the MySQL protocol checks against. */
  newDoubleSha1Hash: string;
}

export function passwordHashes(password: string): PasswordHashes {
  const sha1 = createHash('sha1').update(password, 'utf8').digest();
  return {
    newPasswordHash: createHash('sha256').update(password, 'utf8').digest('base64'),
    newDoubleSha1Hash: createHash('sha1').update(sha1).digest('hex'),
  };
}
