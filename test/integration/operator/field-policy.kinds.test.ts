import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ExportConfig } from '../../../src/export/config.ts';
import { runExport } from '../../../src/export/run.ts';
import { clusterSkipReason, testKubeconfigPath } from '../../harness/testCluster.ts';
import { kafkaPipe } from '../../../tools/fixtures/pipe.ts';
import { tileAlert } from '../../../tools/fixtures/alert.ts';
import {
  condition,
  CREDENTIALS_SECRET,
  isReady,
  startOperatorEnv,
  writes,
  type CallRecord,
  type OperatorEnv,
  type SluiceObject,
} from './support.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FAST = { 'sluice.dev/sync-interval': '1s' };
const TIMEOUT = 60_000;

type Drift = { path: string; observed: string }[];
const driftOf = (o: SluiceObject | undefined) => (o?.status?.drift ?? []) as Drift;
const drifted = (path: string) => (o: SluiceObject | undefined) => driftOf(o).some((d) => d.path === path);
const accepted = (calls: CallRecord[]) => writes(calls).filter((c) => c.status >= 200 && c.status < 300);

/** Waits until the cloud reports `done`, then for two more drift checks; the writes sent meanwhile. */
async function writesUntil(env: OperatorEnv, done: () => Promise<boolean>): Promise<CallRecord[]> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && !(await done())) await sleep(200);
  await sleep(2500);
  return accepted(await env.calls());
}

describe.skipIf(clusterSkipReason())('spec.fieldPolicy of Pipe, Alert and QueryEndpoint', () => {
  let env: OperatorEnv;
  let serviceId: string;

  beforeAll(async () => {
    env = await startOperatorEnv('fp-kinds');
    await env.startOperator();
    await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass-1' });
    await env.apply('analytics', { name: 'analytics' });
    serviceId = (await env.waitFor('analytics', 'service Ready', isReady)).status!.id!;
  }, TIMEOUT);
  afterAll(async () => env?.close());

  it(
    'Pipe: a createOnly scaling.replicas stays as the data team set it; an enforced name is corrected by one PATCH',
    async () => {
      const pipes = env.of<SluiceObject>('Pipe');
      await pipes.apply(
        'orders',
        {
          ...kafkaPipe('orders'),
          scaling: { replicas: 2 },
          fieldPolicy: { createOnly: ['scaling.replicas'] },
        },
        FAST,
      );
      const id = (await pipes.waitFor('orders', 'Ready', isReady, TIMEOUT)).status!.id!;

      await env.cloud.updatePipeScaling(serviceId, id, { replicas: 4 });
      const seen = await pipes.waitFor(
        'orders',
        'replicas in status.drift',
        drifted('scaling.replicas'),
        TIMEOUT,
      );
      expect(driftOf(seen)).toMatchObject([{ path: 'scaling.replicas', observed: '4' }]);
      expect(condition(seen, 'Ready')).toMatchObject({
        status: 'True',
        message: expect.stringContaining('1 field'),
      });
      await env.clearCalls();
      await sleep(2500);
      expect(writes(await env.calls())).toEqual([]);

      await env.clearCalls();
      await env.cloud.updatePipe(serviceId, id, { name: 'renamed by hand' });
      const after = await writesUntil(
        env,
        async () => (await env.cloud.getPipe(serviceId, id)).name === 'orders',
      );
      expect(after.slice(1).map((c) => [c.method, c.body])).toEqual([['PATCH', { name: 'orders' }]]);
      expect((await env.cloud.getPipe(serviceId, id)).scaling?.replicas).toBe(4);
    },
    TIMEOUT,
  );

  it(
    'Alert: a reportOnly threshold is shown and never replaced',
    async () => {
      const alerts = env.of<SluiceObject>('Alert');
      await alerts.apply('cpu', { ...tileAlert('cpu'), fieldPolicy: { reportOnly: ['threshold'] } }, FAST);
      const id = (await alerts.waitFor('cpu', 'Ready', isReady, TIMEOUT)).status!.id!;

      const { message: _message, ...rest } = tileAlert('cpu');
      await env.alerting.replaceAlert(id, { ...rest, message: 'cpu is above 100', threshold: 90 });
      const seen = await alerts.waitFor('cpu', 'threshold in status.drift', drifted('threshold'), TIMEOUT);
      expect(driftOf(seen)).toMatchObject([{ path: 'threshold', observed: '90' }]);
      expect(isReady(seen)).toBe(true);
      await env.clearCalls();
      await sleep(2500);
      expect(writes(await env.calls())).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'QueryEndpoint: reportOnly allowedOrigins are shown and never replaced',
    async () => {
      const endpoints = env.of<SluiceObject>('QueryEndpoint');
      await endpoints.apply(
        'queries',
        {
          serviceRef: { name: 'analytics' },
          roles: ['sql_console_read_only'],
          allowedOrigins: 'app.example.com',
          fieldPolicy: { reportOnly: ['allowedOrigins'] },
        },
        FAST,
      );
      await endpoints.waitFor('queries', 'Ready', isReady, TIMEOUT);

      await env.cloud.upsertQueryEndpoint(serviceId, {
        roles: ['sql_console_read_only'],
        allowedOrigins: 'app.example.com,debug.example.com',
      });
      const seen = await endpoints.waitFor(
        'queries',
        'origins in status.drift',
        drifted('allowedOrigins'),
        TIMEOUT,
      );
      expect(driftOf(seen)).toMatchObject([
        { path: 'allowedOrigins', observed: 'app.example.com,debug.example.com' },
      ]);
      await env.clearCalls();
      await sleep(2500);
      expect(writes(await env.calls())).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'sluice export --field-policy writes each manifest the policy for the fields its kind has, and the apiserver takes them',
    async () => {
      let stdout = '';
      const code = await runExport(
        ExportConfig.parse({
          kubeconfig: testKubeconfigPath(),
          credentialsSecret: `${env.namespace}/${CREDENTIALS_SECRET}`,
          namespace: env.namespace,
          kind: ['DatabaseService', 'Pipe'],
          fieldPolicy: ['additive=ipAccessList', 'additive=tags', 'reportOnly=scaling.replicas'],
          managementQuota: 'off',
        }),
        { stdout: (text) => (stdout += text), stderr: () => {} },
      );
      expect(code).toBe(0);
      const manifests = parseAllDocuments(stdout).map((d) => d.toJS()) as (SluiceObject & { kind: string })[];
      const policies = manifests.map((m) => [m.kind, m.spec.fieldPolicy]);
      expect(policies).toEqual([
        ['DatabaseService', { additive: ['ipAccessList', 'tags'] }],
        ['Pipe', { reportOnly: ['scaling.replicas'] }],
      ]);
      // The apiserver takes them whole (a server-side dry run of each, under a fresh name).
      for (const manifest of manifests) {
        const kind = (manifest as { kind: string }).kind;
        const copy = {
          ...manifest,
          metadata: { ...manifest.metadata, name: `exported-${kind.toLowerCase()}` },
        };
        await env.objects.create(copy as never, undefined, 'All');
      }
    },
    TIMEOUT,
  );
});
