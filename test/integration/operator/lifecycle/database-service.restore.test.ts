/**
 * spec.restore.fromBackupOf on the real apiserver: the create waits until the named DatabaseService has a
 * finished backup, then carries its latest backup's id; status.restoredFromBackup records it; a later change
 * of spec.restore restores nothing again; and another region than the original's is refused naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseService } from '../../../../src/kinds/database-service/schema.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { condition, isReady, startOperatorEnv, type CallRecord, type OperatorEnv } from '../support.ts';

const SERVICES = '/v1/organizations/:organizationId/services';
const TIMEOUT = 120_000;
const HOUR_MS = 3_600_000;

/** The create calls the cloud answered for the service named `name`. */
const creates = (calls: CallRecord[], name: string) =>
  calls.filter(
    (c) =>
      c.method === 'POST' &&
      c.route === SERVICES &&
      c.status < 300 &&
      (c.body as { name?: string } | undefined)?.name === name,
  );
const spec = (fields: Record<string, unknown>) => fields as Partial<DatabaseService['spec']>;

// Quota lifted, on the host's clock: the test moves the cloud's clock itself, so the backups the original has
// at each step are known.
describe.skipIf(clusterSkipReason())('DatabaseService spec.restore.fromBackupOf', () => {
  let env: OperatorEnv;
  let originalId: string;

  beforeAll(async () => {
    env = await startOperatorEnv('dbs-restore');
    await env.startOperator();
    // A backup at creation, then one every 6 hours, kept 2 days.
    await env.apply(
      'original',
      spec({ name: 'original', backups: { periodInHours: 6, retentionInHours: 48 } }),
    );
    originalId = (await env.waitFor('original', 'Ready', isReady, 30_000)).status!.id!;
  }, TIMEOUT);
  afterAll(async () => env?.close());

  it(
    'waits for a finished backup, creates from the latest one, records it in status, and never restores again',
    async () => {
      await env.clearCalls();
      await env.apply('copy', spec({ name: 'copy', restore: { fromBackupOf: 'original' } }));
      // The backup taken at the original's creation is still running: nothing is created yet.
      const waiting = await env.waitFor(
        'copy',
        'the wait for a backup',
        (r) => condition(r, 'Ready')?.message === 'DatabaseService original has no finished backup yet',
        30_000,
      );
      expect(condition(waiting, 'Ready')?.reason).toBe('WaitingForReference');
      expect(waiting.status?.id).toBeUndefined();
      expect(creates(await env.calls(), 'copy')).toEqual([]);

      // Six hours on: the creation's backup and the next one are finished; the newer one is the latest.
      await env.setClock({ offsetMs: 6 * HOUR_MS + 2 * 60_000 });
      const finished = (await env.cloud.listBackups(originalId)).filter((b) => b.status === 'done');
      expect(finished.length).toBeGreaterThanOrEqual(2);
      const latest = finished[0]!;
      await env.freshLook('DatabaseService', 'copy');
      const ready = await env.waitFor('copy', 'Ready', isReady, 60_000);
      expect(
        creates(await env.calls(), 'copy').map((c) => (c.body as { backupId?: string }).backupId),
      ).toEqual([latest.id]);
      expect(ready.status!.restoredFromBackup).toEqual({
        id: latest.id,
        of: 'original',
        serviceId: originalId,
      });
      expect((await env.cloud.getService(ready.status!.id!)).name).toBe('copy');

      // Create-only: naming another service afterwards restores nothing and keeps the record.
      await env.clearCalls();
      await env.patchSpec('copy', { restore: { fromBackupOf: 'elsewhere' } });
      await env.freshLook('DatabaseService', 'copy');
      const after = await env.get('copy');
      expect(isReady(after)).toBe(true);
      expect(after!.status!.restoredFromBackup).toEqual(ready.status!.restoredFromBackup);
      expect(creates(await env.calls(), 'copy')).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    "refuses a restore into another region than the original's, naming spec.restore.fromBackupOf",
    async () => {
      await env.clearCalls();
      await env.apply(
        'faraway',
        spec({ name: 'faraway', region: 'eu-west-1', restore: { fromBackupOf: 'original' } }),
      );
      const refused = await env.waitFor(
        'faraway',
        'Synced=False',
        (r) => condition(r, 'Synced')?.status === 'False',
        30_000,
      );
      expect(condition(refused, 'Synced')).toMatchObject({
        reason: 'InvalidReference',
        message:
          'spec.restore.fromBackupOf: DatabaseService original runs in region us-east-1; a service restored from its backup must be in the same region, not eu-west-1',
      });
      expect(refused.status?.id).toBeUndefined();
      expect(creates(await env.calls(), 'faraway')).toEqual([]);
    },
    TIMEOUT,
  );
});
