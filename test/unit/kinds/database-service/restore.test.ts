import { describe, expect, it } from 'vitest';
import type { DatabaseServiceSpec } from '../../../../src/kinds/database-service/schema.ts';
import type { Service } from '../../../../src/cloud/schemas/service.ts';
import type { Backup } from '../../../../src/cloud/schemas/lifecycle.ts';
import {
  latestFinishedBackup,
  restoreMismatch,
  serviceCreateBody,
} from '../../../../src/kinds/database-service/mapping.ts';

const spec = (extra: Partial<DatabaseServiceSpec> = {}): DatabaseServiceSpec => ({
  name: 'restored',
  provider: 'aws',
  region: 'us-east-1',
  state: 'Running',
  deletionPolicy: 'Orphan',
  ...extra,
});
const original = (extra: Partial<Service> = {}): Service => ({
  id: 'svc-1',
  name: 'analytics',
  region: 'us-east-1',
  ...extra,
});
const backup = (id: string, status: Backup['status'], startedAt: string): Backup => ({
  id,
  status,
  serviceId: 'svc-1',
  startedAt,
});
const RESTORE_POINT = { id: '6f1e4c2a-1b2c-4d3e-8f40-5a6b7c8d9e0f', of: 'analytics', serviceId: 'svc-1' };

describe('restoring a DatabaseService from the backup of another', () => {
  it('sends the resolved backup as the create body backupId, and nothing of spec.restore', () => {
    const body = serviceCreateBody(spec({ restore: { fromBackupOf: 'analytics' } }), 'owner', RESTORE_POINT);
    expect(body.backupId).toBe(RESTORE_POINT.id);
    expect(body).not.toHaveProperty('restore');
  });

  it('sends spec.backupId unchanged when no restore point is given, and no backupId without either', () => {
    const backupId = '11111111-2222-4333-8444-555555555555';
    expect(serviceCreateBody(spec({ backupId }), 'owner').backupId).toBe(backupId);
    expect(serviceCreateBody(spec(), 'owner')).not.toHaveProperty('backupId');
  });

  it('takes the finished backup that started last, whatever the order listed, skipping one still running', () => {
    const listed = [
      backup('b1', 'done', '2026-01-01T00:00:00Z'),
      backup('b3', 'in_progress', '2026-01-01T12:00:00Z'),
      backup('b2', 'done', '2026-01-01T06:00:00Z'),
      backup('b0', 'done', '2025-12-31T18:00:00Z'),
    ];
    expect(latestFinishedBackup(listed)?.id).toBe('b2');
    expect(latestFinishedBackup([backup('b1', 'in_progress', '2026-01-01T00:00:00Z')])).toBeUndefined();
  });

  it('refuses another region or tier than the original service, naming spec.restore.fromBackupOf', () => {
    const restoring = spec({ restore: { fromBackupOf: 'analytics' } });
    expect(restoreMismatch(restoring, original())).toBeUndefined();
    expect(restoreMismatch(restoring, original({ region: 'eu-west-1' }))).toMatch(
      /^spec\.restore\.fromBackupOf: DatabaseService analytics runs in region eu-west-1; .* not us-east-1$/,
    );
    expect(restoreMismatch(restoring, original({ tier: 'production' }))).toMatch(
      /^spec\.restore\.fromBackupOf: DatabaseService analytics has tier production; .* not none$/,
    );
  });
});
