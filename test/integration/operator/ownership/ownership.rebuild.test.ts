import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { tileAlert } from '../../../../tools/fixtures/alert.ts';
import { kafkaPipe } from '../../../../tools/fixtures/pipe.ts';
import { ExportConfig } from '../../../../src/export/config.ts';
import { runExport } from '../../../../src/export/run.ts';
import { until } from '../../../support/wait.ts';
import {
  condition,
  isReady,
  loseObjects,
  startOperatorEnv,
  writes,
  type OperatorEnv,
  type SluiceObject,
  QUOTA_MODES,
} from '../support.ts';
import { planDocuments } from '../plan-in-process.ts';
import { applyAll, MANIFESTS } from './ownership-fixtures.ts';

const OWNER_CLUSTER = 'sluice.dev/owner-cluster';
const SERVICE = '/v1/organizations/:organizationId/services/:serviceId';

interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string; annotations: Record<string, string> };
  spec: Record<string, unknown>;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The cluster is lost: its objects and their connection Secrets go; what remains is the cloud. */
const loseCluster = (env: OperatorEnv) =>
  loseObjects(env, MANIFESTS, ['analytics-connection', 'reports-connection']);

/** `sluice plan -f` of the manifests, as JSON: each object's action and reason, by `Kind/name`. */
async function plan(env: OperatorEnv, clusterName?: string) {
  const documents = MANIFESTS.map(({ kind, name, spec }) => ({
    apiVersion: 'sluice.dev/v1alpha1',
    kind,
    metadata: { name, namespace: env.namespace },
    spec,
  }));
  const { stdout } = await planDocuments(env, documents, clusterName ? { clusterName } : {});
  const { resources } = JSON.parse(stdout) as {
    resources: { kind: string; name: string; action: string; reason: string | null }[];
  };
  return Object.fromEntries(resources.map((r) => [`${r.kind}/${r.name}`, r]));
}

for (const quota of QUOTA_MODES) {
  // A restarted operator counts its predecessor's window as spent: under the alerting quota (100 requests
  // per 60 s, 6 s on compressed time) its first alerting call may wait a whole window.
  const afterRestartMs = quota.lifted ? 20_000 : 30_000;
  describe.skipIf(clusterSkipReason())(`a cluster rebuilt from Git (${quota.mode})`, () => {
    let env: OperatorEnv;
    let ids: Record<string, string>;
    let password: string;

    beforeAll(async () => {
      env = await startOperatorEnv('rebuild', quota.emulator);
      await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass' });
      await env.startOperator({ ...quota.operator, clusterName: 'prod' });
      ids = await applyAll(env, {}, 300_000);
      password = (await env.secret('analytics-connection'))!.password!;
    }, 400_000);
    afterAll(async () => env?.close());

    it('under the same --cluster-name takes back every object: the same cloud ids, no create, no write, no password reset', async () => {
      await loseCluster(env);
      if (quota.lifted) {
        // What `sluice plan` says first: every object taken back under the name, refused under another's.
        const named = await plan(env, 'prod');
        for (const { kind, name } of MANIFESTS) {
          expect(named[`${kind}/${name}`]).toMatchObject({ action: 'adopt' });
          expect(named[`${kind}/${name}`]!.reason).toContain(ids[`${kind}/${name}`]);
        }
        const derived = await plan(env);
        expect(derived['DatabaseService/analytics']).toMatchObject({ action: 'blocked' });
        expect(derived['DatabaseService/analytics']!.reason).toContain('cluster "prod"');
        expect(derived['Alert/cpu']).toMatchObject({ action: 'blocked' });
        // What lives in a refused service waits for it: nothing is planned as a create.
        expect(derived['Pipe/orders']).toMatchObject({ action: 'blocked' });
      }
      await env.clearCalls();
      await env.startOperator({ ...quota.operator, clusterName: 'prod' });

      expect(await applyAll(env, {}, 120_000)).toEqual(ids);
      expect(writes(await env.calls())).toEqual([]);
      // The applications keep their password; the Secret is back with every key the cloud tells.
      expect(env.emulator.store.services.get(ids['DatabaseService/analytics']!)?.passwordSha256).toBe(
        sha256(password),
      );
      const secret = (await env.secret('analytics-connection'))!;
      expect(secret).toMatchObject({ host: expect.any(String), port: expect.any(String) });
      expect(secret).not.toHaveProperty('password');
      const analytics = (await env.get('analytics'))!;
      expect(analytics.status).toMatchObject({ adopted: true, unknownConnectionKeys: ['password'] });
    }, 400_000);
  });

  describe.skipIf(clusterSkipReason())(`exporting what one cluster name owned (${quota.mode})`, () => {
    let env: OperatorEnv;
    let prod: Record<string, string>;

    beforeAll(async () => {
      env = await startOperatorEnv('export', quota.emulator);
      await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass' });
      await env.startOperator({ ...quota.operator, clusterName: 'prod' });
      prod = await applyAll(env);
    }, 300_000);
    afterAll(async () => env?.close());

    it('sluice export --owned-by writes the objects one cluster name owns, as they were, and they take back cleanly', async () => {
      const { credentials, url } = env.emulator;
      let stdout = '';
      const code = await runExport(
        ExportConfig.parse({
          organization: credentials.organizationId,
          keyId: credentials.keyId,
          keySecret: credentials.keySecret,
          managementUrl: url,
          alertsUrl: url,
          alertsToken: credentials.alertsToken,
          kind: ['DatabaseService', 'QueryEndpoint', 'ReversePrivateEndpoint', 'Alert'],
          output: 'json',
          ownedBy: 'prod',
          // Exported before the cluster is lost, while it still manages them.
          includeManaged: true,
        }),
        { stdout: (text) => (stdout += text), stderr: () => {} },
      );
      expect(code).toBe(0);
      const exported = (JSON.parse(stdout) as { items: Manifest[] }).items;
      const byId = new Map(
        exported.map((m) => [
          m.metadata.annotations['sluice.dev/external-id'] ?? `${m.kind}/${m.metadata.name}`,
          m,
        ]),
      );
      // Services and alerts go back as the objects they were, by their owner record; children by id.
      for (const key of ['DatabaseService/analytics', 'DatabaseService/reports', 'Alert/cpu']) {
        expect(byId.get(key)?.metadata).toEqual({
          name: key.split('/')[1],
          namespace: env.namespace,
          annotations: { [OWNER_CLUSTER]: 'prod' },
        });
      }
      expect(byId.get(prod['QueryEndpoint/console']!)?.metadata.namespace).toBe(env.namespace);
      expect(byId.get(prod['ReversePrivateEndpoint/brokers']!)?.metadata.namespace).toBe(env.namespace);
      expect(exported).toHaveLength(5);

      // Applied in a cluster of another name, they take back prod's objects: no create, no write.
      await loseCluster(env);
      await env.clearCalls();
      await env.startOperator({ ...quota.operator, clusterName: 'elsewhere', takeOverFrom: 'prod' });
      for (const manifest of exported) {
        await env.objects.create({ ...manifest, spec: manifest.spec } as never);
      }
      for (const manifest of exported) {
        const ready = await env
          .of<SluiceObject>(manifest.kind)
          .waitFor(manifest.metadata.name, 'Ready', (o) => isReady(o) && !!o?.status?.id, afterRestartMs);
        const original = MANIFESTS.find(
          (m) =>
            m.kind === manifest.kind &&
            (m.name === manifest.metadata.name || (m.kind !== 'DatabaseService' && m.kind !== 'Alert')),
        )!;
        expect(ready.status!.id).toBe(prod[`${original.kind}/${original.name}`]);
      }
      expect(writes(await env.calls())).toEqual([]);
      for (const manifest of exported) await env.of(manifest.kind).remove(manifest.metadata.name);
    }, 300_000);
  });

  describe.skipIf(clusterSkipReason())(`a cluster under the derived default name (${quota.mode})`, () => {
    let env: OperatorEnv;
    let prod: Record<string, string>;

    beforeAll(async () => {
      env = await startOperatorEnv('default-name', quota.emulator);
      await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass' });
      await env.startOperator({ ...quota.operator, clusterName: 'prod' });
      prod = await applyAll(env);
      await loseCluster(env);
    }, 300_000);
    afterAll(async () => env?.close());

    it('meeting an object another cluster recorded creates nothing and takes nothing, names it and the ways forward, and its dependants wait', async () => {
      await env.clearCalls();
      await env.startOperator(quota.operator);
      await env.apply('analytics', { name: 'analytics' });
      await env.of('Pipe').apply('orders', kafkaPipe('orders'));
      await env.of('Alert').apply('cpu', tileAlert('cpu'));

      const refused = await env.waitFor(
        'analytics',
        'OwnedByAnotherCluster',
        (r) => condition(r, 'Ready')?.reason === 'OwnedByAnotherCluster',
      );
      const message = condition(refused, 'Ready')!.message!;
      for (const part of [prod['DatabaseService/analytics']!, 'cluster "prod"', '--cluster-name prod']) {
        expect(message).toContain(part);
      }
      // Every way to take it back is the administrator's: no annotation a tenant could set is named.
      expect(message).not.toContain(OWNER_CLUSTER);
      expect(message).not.toContain('sluice.dev/external-id');
      expect(refused.status!.id).toBeUndefined();
      const alert = await env
        .of('Alert')
        .waitFor(
          'cpu',
          'refused',
          (r) => condition(r, 'Ready')?.reason === 'OwnedByAnotherCluster',
          afterRestartMs,
        );
      expect(condition(alert, 'Ready')!.message).toContain(prod['Alert/cpu']!);
      const pipe = await env
        .of('Pipe')
        .waitFor('orders', 'waiting', (r) => condition(r, 'Ready')?.reason === 'WaitingForReference');
      expect(pipe.status?.id).toBeUndefined();
      expect(writes(await env.calls())).toEqual([]);

      // One way forward: the administrator lets the operator take over prod's objects, and the object
      // names the cluster its cloud object is recorded under.
      await env.stopOperator();
      await env.startOperator({ ...quota.operator, takeOverFrom: 'prod' });
      await env.annotate('analytics', { [OWNER_CLUSTER]: 'prod' });
      const back = await env.waitFor('analytics', 'taken back', (r) => isReady(r) && !!r?.status?.id);
      expect(back.status!.id).toBe(prod['DatabaseService/analytics']);
      const pipeBack = await env.of('Pipe').waitFor('orders', 'taken back', (r) => isReady(r));
      expect(pipeBack.status!.id).toBe(prod['Pipe/orders']);
      expect(writes(await env.calls())).toEqual([]);
    }, 300_000);
  });

  describe.skipIf(clusterSkipReason())(
    `upgrading from a version that tagged services by uid only (${quota.mode})`,
    () => {
      let env: OperatorEnv;

      beforeAll(async () => {
        env = await startOperatorEnv('uid-upgrade', quota.emulator);
        await env.startOperator({ ...quota.operator, clusterName: 'prod' });
      });
      afterAll(async () => env?.close());

      it('records the owner with one PATCH per service, replacing the uid tag, and refuses none of its own', async () => {
        await env.apply('analytics', { name: 'analytics' });
        const ready = await env.waitFor('analytics', 'Ready', isReady);
        const id = ready.status!.id!;
        // What the earlier version left: only its uid tag.
        await env.stopOperator();
        const record = env.emulator.store.services.get(id)!;
        record.tags = [{ key: 'sluice.dev/uid', value: ready.metadata.uid! }];
        await env.clearCalls();
        await env.startOperator({ ...quota.operator, clusterName: 'prod' });

        await until(
          'the owner tag',
          () => env.emulator.store.services.get(id)!.tags.some((t) => t.key === 'sluice.dev/owner'),
          20_000,
        );
        await env.waitFor('analytics', 'Ready again', isReady);
        // One more look at the cloud: a second write would have gone out by then.
        await env.freshLook('DatabaseService', 'analytics');
        expect(env.emulator.store.services.get(id)!.tags).toEqual([
          { key: 'sluice.dev/owner', value: `prod/${env.namespace}/DatabaseService/analytics` },
        ]);
        expect(writes(await env.calls()).map((c) => `${c.method} ${c.route}`)).toEqual([`PATCH ${SERVICE}`]);
      }, 120_000);
    },
  );
}
