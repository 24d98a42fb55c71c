import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ExportConfig } from '../../../../src/export/config.ts';
import { runExport } from '../../../../src/export/run.ts';
import { clusterSkipReason, testKubeconfigPath } from '../../../harness/test-cluster.ts';
import type { AlertBody } from '../../../../src/cloud/alerting-client.ts';
import { MANAGEMENT_ROUTES } from '../../../../src/cloud/management-client.ts';
import { kafkaPipe, PIPE } from '../../../../tools/fixtures/pipe.ts';
import { ALERT, tileAlert } from '../../../../tools/fixtures/alert.ts';
import { until } from '../../../support/wait.ts';
import {
  condition,
  CREDENTIALS_SECRET,
  isReady,
  startOperatorEnv,
  writes,
  type CallRecord,
  type OperatorEnv,
  type SluiceObject,
  QUOTA_MODES,
} from '../support.ts';

const FAST = { 'sluice.dev/sync-interval': '1s' };
const TIMEOUT = 60_000;
const QUERY_ENDPOINT = MANAGEMENT_ROUTES.queryEndpoint;

type Drift = { path: string; observed: string }[];
const driftOf = (o: SluiceObject | undefined) => (o?.status?.drift ?? []) as Drift;
const drifted = (path: string) => (o: SluiceObject | undefined) => driftOf(o).some((d) => d.path === path);
const accepted = (calls: CallRecord[]) => writes(calls).filter((c) => c.status >= 200 && c.status < 300);

/** Waits until the cloud reports `done`, then for more drift checks of `kind`; the writes accepted meanwhile. */
async function writesUntil(
  env: OperatorEnv,
  kind: string,
  done: () => Promise<boolean>,
): Promise<CallRecord[]> {
  await until('the correction in the cloud', done, 30_000, 200);
  await env.lookedAgain(kind);
  return accepted(await env.calls());
}

/** The ids an out-of-band change needs: the service's and the object's own. */
interface Ids {
  serviceId: string;
  id: string;
}

/**
 * One (kind, policy) pair: the object, one field under the policy and one enforced field beside it, each
 * changed out of band, and the one call that corrects the enforced field while keeping the cloud's value of
 * the other.
 */
interface PolicyCase {
  kind: 'Pipe' | 'Alert' | 'QueryEndpoint';
  policy: 'createOnly' | 'reportOnly';
  /** The field under the policy, as `fieldPolicy` names it. */
  field: string;
  spec: Record<string, unknown>;
  /** Changes the policy's field in the cloud; `observed` is what status.drift then shows. */
  changeField(env: OperatorEnv, ids: Ids): Promise<unknown>;
  observed: string;
  /** Changes the enforced field in the cloud. */
  changeEnforced(env: OperatorEnv, ids: Ids): Promise<unknown>;
  /** Whether the cloud holds the spec's value of the enforced field again. */
  corrected(env: OperatorEnv, ids: Ids): Promise<boolean>;
  /** The correcting call: method, route and what its body carries (the policy's field as the cloud has it). */
  correction: [string, string, Record<string, unknown>];
  /** The policy's field as the cloud holds it after the correction. */
  kept(env: OperatorEnv, ids: Ids): Promise<unknown>;
  keptValue: unknown;
}

const pipeScaling = { replicas: 2, replicaMemoryGb: 4 };
/** A console edit of the alert: the whole alert replaced with one field changed, its note kept. */
async function editAlert(env: OperatorEnv, id: string, change: Record<string, unknown>) {
  const { note } = await env.alerting.getAlert(id);
  await env.alerting.replaceAlert(id, { ...tileAlert('cpu'), threshold: 90, ...change, note } as AlertBody);
}
const queries = {
  serviceRef: { name: 'analytics' },
  roles: ['sql_console_read_only'],
  allowedOrigins: 'app.example.com',
};

const CASES: PolicyCase[] = [
  {
    kind: 'Pipe',
    policy: 'createOnly',
    field: 'scaling.replicas',
    spec: { ...kafkaPipe('orders'), scaling: { replicas: 2 } },
    changeField: (env, { serviceId, id }) => env.cloud.updatePipeScaling(serviceId, id, { replicas: 4 }),
    observed: '4',
    changeEnforced: (env, { serviceId, id }) =>
      env.cloud.updatePipe(serviceId, id, { name: 'renamed by hand' }),
    corrected: async (env, { serviceId, id }) => (await env.cloud.getPipe(serviceId, id)).name === 'orders',
    correction: ['PATCH', PIPE, { name: 'orders' }],
    kept: async (env, { serviceId, id }) => (await env.cloud.getPipe(serviceId, id)).scaling?.replicas,
    keptValue: 4,
  },
  {
    kind: 'Pipe',
    policy: 'reportOnly',
    field: 'scaling.replicaMemoryGb',
    spec: { ...kafkaPipe('orders'), scaling: pipeScaling },
    changeField: (env, { serviceId, id }) =>
      env.cloud.updatePipeScaling(serviceId, id, { replicaMemoryGb: 8 }),
    observed: '8',
    // The replicas travel in the same `scaling` object: the correction carries the cloud's memory.
    changeEnforced: (env, { serviceId, id }) => env.cloud.updatePipeScaling(serviceId, id, { replicas: 5 }),
    corrected: async (env, { serviceId, id }) =>
      (await env.cloud.getPipe(serviceId, id)).scaling?.replicas === 2,
    correction: ['PATCH', PIPE, { scaling: { replicas: 2, replicaMemoryGb: 8 } }],
    kept: async (env, { serviceId, id }) => (await env.cloud.getPipe(serviceId, id)).scaling?.replicaMemoryGb,
    keptValue: 8,
  },
  {
    kind: 'Alert',
    policy: 'reportOnly',
    field: 'threshold',
    spec: tileAlert('cpu'),
    changeField: (env, { id }) => editAlert(env, id, {}),
    observed: '90',
    changeEnforced: (env, { id }) => editAlert(env, id, { message: 'edited by hand' }),
    corrected: async (env, { id }) => (await env.alerting.getAlert(id)).message === 'cpu is above 100',
    // A replace carries the whole alert, so it carries the cloud's threshold.
    correction: ['PUT', ALERT, { message: 'cpu is above 100', threshold: 90 }],
    kept: async (env, { id }) => (await env.alerting.getAlert(id)).threshold,
    keptValue: 90,
  },
  {
    kind: 'Alert',
    policy: 'createOnly',
    field: 'threshold',
    spec: tileAlert('cpu'),
    changeField: (env, { id }) => editAlert(env, id, {}),
    observed: '90',
    changeEnforced: (env, { id }) => editAlert(env, id, { interval: '1h' }),
    corrected: async (env, { id }) => (await env.alerting.getAlert(id)).interval === '5m',
    correction: ['PUT', ALERT, { interval: '5m', threshold: 90 }],
    kept: async (env, { id }) => (await env.alerting.getAlert(id)).threshold,
    keptValue: 90,
  },
  // The upsert replaces the whole configuration, so the correction carries the cloud's origins either way.
  ...(['reportOnly', 'createOnly'] as const).map((policy): PolicyCase => ({
    kind: 'QueryEndpoint',
    policy,
    field: 'allowedOrigins',
    spec: queries,
    changeField: (env, { serviceId }) =>
      env.cloud.upsertQueryEndpoint(serviceId, {
        roles: ['sql_console_read_only'],
        allowedOrigins: 'app.example.com,debug.example.com',
      }),
    observed: 'app.example.com,debug.example.com',
    changeEnforced: (env, { serviceId }) =>
      env.cloud.upsertQueryEndpoint(serviceId, {
        roles: ['sql_console_admin'],
        allowedOrigins: 'app.example.com,debug.example.com',
      }),
    corrected: async (env, { serviceId }) =>
      (await env.cloud.getQueryEndpoint(serviceId)).roles?.join() === 'sql_console_read_only',
    correction: [
      'POST',
      QUERY_ENDPOINT,
      { roles: ['sql_console_read_only'], allowedOrigins: 'app.example.com,debug.example.com' },
    ],
    kept: async (env, { serviceId }) => (await env.cloud.getQueryEndpoint(serviceId)).allowedOrigins,
    keptValue: 'app.example.com,debug.example.com',
  })),
];

describe.skipIf(clusterSkipReason()).each(QUOTA_MODES)(
  'spec.fieldPolicy of Pipe, Alert and QueryEndpoint ($mode)',
  ({ lifted, emulator, operator }) => {
    let env: OperatorEnv;
    let serviceId: string;

    beforeAll(async () => {
      env = await startOperatorEnv(lifted ? 'fp-kinds' : 'fpq-kinds', emulator);
      await env.startOperator(operator);
      await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass-1' });
      await env.apply('analytics', { name: 'analytics' });
      serviceId = (await env.waitFor('analytics', 'service Ready', isReady, TIMEOUT)).status!.id!;
    }, TIMEOUT);
    afterAll(async () => env?.close());

    for (const c of CASES)
      it(
        `${c.kind}: a ${c.policy} ${c.field} is shown in status and never sent; an enforced field beside it is corrected by one ${c.correction[0]}`,
        async () => {
          const objects = env.of<SluiceObject>(c.kind);
          const name = c.kind.toLowerCase();
          await objects.apply(name, { ...c.spec, fieldPolicy: { [c.policy]: [c.field] } }, FAST);
          const ids = { serviceId, id: (await objects.waitFor(name, 'Ready', isReady, TIMEOUT)).status!.id! };

          await c.changeField(env, ids);
          const seen = await objects.waitFor(name, `${c.field} in status.drift`, drifted(c.field), TIMEOUT);
          expect(driftOf(seen)).toMatchObject([{ path: c.field, observed: c.observed }]);
          expect(condition(seen, 'Ready')).toMatchObject({
            status: 'True',
            message: expect.stringContaining('1 field'),
          });
          await env.clearCalls();
          await env.lookedAgain(c.kind);
          expect(writes(await env.calls())).toEqual([]);

          await env.clearCalls();
          await c.changeEnforced(env, ids);
          const after = await writesUntil(env, c.kind, () => c.corrected(env, ids));
          // The first accepted write is the test's own change.
          expect(after.slice(1).map((call) => [call.method, call.route, call.body])).toEqual([
            [c.correction[0], c.correction[1], expect.objectContaining(c.correction[2])],
          ]);
          expect(await c.kept(env, ids)).toEqual(c.keptValue);

          // Gone before the next case, which may manage the same service's endpoint.
          await objects.remove(name);
          await objects.waitFor(name, 'deleted', (o) => o === undefined, TIMEOUT);
        },
        // Under the real quota a case takes up to about 30 s on a busy machine.
        2 * TIMEOUT,
      );
  },
);

describe.skipIf(clusterSkipReason())('sluice export --field-policy', () => {
  let env: OperatorEnv;

  beforeAll(async () => {
    env = await startOperatorEnv('fp-export');
    await env.startOperator();
    await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass-1' });
    await env.apply('analytics', { name: 'analytics' });
    await env.waitFor('analytics', 'service Ready', isReady, TIMEOUT);
    const pipes = env.of<SluiceObject>('Pipe');
    await pipes.apply('orders', { ...kafkaPipe('orders'), scaling: { replicas: 2 } });
    await pipes.waitFor('orders', 'Ready', isReady, TIMEOUT);
  }, TIMEOUT);
  afterAll(async () => env?.close());

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
          // The objects this cluster manages, exported again on purpose.
          includeManaged: true,
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
