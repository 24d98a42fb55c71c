import { beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { condition, CREDENTIALS_SECRET, isReady, writes, useOperatorEnv } from '../support.ts';
import { untilValue } from '../../../support/wait.ts';

const SERVICES = '/v1/organizations/:organizationId/services';
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const SERVICE = `${SERVICES}/:serviceId`;

describe.skipIf(clusterSkipReason())(
  'DatabaseService lifecycle on a real apiserver against the emulator',
  () => {
    const env = useOperatorEnv('dbs-lifecycle', { operator: false });

    beforeAll(async () => {
      // A real quota scheduler, scaled so the suite is not slowed by the cloud's 10 per 10 s.
      await env.startOperator({ managementQuota: '50/1s' });
    });

    it('creates the service once and reports Ready with id, endpoints and a connection Secret', async () => {
      await env.apply('orders', {
        name: 'orders',
        ipAccessList: [{ source: '10.0.0.0/8', description: 'vpc' }],
      });
      const ready = await env.waitFor('orders', 'Ready', isReady);

      const cloud = await env.cloud.getService(ready.status!.id!);
      expect(cloud).toMatchObject({ name: 'orders', state: 'running' });
      expect(ready.status).toMatchObject({
        id: cloud.id,
        state: 'running',
        engineVersion: cloud.engineVersion,
        dataWarehouseId: cloud.dataWarehouseId,
        ipAccessList: [{ source: '10.0.0.0/8', description: 'vpc' }],
        observedGeneration: ready.metadata.generation,
      });
      expect(ready.status!.endpoints!.map((e) => e.protocol).sort()).toEqual(['https', 'nativesecure']);
      expect(condition(ready, 'Synced')).toMatchObject({ status: 'True', reason: 'ReconcileSuccess' });

      const secret = await env.secret('orders-connection');
      const https = cloud.endpoints!.find((e) => e.protocol === 'https')!;
      expect(secret).toMatchObject({ host: https.host, port: String(https.port), username: 'default' });
      expect(secret!.password).toMatch(/.{8,}/);
      expect(Object.keys(secret!).sort()).toEqual(
        [
          'host',
          'https_host',
          'https_port',
          'nativesecure_host',
          'nativesecure_port',
          'password',
          'port',
          'username',
        ].sort(),
      );

      const calls = await env.calls();
      const posts = calls.filter((c) => c.method === 'POST' && c.route === SERVICES);
      expect(posts).toHaveLength(1);
      // Before the create, one look at the services list for what the cloud records for this object (a
      // rebuilt cluster's): the shared list, never a tag-filtered search or a GET of its own.
      const before = calls.slice(0, calls.indexOf(posts[0]!));
      const looks = before.filter((c) => c.method === 'GET' && c.route.startsWith(SERVICES));
      expect(looks.map((c) => c.path)).toEqual([expect.stringMatching(/\/services$/)]);
    });

    it('sends exactly one PATCH carrying only the changed name and the ipAccessList diff', async () => {
      const before = await env.get('orders');
      await env.clearCalls();
      await env.patchSpec('orders', {
        name: 'orders renamed',
        ipAccessList: [
          { source: '10.0.0.0/8', description: 'vpc' },
          { source: '192.168.0.1', description: 'office' },
        ],
      });
      await env.waitFor(
        'orders',
        'the rename to be observed',
        (r) => isReady(r) && r!.status!.observedGeneration === before!.metadata.generation! + 1,
      );

      const patches = writes(await env.calls());
      expect(patches.map((c) => `${c.method} ${c.route}`)).toEqual([`PATCH ${SERVICE}`]);
      expect(patches[0]!.body).toEqual({
        name: 'orders renamed',
        ipAccessList: { add: [{ source: '192.168.0.1', description: 'office' }] },
      });
      const cloud = await env.cloud.getService(before!.status!.id!);
      expect(cloud.name).toBe('orders renamed');
      expect(cloud.ipAccessList).toHaveLength(2);
    });

    it('resizes in place: one edit sends exactly one replicaScaling PATCH whose body is the diff', async () => {
      const before = await env.get('orders');
      const id = before!.status!.id!;
      const cloudBefore = await env.cloud.getService(id);
      await env.clearCalls();
      await env.patchSpec('orders', {
        numReplicas: cloudBefore.numReplicas! + 1,
        maxReplicaMemoryGb: 64,
        idleScaling: cloudBefore.idleScaling,
      });
      await env.waitFor(
        'orders',
        'the resize to be observed',
        (r) =>
          isReady(r) &&
          r!.status!.state === 'running' &&
          r!.status!.observedGeneration === before!.metadata.generation! + 1,
      );
      // Looked at the cloud again since: a second resize would show up here.
      await env.freshLook('DatabaseService', 'orders');

      const sent = writes(await env.calls());
      expect(sent.map((c) => `${c.method} ${c.route}`)).toEqual([`PATCH ${SERVICE}/replicaScaling`]);
      expect(sent[0]!.body).toEqual({ numReplicas: cloudBefore.numReplicas! + 1, maxReplicaMemoryGb: 64 });
      expect(await env.cloud.getService(id)).toMatchObject({
        numReplicas: cloudBefore.numReplicas! + 1,
        maxReplicaMemoryGb: 64,
        minReplicaMemoryGb: cloudBefore.minReplicaMemoryGb,
        state: 'running',
      });
    });

    it('stops and starts the service through the state operation when spec.state changes', async () => {
      const id = (await env.get('orders'))!.status!.id!;
      await env.patchSpec('orders', { state: 'Stopped' });
      await env.waitFor('orders', 'stopped', (r) => isReady(r) && r!.status!.state === 'stopped');
      expect((await env.cloud.getService(id)).state).toBe('stopped');

      await env.patchSpec('orders', { state: 'Running' });
      await env.waitFor('orders', 'running again', (r) => isReady(r) && r!.status!.state === 'running');
      const stateCalls = (await env.calls()).filter((c) => c.route === `${SERVICE}/state`);
      expect(stateCalls.map((c) => c.body)).toEqual([{ command: 'stop' }, { command: 'start' }]);
    });

    it('recovers a deleted connection Secret with a password reset, never a second service', async () => {
      const id = (await env.get('orders'))!.status!.id!;
      const oldPassword = (await env.secret('orders-connection'))!.password;
      await env.core.deleteNamespacedSecret({ name: 'orders-connection', namespace: env.namespace });

      const secret = await untilValue(
        'the connection Secret recreated with a password',
        () => env.secret('orders-connection'),
        (s) => Boolean(s?.password),
        20_000,
      );
      expect(secret?.password).toBeTruthy();
      expect(secret!.password).not.toBe(oldPassword);
      const calls = await env.calls();
      expect(calls.filter((c) => c.route === `${SERVICE}/password`)).toHaveLength(1);
      expect(calls.filter((c) => c.method === 'POST' && c.route === SERVICES)).toHaveLength(0);
      expect((await env.cloud.listServices()).map((s) => s.id)).toContain(id);
    });

    it('records Events for what it did and never puts a secret in them', async () => {
      const events = await env.core.listNamespacedEvent({ namespace: env.namespace });
      const about = (name: string) => events.items.filter((e) => e.involvedObject.name === name);
      const reasons = about('orders').map((e) => e.reason);
      expect(reasons).toEqual(expect.arrayContaining(['Created', 'Updated', 'ConnectionDetailsRecovered']));
      // Several Updated Events (rename, state, resize); the apiserver lists them in name order, which is random.
      const updates = about('orders').filter((e) => e.reason === 'Updated');
      expect(updates.map((e) => e.message)).toContainEqual(expect.stringMatching(/name|ipAccessList|state/));
      const text = JSON.stringify(events.items);
      expect(text).not.toContain(env.emulator.credentials.keySecret);
      expect(text).not.toContain((await env.secret('orders-connection'))!.password);
    });

    it("exposes controller-runtime's metrics, cloud-call metrics and health probes", async () => {
      const metrics = await (await fetch(`${env.operator!.metrics!.url}/metrics`)).text();
      const value = (series: string) =>
        Number(new RegExp(`^${escape(series)} (\\S+)$`, 'm').exec(metrics)?.[1]);
      const reconciles = (result: string) =>
        value(`controller_runtime_reconcile_total{controller="databaseservice",result="${result}"}`);
      // Waiting for the cloud to finish a create is still work; a service in sync is a success.
      expect(reconciles('requeue_after')).toBeGreaterThan(0);
      expect(reconciles('success')).toBeGreaterThan(0);
      expect(value('workqueue_adds_total{name="databaseservice"}')).toBeGreaterThan(0);
      expect(metrics).toMatch(
        /^controller_runtime_reconcile_time_seconds_bucket\{le="0.005",controller="databaseservice"\}/m,
      );
      // A list and a create of one route are told apart by their method.
      const calls = (method: string, code: number) =>
        value(
          `sluice_cloud_requests_total{api="management",method="${method}",route="${SERVICES}",code="${code}"}`,
        );
      expect(calls('GET', 200)).toBeGreaterThan(0);
      expect(calls('POST', 200)).toBeGreaterThan(0);
      expect(value('sluice_cloud_quota_wait_seconds_count{api="management"}')).toBeGreaterThan(0);
      const credentials = `${env.namespace}/${CREDENTIALS_SECRET}`;
      expect(
        value(`sluice_cloud_quota_remaining{credentials="${credentials}",api="management"}`),
      ).toBeLessThanOrEqual(50);
      for (const probe of ['healthz', 'readyz']) {
        const answer = await fetch(`${env.operator!.health!.url}/${probe}`);
        expect([probe, answer.status, await answer.text()]).toEqual([probe, 200, 'ok']);
      }
    });

    it('deletes the cloud service under deletionPolicy Delete: stop, wait, DELETE, wait for 404', async () => {
      await env.apply('doomed', { name: 'doomed', deletionPolicy: 'Delete' });
      const id = (await env.waitFor('doomed', 'Ready', isReady)).status!.id!;
      await env.clearCalls();
      await env.remove('doomed');
      await env.waitFor('doomed', 'the resource to be gone', (r) => r === undefined);

      await expect(env.cloud.getService(id)).rejects.toMatchObject({ status: 404 });
      const steps = writes(await env.calls()).map((c) => `${c.method} ${c.route}`);
      expect(steps).toEqual([`PATCH ${SERVICE}/state`, `DELETE ${SERVICE}`]);
    });

    it('leaves the cloud service in place under the default deletionPolicy Orphan', async () => {
      await env.apply('kept', { name: 'kept' });
      const id = (await env.waitFor('kept', 'Ready', isReady)).status!.id!;
      await env.remove('kept');
      await env.waitFor('kept', 'the resource to be gone', (r) => r === undefined);
      expect((await env.cloud.getService(id)).state).toBe('running');
    });
  },
);
