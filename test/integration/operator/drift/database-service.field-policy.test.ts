import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseService } from '../../../../src/kinds/database-service/schema.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { until } from '../../../support/wait.ts';
import {
  condition,
  isReady,
  startOperatorEnv,
  writes,
  type CallRecord,
  type OperatorEnv,
  QUOTA_MODES,
  useOperatorEnv,
} from '../support.ts';
import { planDocuments } from '../plan-in-process.ts';

const SERVICES = '/v1/organizations/:organizationId/services';
const SERVICE = `${SERVICES}/:serviceId`;
const TIMEOUT = 90_000;
const FAST = { 'sluice.dev/sync-interval': '1s' };

type Drift = { path: string; observed: string; since: string }[];
const driftOf = (r: DatabaseService | undefined) => (r?.status?.drift ?? []) as Drift;
const drifted = (path: string) => (r: DatabaseService | undefined) =>
  driftOf(r).some((entry) => entry.path === path);

/**
 * Writes the cloud accepted: under the real limit a call may first be refused with a 429 (the test's own
 * client retries), which changes nothing.
 */
const accepted = (calls: CallRecord[]) => writes(calls).filter((c) => c.status >= 200 && c.status < 300);

/** The operator's writes after the test's own out-of-band change (the first accepted write since the clear). */
async function operatorWrites(env: OperatorEnv) {
  return accepted(await env.calls()).slice(1);
}

describe.skipIf(clusterSkipReason()).each(QUOTA_MODES)(
  'DatabaseService spec.fieldPolicy ($mode)',
  ({ lifted, emulator, operator }) => {
    let env: OperatorEnv;
    const prefix = lifted ? 'fp' : 'fpq';

    beforeAll(async () => {
      env = await startOperatorEnv(`dbs-${prefix}`, emulator);
      await env.startOperator(operator);
    });
    afterAll(async () => env?.close());

    it(
      'sends a createOnly field in the create, then leaves the cloud’s value: no call, drift in status, Ready',
      async () => {
        await env.clearCalls();
        await env.apply(
          'sized',
          {
            name: 'sized',
            minReplicaMemoryGb: 8,
            maxReplicaMemoryGb: 16,
            fieldPolicy: { createOnly: ['maxReplicaMemoryGb'] },
          } as Partial<DatabaseService['spec']>,
          FAST,
        );
        const id = (await env.waitFor('sized', 'Ready', isReady, 30_000)).status!.id!;
        const create = (await env.calls()).find((c) => c.method === 'POST' && c.route === SERVICES);
        expect(create?.body).toMatchObject({ maxReplicaMemoryGb: 16 });

        // On call, someone raises the memory in the console.
        await env.cloud.updateReplicaScaling(id, { maxReplicaMemoryGb: 32 });
        const seen = await env.waitFor(
          'sized',
          'the raise in status.drift',
          drifted('maxReplicaMemoryGb'),
          30_000,
        );
        expect(driftOf(seen)).toEqual([
          { path: 'maxReplicaMemoryGb', observed: '32', since: expect.any(String) },
        ]);
        expect(seen.status!.driftCount).toBe(1);
        expect(condition(seen, 'Ready')).toMatchObject({
          status: 'True',
          reason: 'Available',
          message: '1 field differs from the spec, as the field policy allows: maxReplicaMemoryGb',
        });

        await env.clearCalls();
        await env.lookedAgain('DatabaseService');
        expect(writes(await env.calls())).toEqual([]);
        expect((await env.cloud.getService(id)).maxReplicaMemoryGb).toBe(32);
        expect(driftOf(await env.get('sized'))[0]!.since).toBe(driftOf(seen)[0]!.since);
      },
      TIMEOUT,
    );

    it(
      'reports a reportOnly field and never corrects it, while it corrects an enforced one with one PATCH',
      async () => {
        await env.apply(
          'tagged',
          {
            name: 'tagged',
            tags: [{ key: 'team', value: 'data' }],
            fieldPolicy: { reportOnly: ['tags'] },
          } as Partial<DatabaseService['spec']>,
          FAST,
        );
        const id = (await env.waitFor('tagged', 'Ready', isReady, 30_000)).status!.id!;

        await env.cloud.updateService(id, {
          tags: { add: [{ key: 'team', value: 'ops' }], remove: [{ key: 'team', value: 'data' }] },
        });
        const seen = await env.waitFor('tagged', 'the tags in status.drift', drifted('tags'), 30_000);
        expect(JSON.parse(driftOf(seen)[0]!.observed)).toEqual([{ key: 'team', value: 'ops' }]);
        expect(isReady(seen)).toBe(true);
        await env.clearCalls();
        await env.lookedAgain('DatabaseService');
        expect(writes(await env.calls())).toEqual([]);

        // The name is enforced: the one correcting PATCH carries it alone; the tags stay as the cloud has them.
        await env.clearCalls();
        await env.cloud.updateService(id, { name: 'renamed by hand' });
        await until(
          'the name put back',
          async () => (await env.cloud.getService(id)).name === 'tagged',
          30_000,
        );
        await env.lookedAgain('DatabaseService');
        const corrections = await operatorWrites(env);
        expect(corrections.map((c) => [c.method, c.route, c.body])).toEqual([
          ['PATCH', SERVICE, { name: 'tagged' }],
        ]);
        const tags = (await env.cloud.getService(id)).tags!.filter((t) => t.key === 'team');
        expect(tags).toEqual([{ key: 'team', value: 'ops' }]);
      },
      TIMEOUT,
    );

    it(
      'puts back its own entry of an additive list with an add-only edit, leaving the entry someone else added',
      async () => {
        await env.apply(
          'shared',
          {
            name: 'shared',
            ipAccessList: [{ source: '10.0.0.0/8', description: 'vpc' }],
            fieldPolicy: { additive: ['ipAccessList'] },
          } as Partial<DatabaseService['spec']>,
          FAST,
        );
        const ready = await env.waitFor('shared', 'Ready', isReady, 30_000);
        const id = ready.status!.id!;
        expect(ready.status!.managedEntries).toEqual({ ipAccessList: ['10.0.0.0/8'] });

        // A security tool swaps in an emergency entry, taking sluice's out.
        await env.clearCalls();
        await env.cloud.updateService(id, {
          ipAccessList: {
            add: [{ source: '203.0.113.7', description: 'incident' }],
            remove: [{ source: '10.0.0.0/8', description: 'vpc' }],
          },
        });
        const sources = async () =>
          ((await env.cloud.getService(id)).ipAccessList ?? []).map((e) => e.source).sort();
        await until('the entry put back', async () => (await sources()).length >= 2, 30_000);
        await env.lookedAgain('DatabaseService');
        const edits = await operatorWrites(env);
        expect(edits.map((c) => [c.method, c.route, c.body])).toEqual([
          ['PATCH', SERVICE, { ipAccessList: { add: [{ source: '10.0.0.0/8', description: 'vpc' }] } }],
        ]);
        expect(await sources()).toEqual(['10.0.0.0/8', '203.0.113.7']);
        expect(driftOf(await env.get('shared'))).toEqual([]);
      },
      TIMEOUT,
    );

    it(
      'leaves a reportOnly schedule and a createOnly upgrade-window hour to the cloud, and puts back the enforced weekday keeping that hour',
      async () => {
        const night = {
          name: 'night',
          weekdays: [0],
          startHourUtc: 22,
          endHourUtc: 6,
          minReplicas: 4,
          maxReplicas: 4,
        };
        const spec = {
          name: 'windowed',
          scalingSchedule: [night],
          upgradeWindow: { weekday: 3, startHourUtc: 12 },
          fieldPolicy: { reportOnly: ['scalingSchedule'], createOnly: ['upgradeWindow.startHourUtc'] },
        };
        await env.clearCalls();
        await env.apply('windowed', spec as Partial<DatabaseService['spec']>, FAST);
        const id = (await env.waitFor('windowed', 'Ready', isReady, 30_000)).status!.id!;
        // The createOnly hour goes out when the window is made; the reportOnly schedule never does.
        const sent = accepted(await env.calls()).filter((c) => c.route !== SERVICES);
        expect(sent.map((c) => [c.method, c.route, c.body])).toEqual([
          ['PUT', `${SERVICE}/upgradeWindow`, { weekday: 3, startHourUtc: 12 }],
        ]);

        // In the console: another start hour, and another window.
        const weekend = { ...night, name: 'weekend', weekdays: [6], startHourUtc: 0, endHourUtc: 12 };
        await env.cloud.setUpgradeWindow(id, { weekday: 3, startHourUtc: 18 });
        await env.cloud.setScalingSchedule(id, { entries: [weekend] });
        await env.clearCalls();
        const seen = await env.waitFor(
          'windowed',
          'both in status.drift',
          (r) =>
            drifted('upgradeWindow.startHourUtc')(r) &&
            driftOf(r).some((d) => d.path === 'scalingSchedule' && d.observed.includes('weekend')),
          30_000,
        );
        expect(driftOf(seen).find((d) => d.path === 'upgradeWindow.startHourUtc')?.observed).toBe('18');
        expect(isReady(seen)).toBe(true);
        await env.lookedAgain('DatabaseService');
        expect(writes(await env.calls())).toEqual([]);

        // The weekday is enforced: one PUT puts it back with the cloud's hour.
        await env.cloud.setUpgradeWindow(id, { weekday: 5, startHourUtc: 18 });
        await until(
          'the weekday put back',
          async () => (await env.cloud.getUpgradeWindow(id)).weekday === 3,
          30_000,
        );
        await env.lookedAgain('DatabaseService');
        expect((await operatorWrites(env)).map((c) => [c.method, c.route, c.body])).toEqual([
          ['PUT', `${SERVICE}/upgradeWindow`, { weekday: 3, startHourUtc: 18 }],
        ]);
        expect((await env.cloud.getScalingSchedule(id)).entries.map((e) => e.name)).toEqual(['weekend']);
      },
      TIMEOUT,
    );

    it('removes from an additive list only the entry it set that the spec dropped', async () => {
      const id = (await env.get('shared'))!.status!.id!;
      await env.clearCalls();
      await env.patchSpec('shared', { ipAccessList: [{ source: '192.168.0.0/16' }] });
      await env.waitFor(
        'shared',
        'the new entry managed',
        (r) =>
          JSON.stringify(r?.status?.managedEntries) ===
            JSON.stringify({ ipAccessList: ['192.168.0.0/16'] }) && isReady(r),
        30_000,
      );
      const edits = accepted(await env.calls());
      expect(edits.map((c) => [c.method, c.route, c.body])).toEqual([
        [
          'PATCH',
          SERVICE,
          {
            ipAccessList: {
              add: [{ source: '192.168.0.0/16' }],
              remove: [{ source: '10.0.0.0/8', description: 'vpc' }],
            },
          },
        ],
      ]);
      const sources = ((await env.cloud.getService(id)).ipAccessList ?? []).map((e) => e.source).sort();
      expect(sources).toEqual(['192.168.0.0/16', '203.0.113.7']);
    });
  },
);

describe.skipIf(clusterSkipReason())(
  'sluice plan and managementPolicy Observe follow spec.fieldPolicy',
  () => {
    const env = useOperatorEnv('dbs-fp-plan', { timeoutMs: TIMEOUT });
    const spec = {
      name: 'planned',
      provider: 'aws',
      region: 'us-east-1',
      minReplicaMemoryGb: 8,
      maxReplicaMemoryGb: 16,
      tags: [{ key: 'team', value: 'data' }],
      fieldPolicy: { createOnly: ['maxReplicaMemoryGb'], reportOnly: ['tags'] },
    };

    beforeAll(async () => {
      await env.apply('planned', spec as Partial<DatabaseService['spec']>, FAST);
      const id = (await env.waitFor('planned', 'Ready', isReady, TIMEOUT)).status!.id!;
      await env.cloud.updateReplicaScaling(id, { maxReplicaMemoryGb: 32 });
      await env.cloud.updateService(id, { tags: { add: [{ key: 'cost', value: 'c1' }] } });
      await env.waitFor('planned', 'both in status.drift', (r) => r?.status?.driftCount === 2, TIMEOUT);
    }, TIMEOUT);

    it('plans only the enforced change: the fields left to the cloud are no call', async () => {
      const manifest = {
        apiVersion: 'sluice.dev/v1alpha1',
        kind: 'DatabaseService',
        metadata: { name: 'planned', namespace: env.namespace },
        spec: { ...spec, name: 'planned renamed' },
      };
      const { code, stdout } = await planDocuments(env, [manifest]);
      const planned = (
        JSON.parse(stdout) as { resources: { name: string; action: string; calls: unknown[] }[] }
      ).resources;
      expect(code).toBe(2);
      expect(planned).toMatchObject([
        {
          name: 'planned',
          action: 'update',
          calls: [{ method: 'PATCH', body: { name: 'planned renamed' } }],
        },
      ]);
      expect(planned[0]!.calls).toHaveLength(1);
    });

    it('under Observe, pendingChanges holds the enforced change alone', async () => {
      await env.patchSpec('planned', { managementPolicy: 'Observe', name: 'observed rename' });
      const observed = await env.waitFor(
        'planned',
        'pendingChanges',
        (r) =>
          r?.status?.observedGeneration === r?.metadata.generation && r?.status?.pendingChanges !== undefined,
        TIMEOUT,
      );
      expect(observed.status!.pendingChanges).toEqual([
        { method: 'PATCH', path: expect.stringContaining('/services/'), fields: ['name'] },
      ]);
      expect(observed.status!.driftCount).toBe(2);
    });
  },
);
