import { describe, expect, it } from 'vitest';
import { passwordHashes } from '../../../src/cloud/password-hash.ts';

describe('passwordHashes', () => {
  it('gives base64 SHA-256 and the hex double SHA-1 that MySQL stores for the same password', () => {
    // MySQL's PASSWORD('password') is *2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19: a published vector.
    expect(passwordHashes('password')).toEqual({
      newPasswordHash: 'XohImNooBHFR0OVvjcYpJ3NgPQ1qq73WKhHvch0VQtg=',
      newDoubleSha1Hash: '2470c0c06dee42fd1618bb99005adca2ec9d1e19',
    });
  });
});
