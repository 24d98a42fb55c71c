// What a tenant who can write one namespace can make sluice do with another cluster's cloud objects: the
// other cluster's objects are made through the API with the records its operator writes (a service's owner
// tag, an alert's note); this cluster's operator runs under --cluster-name dev.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERTS, tileAlert } from '../../../../tools/fixtures/alert.ts';
import { kafkaPipe, lookAlikeBody, PIPES } from '../../../../tools/fixtures/pipe.ts';
import { serviceCreateBody } from '../../../../src/kinds/database-service/mapping.ts';
import { ownerNote } from '../../../../src/kinds/alert/mapping.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { applyCraftedLostCreate } from './ownership-fixtures.ts';
import {
  baseSpec,
  condition,
  isReady,
  startOperatorEnv,
  writes,
  type OperatorEnv,
  type SluiceObject,
} from '../support.ts';

const OWNER_CLUSTER = 'sluice.dev/owner-cluster';
const EXTERNAL_ID = 'sluice.dev/external-id';
const OWNER_TAG = 'sluice.dev/owner';

const refusedFor = (reason: string) => (o: SluiceObject | undefined) =>
  condition(o, 'Ready')?.status === 'False' && condition(o, 'Ready')?.reason === reason;

describe.skipIf(clusterSkipReason())('a tenant of one namespace and another cluster’s objects', () => {
  let env: OperatorEnv;
  /** What prod's operator records for `kind/name` of the test namespace. */
  const prodRecord = (kind: string, name: string) => `prod/${env.namespace}/${kind}/${name}`;
  /** Deletes the service `name` under deletionPolicy Orphan: the cloud service, another cluster's, stays. */
  const removeOrphaning = async (name: string) => {
    await env.patchSpec(name, { deletionPolicy: 'Orphan' });
    await env.removeUntilGone(name);
  };
  /** A service as another cluster's operator creates it (its owner tag `record`), made through the API. */
  const serviceRecordedAs = async (
    record: string,
    name: string,
    tags: { key: string; value: string }[] = [],
  ) => {
    const spec = { ...baseSpec, name, tags, deletionPolicy: 'Delete', state: 'Running' } as const;
    const { service } = await env.cloud.createService(serviceCreateBody(spec, record));
    return service.id;
  };
  const prodService = (name: string, tags: { key: string; value: string }[] = []) =>
    serviceRecordedAs(prodRecord('DatabaseService', name), name, tags);

  beforeAll(async () => {
    env = await startOperatorEnv('isolation-tenant');
    await env.startOperator({ clusterName: 'dev' });
  });
  afterAll(async () => env?.close());

  it('an annotation naming another cluster takes nothing, resets nothing and tells no way around; only the administrator’s --take-over-from lets it take back', async () => {
    const prodId = await prodService('orders');
    const alert = await env.alerting.createAlert({
      ...tileAlert('cpu'),
      note: ownerNote(prodRecord('Alert', 'cpu')),
    });
    await env.clearCalls();

    const annotations = { [OWNER_CLUSTER]: 'prod', 'sluice.dev/reset-password': 'now' };
    await env.apply('orders', { name: 'orders' }, annotations);
    await env.of('Alert').apply('cpu', tileAlert('cpu'), { [OWNER_CLUSTER]: 'prod' });
    for (const kind of ['DatabaseService', 'Alert']) {
      const name = kind === 'Alert' ? 'cpu' : 'orders';
      const refused = await env
        .of<SluiceObject>(kind)
        .waitFor(name, 'refused', refusedFor('OwnerClusterNotAllowed'));
      const message = condition(refused, 'Ready')!.message!;
      expect(message).toContain(`annotation ${OWNER_CLUSTER} names cluster "prod"`);
      expect(message).not.toContain(EXTERNAL_ID);
      expect(message).not.toContain('take-over-from');
      expect(refused.status?.id).toBeUndefined();
    }
    expect(await env.secret('orders-connection')).toBeUndefined();
    expect(await env.calls()).toEqual([]);

    // Deleting the tenant's objects leaves prod's alone.
    await env.remove('orders');
    await env.of('Alert').remove('cpu');
    await env.waitFor('orders', 'gone', (o) => o === undefined);
    await env.of('Alert').waitFor('cpu', 'gone', (o) => o === undefined);
    expect(env.emulator.store.services.get(prodId)?.state).not.toBe('stopped');
    expect(env.emulator.store.alerts.get(alert.id)?.note).toBe(ownerNote(prodRecord('Alert', 'cpu')));
    expect(writes(await env.calls())).toEqual([]);

    // The administrator lets this operator take over prod's objects: the same annotation takes them back.
    await env.stopOperator();
    await env.startOperator({ clusterName: 'dev', takeOverFrom: 'prod' });
    await env.apply('orders', { name: 'orders' }, { [OWNER_CLUSTER]: 'prod' });
    const back = await env.waitFor('orders', 'taken back', (o) => isReady(o) && !!o?.status?.id);
    expect(back.status!.id).toBe(prodId);
    expect(writes(await env.calls())).toEqual([]);
    await removeOrphaning('orders');
  });

  it('adopting by id a service another cluster recorded is refused; with the administrator’s consent its record stays as it is', async () => {
    await env.stopOperator();
    await env.startOperator({ clusterName: 'dev' });
    const tags = [{ key: 'team', value: 'data' }];
    const prodId = await prodService('billing', tags);
    await env.clearCalls();

    // As `sluice export` writes it: the id, and the user's tags.
    await env.apply('copy', { name: 'billing', tags }, { [EXTERNAL_ID]: prodId });
    const refused = await env.waitFor('copy', 'refused', refusedFor('OwnedByAnotherCluster'));
    expect(condition(refused, 'Ready')!.message).toContain(`${prodId} is recorded in the cloud`);
    expect(condition(refused, 'Ready')!.message).toContain('cluster "prod"');
    expect(refused.status?.id).toBeUndefined();
    expect(writes(await env.calls())).toEqual([]);

    await env.stopOperator();
    await env.startOperator({ clusterName: 'dev', takeOverFrom: 'prod' });
    const adopted = await env.waitFor('copy', 'adopted', (o) => isReady(o) && o?.status?.id === prodId);
    // A reconcile asked for and handled: the operator looked again, and still removes no record.
    await env.annotate('copy', { 'sluice.dev/reconcile-requested-at': 'again' });
    await env.waitFor(
      'copy',
      'looked again',
      (o) => isReady(o) && o?.status?.lastHandledReconcileAt === 'again',
    );
    expect(adopted.status!.id).toBe(prodId);
    expect(env.emulator.store.services.get(prodId)!.tags).toEqual([
      ...tags,
      { key: OWNER_TAG, value: prodRecord('DatabaseService', 'billing') },
    ]);
    expect(writes(await env.calls())).toEqual([]);
    await removeOrphaning('copy');
  });

  it('a lost alert create (500) never adopts another cluster’s alert of the same name: it creates its own', async () => {
    await env.stopOperator();
    await env.startOperator({ clusterName: 'dev' });
    // The create is held 6 s, then answered 500 without creating: prod's alert is made meanwhile.
    await env.fault({ method: 'POST', route: ALERTS, status: 500, latencyMs: 6_000, count: 1 });
    await env.of('Alert').apply('mem', tileAlert('mem'));
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && (await faultsLeft(env)) > 0) await new Promise((r) => setTimeout(r, 50));
    expect(await faultsLeft(env)).toBe(0);
    const theirs = await env.alerting.createAlert({
      ...tileAlert('mem'),
      note: ownerNote(prodRecord('Alert', 'mem')),
    });

    const ready = await env
      .of<SluiceObject>('Alert')
      .waitFor('mem', 'Ready', (o) => isReady(o) && !!o?.status?.id);
    expect((await env.calls()).some((c) => c.method === 'POST' && c.status === 500)).toBe(true);
    expect(ready.status!.id).not.toBe(theirs.id);
    expect(env.emulator.store.alerts.get(theirs.id)?.note).toBe(ownerNote(prodRecord('Alert', 'mem')));
    expect(env.emulator.store.alerts.get(ready.status!.id!)?.note).toBe(
      ownerNote(`dev/${env.namespace}/Alert/mem`),
    );
  });

  it('a lost pipe create (500) in a service another cluster records never adopts that cluster’s pipe of the same name', async () => {
    await env.stopOperator();
    // A plain serviceId reaches a service another cluster records only with the administrator's consent
    // (else ServiceIdNotAllowed: isolation.plain-ids); given it, a lost create still never adopts its pipe.
    await env.startOperator({ clusterName: 'dev', takeOverFrom: 'prod' });
    await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass' });
    const serviceId = await prodService('events');
    const { serviceRef: _byName, ...byId } = kafkaPipe('ingest');
    const spec = { ...byId, serviceId };
    await env.fault({ method: 'POST', route: PIPES, status: 500, latencyMs: 6_000, count: 1 });
    await env.of('Pipe').apply('ingest', spec);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && (await faultsLeft(env)) > 0) await new Promise((r) => setTimeout(r, 50));
    expect(await faultsLeft(env)).toBe(0);
    const theirs = await env.cloud.createPipe(serviceId, lookAlikeBody(kafkaPipe('ingest')));

    const ready = await env
      .of<SluiceObject>('Pipe')
      .waitFor('ingest', 'Ready with an id', (o) => !!o?.status?.id, 30_000);
    expect((await env.calls()).some((c) => c.route === PIPES && c.status === 500)).toBe(true);
    expect(ready.status!.id).not.toBe(theirs.id);
    const pipesNamed = [...env.emulator.store.pipesOf(serviceId).values()].filter((p) => p.name === 'ingest');
    expect(pipesNamed.map((p) => p.id).sort()).toEqual([ready.status!.id!, theirs.id].sort());
    await env.of('Pipe').patchSpec('ingest', { deletionPolicy: 'Orphan' });
    await env.of('Pipe').removeUntilGone('ingest');
  });

  it('deleting an object posing as another cluster’s lost create (owner-cluster, create-pending, finalizer) reads, stops and deletes nothing of that cluster’s', async () => {
    await env.stopOperator();
    await env.startOperator({ clusterName: 'dev' });
    await applyCraftedLostCreate(env, 'ledger', 'prod', { name: 'ledger' });
    await env.waitFor('ledger', 'refused', refusedFor('OwnerClusterNotAllowed'));
    // prod's operator makes its own service of that record after the intent.
    const prodId = await prodService('ledger');
    await env.clearCalls();

    await env.remove('ledger');
    await env.waitFor('ledger', 'gone', (o) => o === undefined);
    expect(env.emulator.store.services.get(prodId)?.state).not.toBe('stopped');
    expect(env.emulator.store.services.has(prodId)).toBe(true);
    expect(await env.calls()).toEqual([]);
  });

  it('a malformed sluice.dev/owner-cluster is refused naming the annotation, and nothing is created', async () => {
    // Records another cluster wrote that no name of this operator matches: reading them never fails.
    await prodService('reader');
    await serviceRecordedAs(`a/b/${env.namespace}/DatabaseService/reader`, 'reader');
    await env.clearCalls();
    const values = ['a/b', 'x'.repeat(70), 'Prod_EU'];
    for (const [i, value] of values.entries()) {
      await env.apply(`bad-${i}`, { name: `bad ${i}` }, { [OWNER_CLUSTER]: value });
    }
    await env.apply('reader', { name: 'reader' });
    for (const [i, value] of values.entries()) {
      const refused = await env.waitFor(`bad-${i}`, 'refused', refusedFor('InvalidAnnotation'));
      const message = condition(refused, 'Ready')!.message!;
      expect(message).toContain(`annotation ${OWNER_CLUSTER} is "${value.slice(0, 80)}`);
      expect(message).toContain('DNS label');
    }
    const reader = await env.waitFor('reader', 'Ready', (o) => isReady(o) && !!o?.status?.id);
    const created = writes(await env.calls()).filter((c) => c.method === 'POST');
    expect(created).toHaveLength(1);
    expect(env.emulator.store.services.get(reader.status!.id!)!.tags).toEqual([
      { key: OWNER_TAG, value: `dev/${env.namespace}/DatabaseService/reader` },
    ]);
  });
});

async function faultsLeft(env: OperatorEnv): Promise<number> {
  const response = await fetch(`${env.emulator.url}/_emulator/faults`);
  return ((await response.json()) as { faults: unknown[] }).faults.length;
}
