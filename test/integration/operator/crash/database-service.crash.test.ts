import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import {
  baseSpec,
  crashDuringCreate,
  isReady,
  startOperatorEnv,
  useOperatorEnv,
  type OperatorEnv,
} from '../support.ts';

const SERVICES = '/v1/organizations/:organizationId/services';

describe.skipIf(clusterSkipReason())('crash-safe create', () => {
  let env: OperatorEnv;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    env = await startOperatorEnv('dbs-crash');
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await env?.close();
  });

  it('after a kill -9 between the create call and the status write, exactly one service exists and is adopted', async () => {
    // The emulator creates the service but holds its answer back, so the operator dies knowing no id.
    await env.fault({ method: 'POST', route: SERVICES, phase: 'response', latencyMs: 60_000 });
    child = env.spawnOperator();
    await env.apply('phoenix', { name: 'phoenix' });

    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && (await env.cloud.listServices()).length === 0) {
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    expect(await env.cloud.listServices()).toHaveLength(1);
    expect((await env.get('phoenix'))!.status?.id).toBeUndefined();

    await env.fault();
    await env.startOperator();
    const ready = await env.waitFor('phoenix', 'Ready after restart', isReady);

    const services = await env.cloud.listServices();
    expect(services.map((s) => s.id)).toEqual([ready.status!.id]);
    const posts = (await env.calls()).filter((c) => c.method === 'POST' && c.route === SERVICES);
    expect(posts).toHaveLength(1);
    // The password died with the first process; the adopted service gets a fresh one by reset.
    expect((await env.secret('phoenix-connection'))!.password).toBeTruthy();
  });
});

describe.skipIf(clusterSkipReason())('crash-safe create from a backup', () => {
  const env = useOperatorEnv('dbs-restore-crash', { operator: false });

  it('after a kill -9 between the restoring create and the status write, status.restoredFromBackup names the backup the lost create used', async () => {
    await env.startOperator();
    await env.apply('original', { name: 'original' });
    const originalId = (await env.waitFor('original', 'Ready', isReady)).status!.id!;
    await env.stopOperator();
    // The backup taken at the original's creation is finished a minute later on the cloud's clock.
    await env.setClock({ offsetMs: 2 * 60_000 });
    const [backup] = (await env.cloud.listBackups(originalId)).filter((b) => b.status === 'done');
    const copies = () => [...env.emulator.store.services.values()].filter((s) => s.name === 'copy');

    const { orphaned, ready } = await crashDuringCreate(
      env,
      {
        kind: 'DatabaseService',
        name: 'copy',
        spec: { ...baseSpec, name: 'copy', restore: { fromBackupOf: 'original' } },
      },
      { route: SERVICES, created: () => copies().length, count: 1 },
    );
    // The create reached the cloud with the backup; the process died before status knew of it.
    expect(orphaned.status?.id).toBeUndefined();
    expect(orphaned.status?.restoredFromBackup).toBeUndefined();
    const recorded = { id: backup!.id, of: 'original', serviceId: originalId };
    expect(JSON.parse(orphaned.metadata.annotations!['sluice.dev/create-status']!)).toEqual({
      restoredFromBackup: recorded,
    });
    expect(copies().map((s) => s.backupId)).toEqual([backup!.id]);

    // Adopted, not created again, and status names the backup that create used.
    expect(ready.status!.id).toBe(copies()[0]!.id);
    expect(ready.status!.restoredFromBackup).toEqual(recorded);
    expect((await env.calls()).filter((c) => c.method === 'POST' && c.route === SERVICES)).toEqual([]);
    // The next reconcile, with the id in status, spends the intent and what was recorded with it.
    await env.freshLook('DatabaseService', 'copy');
    const spent = (await env.get('copy'))!;
    expect(Object.keys(spent.metadata.annotations ?? {})).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^sluice\.dev\/create-/)]),
    );
    expect(spent.status!.restoredFromBackup).toEqual(recorded);
  });
});
