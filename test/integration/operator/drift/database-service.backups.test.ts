/**
 * spec.backups on the real apiserver: the policy sent as the minimal backup configuration PATCH, a change made
 * in the console put back (or only reported under the field policy), and status.backups read from the
 * service's backups list at the drift interval, never a GET per backup.
 */
import { describe, expect, it } from 'vitest';
import type { DatabaseService } from '../../../../src/kinds/database-service/schema.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { isReady, useOperatorEnv, writes, type CallRecord, QUOTA_MODES } from '../support.ts';

const SERVICE = '/v1/organizations/:organizationId/services/:serviceId';
const BACKUP_CONFIGURATION = `${SERVICE}/backupConfiguration`;
const TIMEOUT = 90_000;
const FAST = { 'sluice.dev/sync-interval': '1s' };

const backupPatches = (calls: CallRecord[]) =>
  writes(calls).filter((c) => c.route === BACKUP_CONFIGURATION && c.status === 200);
const drifted = (path: string, observed: string) => (r: DatabaseService | undefined) =>
  (r?.status?.drift ?? []).some((entry) => entry.path === path && entry.observed === observed);

describe.skipIf(clusterSkipReason()).each(QUOTA_MODES)(
  'DatabaseService spec.backups ($mode)',
  ({ lifted, emulator, operator }) => {
    const env = useOperatorEnv(`dbs-bk${lifted ? '' : 'q'}`, { emulator, operator });

    it(
      'sends the policy as one minimal PATCH, shows the latest finished backup, and puts a console change back',
      async () => {
        await env.clearCalls();
        const backups = { periodInHours: 12, retentionInHours: 72 };
        await env.apply('nightly', { name: 'nightly', backups } as Partial<DatabaseService['spec']>, FAST);
        const ready = await env.waitFor('nightly', 'Ready', isReady, 30_000);
        const id = ready.status!.id!;
        expect(backupPatches(await env.calls()).map((c) => c.body)).toEqual([
          { backupPeriodInHours: 12, backupRetentionPeriodInHours: 72 },
        ]);
        expect(await env.cloud.getBackupConfiguration(id)).toEqual({
          backupPeriodInHours: 12,
          backupRetentionPeriodInHours: 72,
          backupStartTime: null,
        });

        // The backup taken at creation finishes a minute later on the cloud's clock.
        await env.setClock({ offsetMs: 61_000 });
        const [latest] = await env.cloud.listBackups(id);
        const shown = await env.waitFor(
          'nightly',
          'the finished backup in status.backups',
          (r) => r?.status?.backups?.latestBackupId === latest!.id,
          30_000,
        );
        expect(shown.status!.backups).toEqual({
          latestBackupId: latest!.id,
          latestBackupTime: latest!.startedAt,
          kept: 1,
        });

        // Someone shortens the retention in the console: one PATCH puts back exactly that field.
        await env.cloud.updateBackupConfiguration(id, { backupRetentionPeriodInHours: 24 });
        await env.clearCalls();
        await expect
          .poll(async () => (await env.cloud.getBackupConfiguration(id)).backupRetentionPeriodInHours, {
            timeout: 30_000,
            interval: 250,
          })
          .toBe(72);
        const calls = await env.calls();
        expect(backupPatches(calls).map((c) => c.body)).toEqual([{ backupRetentionPeriodInHours: 72 }]);
        // Backups are read by list: never one GET per backup.
        expect(calls.filter((c) => c.route === `${SERVICE}/backups/:backupId`)).toEqual([]);
      },
      TIMEOUT,
    );

    it(
      'under reportOnly a console change of the retention is drift in status and never corrected',
      async () => {
        const spec = {
          name: 'reported',
          backups: { retentionInHours: 48 },
          fieldPolicy: { reportOnly: ['backups.retentionInHours'] },
        };
        // reportOnly: the spec's retention is never sent, not even the first time.
        await env.apply('reported', spec as Partial<DatabaseService['spec']>, FAST);
        const id = (await env.waitFor('reported', 'Ready', isReady, 30_000)).status!.id!;
        await env.cloud.updateBackupConfiguration(id, { backupRetentionPeriodInHours: 96 });
        const seen = await env.waitFor(
          'reported',
          'the retention in status.drift',
          drifted('backups.retentionInHours', '96'),
          30_000,
        );
        expect(seen.status!.drift).toEqual([
          { path: 'backups.retentionInHours', observed: '96', since: expect.any(String) },
        ]);
        await env.clearCalls();
        await env.lookedAgain('DatabaseService');
        expect(backupPatches(await env.calls())).toEqual([]);
        expect((await env.cloud.getBackupConfiguration(id)).backupRetentionPeriodInHours).toBe(96);
      },
      TIMEOUT,
    );
  },
);
