// A credential in a field no list names: a Pipe's `extraSettings` key `sasl_password`. Its values (the
// spec's, a changed spec's, the cloud's and a planned one) reach none of the places sluice writes: the
// operator's log at trace level, the object's status (drift report, conditions), Events, `sluice plan`
// (text and JSON) and `sluice export`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANAGEMENT_ROUTES } from '../../../../src/cloud/management-client.ts';
import { kafkaPipe } from '../../../../tools/fixtures/pipe.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { planDocuments } from '../plan-in-process.ts';
import {
  condition,
  exportFrom,
  isReady,
  startOperatorEnv,
  type OperatorEnv,
  type SluiceObject,
} from '../support.ts';

const TIMEOUT = 60_000;
const SPEC_PASS = 'spec-sasl-pass-Q3v8';
const CHANGED_PASS = 'changed-sasl-pass-Z7k1';
const CLOUD_PASS = 'cloud-sasl-pass-M2x5';
const PLANNED_PASS = 'planned-sasl-pass-R9d4';
const ALL = [SPEC_PASS, CHANGED_PASS, CLOUD_PASS, PLANNED_PASS];

const withSetting = (password: string) => ({
  ...kafkaPipe('orders'),
  extraSettings: { strings: { sasl_password: password, kafka_client_id: 'orders' } },
});

type Drift = { path: string; observed: string }[];
const driftOf = (o: SluiceObject | undefined) => (o?.status?.drift ?? []) as Drift;

describe.skipIf(clusterSkipReason())('a credential in a pipe setting no list names', () => {
  let env: OperatorEnv;
  let serviceId: string;
  let pipeId: string;
  const pipes = () => env.of<SluiceObject>('Pipe');

  beforeAll(async () => {
    env = await startOperatorEnv('credential-names');
    await env.startOperator({ logLevel: 'trace' });
    await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass-1' });
    await env.apply('analytics', { name: 'analytics' });
    serviceId = (await env.waitFor('analytics', 'service Ready', isReady, TIMEOUT)).status!.id!;
    await pipes().apply('orders', withSetting(SPEC_PASS), { 'sluice.dev/sync-interval': '1s' });
    pipeId = (await pipes().waitFor('orders', 'Ready', isReady, TIMEOUT)).status!.id!;
  }, 2 * TIMEOUT);
  afterAll(async () => env?.close());

  it(
    'keeps it out of errors and conditions when the cloud refuses the setting, and sends it when it takes it',
    async () => {
      // A 4xx is not retried at once: the refusal reaches status (and is sent again no sooner than 10 s).
      await env.fault({ method: 'PUT', route: MANAGEMENT_ROUTES.pipeSettings, status: 400, count: 1 });
      await pipes().patchSpec('orders', withSetting(CHANGED_PASS));
      const failed = await pipes().waitFor(
        'orders',
        'the refused settings write in Synced',
        (o) => condition(o, 'Synced')?.status === 'False',
        TIMEOUT,
      );
      expect(JSON.stringify(failed.status)).toContain('400');
      const until = Date.now() + TIMEOUT;
      while ((await env.cloud.getPipeSettings(serviceId, pipeId)).sasl_password !== CHANGED_PASS) {
        if (Date.now() > until) throw new Error('the changed setting never reached the cloud');
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    2 * TIMEOUT,
  );

  it(
    'reports a value the cloud changed as (sensitive) in status.drift',
    async () => {
      await pipes().patchSpec('orders', { fieldPolicy: { createOnly: ['extraSettings.strings'] } });
      await pipes().waitFor(
        'orders',
        'the field policy applied',
        (o) => isReady(o) && o?.status?.observedGeneration === o?.metadata.generation,
        TIMEOUT,
      );
      await env.cloud.putPipeSettings(serviceId, pipeId, { sasl_password: CLOUD_PASS });
      const drifted = await pipes().waitFor(
        'orders',
        'extraSettings.strings in status.drift',
        (o) => driftOf(o).some((d) => d.path === 'extraSettings.strings'),
        TIMEOUT,
      );
      expect(driftOf(drifted)).toEqual([
        expect.objectContaining({ path: 'extraSettings.strings', observed: '(sensitive)' }),
      ]);
    },
    2 * TIMEOUT,
  );

  it(
    'masks it in sluice plan, text and JSON, while showing that the setting changes',
    async () => {
      const manifest = {
        apiVersion: 'sluice.dev/v1alpha1',
        kind: 'Pipe',
        metadata: { name: 'orders', namespace: env.namespace },
        spec: withSetting(PLANNED_PASS),
      };
      for (const output of ['json', 'text']) {
        const plan = await planDocuments(env, [manifest], { output });
        expect(plan.stdout, output).toContain('sasl_password');
        expect(plan.stdout, output).toContain('(sensitive)');
        for (const secret of ALL) expect(plan.stdout + plan.stderr, output).not.toContain(secret);
      }
    },
    TIMEOUT,
  );

  it(
    'leaves it out of sluice export and names it, and the manifest still adopts the pipe',
    async () => {
      const { code, stdout, stderr } = await exportFrom(env, {
        kind: ['Pipe'],
        managementQuota: 'off',
        // The pipe this cluster manages, exported again on purpose.
        includeManaged: true,
      });
      expect(code).toBe(0);
      expect(stdout).toContain('kafka_client_id');
      expect(stderr).toContain('Pipe orders: extraSettings.strings.sasl_password');
      for (const secret of ALL) expect(stdout + stderr).not.toContain(secret);
    },
    TIMEOUT,
  );

  it('never writes it to the trace log, status or Events', async () => {
    // The trace log holds the request bodies (the positive signal that it was written at all).
    const log = env.logs.join('');
    expect(log).toContain('cloud request body');
    expect(log).toContain('sasl_password');
    const pipe = await pipes().get('orders');
    const events = await env.core.listNamespacedEvent({ namespace: env.namespace });
    expect(events.items.length).toBeGreaterThan(0);
    for (const secret of ALL) {
      expect(log).not.toContain(secret);
      expect(JSON.stringify(pipe?.status)).not.toContain(secret);
      expect(JSON.stringify(events.items)).not.toContain(secret);
    }
  });
});
