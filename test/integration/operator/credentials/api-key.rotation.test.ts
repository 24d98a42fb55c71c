import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { KEY, KEYS, teamKey } from '../../../../tools/fixtures/api-key.ts';
import {
  COMPRESSED_QUOTA_MODE,
  REAL_QUOTA_MODE,
  isReady,
  startOperatorEnv,
  type CallRecord,
  type OperatorEnv,
  type QuotaMode,
  type SluiceObject,
} from '../support.ts';

const SERVICES = ['orders', 'events', 'billing'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SECRET = 'team-credentials';

/** The rotation's figures from the emulator's call log, printed for the record and asserted on. */
function figures(calls: CallRecord[], oldKeyId: string, newKeyId: string, rotatedAt: number) {
  const since = calls.filter((c) => Date.parse(c.timestamp) >= rotatedAt);
  const withOld = since.filter((c) => c.key === oldKeyId);
  const withNew = since.filter((c) => c.key === newKeyId);
  const lastOld = withOld.at(-1);
  return {
    callsWithOldKeySinceRotate: withOld.length,
    callsWithNewKey: withNew.length,
    msFromRotateToLastOldKeyCall: lastOld ? Date.parse(lastOld.timestamp) - rotatedAt : 0,
    unauthorized: calls.filter((c) => c.status === 401).length,
    rateLimited: calls.filter((c) => c.status === 429).length,
  };
}

/**
 * Services that sign in with an ApiKey's Secret, each drift-checked every 2 s (more than one key's quota
 * allows, so the quota scheduler is what paces them), keep reconciling while the key rotates.
 */
describe.skipIf(clusterSkipReason()).each([
  { quota: REAL_QUOTA_MODE, rotation: { gracePeriod: '20s' }, grace: 'a 20 s grace period' },
  { quota: COMPRESSED_QUOTA_MODE, rotation: {}, grace: 'the default grace period (10 m, 60 s on 10× time)' },
] satisfies { quota: QuotaMode; rotation: Record<string, string>; grace: string }[])(
  'ApiKey rotation under $quota.mode, $grace',
  ({ quota, rotation }) => {
    let env: OperatorEnv;
    const keys = () => env.of<SluiceObject>('ApiKey');

    beforeAll(async () => {
      env = await startOperatorEnv('key-rotation', quota.emulator);
      await env.startOperator(quota.operator);
    });
    afterAll(async () => env?.close());

    it('switches every object to the new key with not one 401 or 429, then deletes the old key', async () => {
      await keys().apply('team', teamKey('team', { credentialsSecret: { name: SECRET }, rotation }));
      const made = await keys().waitFor('team', 'Ready', (o) => isReady(o) && o?.status?.id !== undefined);
      const oldId = made.status!.id as string;
      const oldKeyId = (await env.secret(SECRET))!.keyId!;
      for (const name of SERVICES) {
        await env.apply(
          name,
          { name, credentialsRef: { name: SECRET } },
          { 'sluice.dev/sync-interval': '2s' },
        );
      }
      for (const name of SERVICES) await env.waitFor(name, 'Ready', isReady, 60_000);

      // Edits keep coming, one a second, more than the key's 10 calls / 10 s serve: calls queue on the old key.
      let editing = true;
      const edits = (async () => {
        for (let n = 1; editing; n++) {
          await env.patchSpec(SERVICES[n % SERVICES.length]!, { idleTimeoutMinutes: 5 + n });
          await sleep(1_000);
        }
      })();
      await env.waitFor(
        SERVICES[1]!,
        'the first edit made',
        // At least: under the quota a reconcile takes up every edit made while it waited, so the status can
        // go from the first generation straight past the second.
        (o) => (o?.status?.observedGeneration ?? 0) >= 2,
        60_000,
      );

      const rotatedAt = Date.now();
      await keys().annotate('team', { 'sluice.dev/rotate': 'first' });
      const rotating = await keys().waitFor(
        'team',
        'the new key in status',
        (o) => o?.status?.previousKeyId === oldId,
      );
      const newId = rotating.status!.id as string;
      expect(newId).not.toBe(oldId);
      // While the old key works, status says when it goes.
      const switched = await keys().waitFor(
        'team',
        'the deletion dated',
        (o) => !!o?.status?.previousKeyDeleteAt,
      );
      const secret = (await env.secret(SECRET))!;
      expect(secret.keyId!.slice(-4)).toBe(switched.status!.keySuffix);
      const newKeyId = secret.keyId!;
      expect(newKeyId).not.toBe(oldKeyId);

      const done = await keys().waitFor(
        'team',
        'the old key deleted',
        (o) => o?.status?.previousKeyId === undefined && o?.status?.lastRotation === 'first',
        180_000,
      );
      const deletedAt = Date.now();
      editing = false;
      await edits;
      for (const name of SERVICES) {
        await env.waitFor(
          name,
          'the last edit applied',
          (o) => isReady(o) && o?.status?.observedGeneration === o?.metadata.generation,
          120_000,
        );
      }
      expect(done.status!.id).toBe(newId);
      expect(env.emulator.store.apiKeys.has(oldId)).toBe(false);
      expect(env.emulator.store.apiKeys.has(newId)).toBe(true);

      const during = await env.calls();

      // Each object reads the cloud afresh after the deletion: all of them with the new key, and fine.
      await env.clearCalls();
      for (const name of SERVICES) await env.freshLook('DatabaseService', name);
      for (const name of SERVICES) expect(isReady(await env.get(name)), name).toBe(true);
      const after = await env.calls();
      const serviceReads = after.filter((c) => c.route.includes('/services'));
      expect(serviceReads.length).toBeGreaterThan(0);
      expect(serviceReads.every((c) => c.key === newKeyId && c.status === 200)).toBe(true);
      expect(after.filter((c) => c.key === oldKeyId)).toEqual([]);

      const counted = figures([...during, ...after], oldKeyId, newKeyId, rotatedAt);
      const lastOld = during.filter((c) => c.key === oldKeyId).at(-1);
      // sluice's own clients left the old key before it was deleted.
      expect(Date.parse(lastOld!.timestamp)).toBeLessThan(deletedAt);
      const keyCalls = during.filter((c) => c.route === KEYS || c.route === KEY);
      expect(keyCalls.filter((c) => c.method === 'POST')).toHaveLength(2);
      expect(keyCalls.filter((c) => c.method === 'DELETE').map((c) => c.path.split('/').at(-1))).toEqual([
        oldId,
      ]);
      console.log(
        `ApiKey rotation (${quota.mode}): ${JSON.stringify({ ...counted, msFromRotateToOldKeyDeleted: deletedAt - rotatedAt })}`,
      );
      expect(counted.unauthorized).toBe(0);
      expect(counted.rateLimited).toBe(0);
      expect(counted.callsWithNewKey).toBeGreaterThan(0);
    }, 300_000);
  },
);
