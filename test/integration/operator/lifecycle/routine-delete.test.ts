import { beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { tileAlert } from '../../../../tools/fixtures/alert.ts';
import { kafkaPipe } from '../../../../tools/fixtures/pipe.ts';
import { rpeSpec } from '../../../../tools/fixtures/rpe.ts';
import { isReady, type SluiceObject, useOperatorEnv } from '../support.ts';

/** Every kind sluice manages, each under deletionPolicy Delete: its delete does the most cloud work. */
const OBJECTS: { kind: string; name: string; spec: Record<string, unknown> }[] = [
  { kind: 'Pipe', name: 'orders', spec: kafkaPipe('orders') },
  {
    kind: 'QueryEndpoint',
    name: 'console',
    spec: { serviceRef: { name: 'analytics' }, roles: ['sql_console_read_only'] },
  },
  { kind: 'ReversePrivateEndpoint', name: 'brokers', spec: rpeSpec('vpcEndpointService', 'analytics') },
  { kind: 'Alert', name: 'cpu', spec: tileAlert('cpu') },
];
const SERVICE = { kind: 'DatabaseService', name: 'analytics' };

/** pino's error level: 50 (fatal 60). */
const ERROR_LEVEL = 50;

/**
 * A routine delete is no failure: deleting objects of every kind, each racing the removal of its own object
 * (its last reconcile's status and finalizer writes, and the reconciles a cloud change wakes while the cache
 * still holds it), records no Warning Event, logs no error and counts no reconcile error.
 */
describe.skipIf(clusterSkipReason()).each([
  ['with the quota lifted', {}],
  // The operator's own default: deletes wait for the budget, their polls spread out.
  ['under the real default quota', { managementQuota: '10/10s', alertingQuota: '100/60s' }],
] as const)('A routine delete of each kind on a real apiserver, %s', (_quota, flags) => {
  const env = useOperatorEnv('routine-delete', { operator: flags, timeoutMs: 180_000 });

  beforeAll(async () => {
    await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass-1' });
    await env.apply(SERVICE.name, { name: SERVICE.name, deletionPolicy: 'Delete' });
    await env.waitFor(SERVICE.name, 'service Ready', isReady, 60_000);
    for (const { kind, name, spec } of OBJECTS) {
      await env.of(kind).apply(name, { ...spec, deletionPolicy: 'Delete' });
    }
    for (const { kind, name } of OBJECTS) {
      await env.of<SluiceObject>(kind).waitFor(name, `${kind} Ready`, isReady, 90_000);
    }
  }, 180_000);

  const reconcileErrors = async (): Promise<Record<string, number>> => {
    const text = await (await fetch(`${env.operator!.metrics!.url}/metrics`)).text();
    const counts: Record<string, number> = {};
    for (const [, controller, value] of text.matchAll(
      /^controller_runtime_reconcile_errors_total\{controller="(\w+)"\} (\S+)$/gm,
    )) {
      counts[controller!] = Number(value);
    }
    return counts;
  };
  const warnings = async () =>
    (await env.core.listNamespacedEvent({ namespace: env.namespace })).items
      .filter((e) => e.type === 'Warning')
      .map((e) => `${e.involvedObject.kind}/${e.involvedObject.name} ${e.reason}: ${e.message}`);
  const errorLines = (from: number) =>
    env.logs.slice(from).filter((line) => (JSON.parse(line) as { level: number }).level >= ERROR_LEVEL);

  it('leaves no create intent on an object of any kind once its create is recorded in status', async () => {
    for (const { kind, name } of [SERVICE, ...OBJECTS]) {
      const object = (await env.of<SluiceObject>(kind).get(name))!;
      expect([kind, object.status?.id, object.metadata.annotations?.['sluice.dev/create-pending']]).toEqual([
        kind,
        expect.any(String),
        undefined,
      ]);
    }
  });

  it('deletes every kind, the service after its dependants, with no Warning, no error log and no reconcile error', async () => {
    const errorsBefore = await reconcileErrors();
    const logsFrom = env.logs.length;
    expect(await warnings()).toEqual([]);

    for (const { kind, name } of OBJECTS) await env.of(kind).remove(name);
    await env.remove(SERVICE.name);
    for (const { kind, name } of [...OBJECTS, SERVICE]) {
      await env.of(kind).waitFor(name, `${kind} gone`, (o) => o === undefined, 120_000);
    }
    // The reconciles a cloud change wakes after the last removal, with the cache not yet caught up, are done.
    await env.idle();

    expect(await env.cloud.listServices()).toEqual([]);
    expect(await warnings()).toEqual([]);
    expect(errorLines(logsFrom)).toEqual([]);
    expect(await reconcileErrors()).toEqual(errorsBefore);
  }, 180_000);
});
