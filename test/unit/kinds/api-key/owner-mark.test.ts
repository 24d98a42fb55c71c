import { describe, expect, it } from 'vitest';
import { exportApiKey } from '../../../../src/kinds/api-key/mapping.ts';
import {
  cloudKeyName,
  isRecordedFor,
  ownerMark,
  unmarkedName,
} from '../../../../src/kinds/api-key/owner-mark.ts';

const OWNER = { cluster: 'prod', namespace: 'shop', kind: 'ApiKey', name: 'team' };

describe("a key's owner record, kept as a mark on its name", () => {
  it('marks the name with a digest of the owner record, and reads it back for that owner alone', () => {
    const name = cloudKeyName('team analytics', OWNER);
    expect(name).toMatch(/^team analytics #[0-9a-f]{8}$/);
    expect(isRecordedFor(name, OWNER)).toBe(true);
    for (const other of [
      { ...OWNER, cluster: 'staging' },
      { ...OWNER, namespace: 'other' },
      { ...OWNER, name: 'team-b' },
    ]) {
      expect(isRecordedFor(name, other)).toBe(false);
    }
    expect(isRecordedFor('team analytics', OWNER)).toBe(false);
  });

  it('cuts a long name to leave room for the mark within the cloud’s 50 characters', () => {
    const name = cloudKeyName('x'.repeat(50), OWNER);
    expect(name).toHaveLength(50);
    expect(name.endsWith(ownerMark(OWNER))).toBe(true);
  });

  it('gives back the name as a spec writes it, and exports it without the mark', () => {
    expect(unmarkedName(cloudKeyName('team analytics', OWNER))).toBe('team analytics');
    expect(unmarkedName('made in the console')).toBe('made in the console');
    const key = {
      id: '6f1c1d2e-0000-4000-8000-000000000042',
      name: cloudKeyName('team analytics', OWNER),
      state: 'enabled' as const,
      roles: ['developer'],
      keySuffix: 'wxyz',
      createdAt: '2026-11-27T10:00:00.000Z',
    };
    expect(exportApiKey(key, 'team-credentials').spec).toMatchObject({ name: 'team analytics' });
  });
});
