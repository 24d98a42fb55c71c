// Two clusters on one organization, both running (two-clusters.ts): prod, and dev where a tenant who can
// write one namespace tries to reach prod's objects through sluice. Each side's calls are recorded by its own
// proxy, so what dev sent about prod's objects is known exactly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERTS, tileAlert } from '../../../../tools/fixtures/alert.ts';
import { startControlPlane, type ControlPlane } from '../../../../tools/cluster/control-plane.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { ownerNote } from '../../../../src/kinds/alert/mapping.ts';
import { kafkaPipe } from '../../../../tools/fixtures/pipe.ts';
import { baseSpec, condition, isReady, QUOTA_MODES, type SluiceObject } from '../support.ts';
import { startPair, stopPair, touching, type Side } from './two-clusters.ts';
import { applyCraftedLostCreate } from './ownership-fixtures.ts';

const OWNER_CLUSTER = 'sluice.dev/owner-cluster';
const EXTERNAL_ID = 'sluice.dev/external-id';
const OWNER_TAG = 'sluice.dev/owner';
const quota = QUOTA_MODES[0]!;

const refusedFor = (reason: string) => (o: SluiceObject | undefined) =>
  condition(o, 'Ready')?.status === 'False' && condition(o, 'Ready')?.reason === reason;

/** Every call `side` sent that changed something in the cloud. */
const sentWrites = (side: Side) => side.proxy.calls().filter((c) => c.method !== 'GET');

describe.skipIf(clusterSkipReason())('another cluster on the organization, seen from a tenant of dev', () => {
  let second: ControlPlane;
  let pair: { a: Side; b: Side };
  let dev: Side;
  let prod: Side;
  /** prod's cloud ids, by kind/name. */
  const prodIds: Record<string, string> = {};

  beforeAll(async () => {
    second = await startControlPlane();
    pair = await startPair('isolation', second, quota.emulator);
    ({ a: dev, b: prod } = pair);
    await dev.env.startOperator({ ...quota.operator, clusterName: 'dev' });
    await prod.env.startOperator({ ...quota.operator, clusterName: 'prod' });
    await prod.env.apply('orders', { name: 'orders' });
    await prod.env.of('Pipe').apply('ingest', kafkaPipe('ingest', { service: 'orders' }));
    for (const [kind, name] of [
      ['DatabaseService', 'orders'],
      ['Pipe', 'ingest'],
    ] as const) {
      const ready = await prod.env
        .of<SluiceObject>(kind)
        .waitFor(name, 'Ready', (o) => isReady(o) && !!o?.status?.id, 60_000);
      prodIds[`${kind}/${name}`] = ready.status!.id!;
    }
  }, 180_000);
  afterAll(async () => {
    await stopPair(pair);
    await second?.stop();
  });

  it('an annotation naming prod takes none of prod’s objects, resets no password, and deleting it deletes nothing of prod’s', async () => {
    const annotations = { [OWNER_CLUSTER]: 'prod', 'sluice.dev/reset-password': 'now' };
    await dev.env.apply('orders', { name: 'orders' }, annotations);
    await dev.env
      .of('Pipe')
      .apply('ingest', kafkaPipe('ingest', { service: 'orders' }), { [OWNER_CLUSTER]: 'prod' });
    const refused = await dev.env.waitFor('orders', 'refused', refusedFor('OwnerClusterNotAllowed'));
    expect(condition(refused, 'Ready')!.message).not.toContain(EXTERNAL_ID);
    await dev.env.of('Pipe').waitFor('ingest', 'refused', refusedFor('OwnerClusterNotAllowed'));
    expect(await dev.env.secret('orders-connection')).toBeUndefined();

    await dev.env.remove('orders');
    await dev.env.of('Pipe').remove('ingest');
    await dev.env.waitFor('orders', 'gone', (o) => o === undefined);
    await dev.env.of('Pipe').waitFor('ingest', 'gone', (o) => o === undefined);
    expect(touching(dev.proxy.calls(), prodIds)).toEqual([]);
    expect(sentWrites(dev)).toEqual([]);
    expect(isReady(await prod.env.get('orders'))).toBe(true);
    const { store } = prod.env.emulator;
    expect(store.pipesOf(prodIds['DatabaseService/orders']!).get(prodIds['Pipe/ingest']!)).toBeDefined();
  });

  it('deleting a dev object posing as prod’s lost create (owner-cluster, create-pending, finalizer) sends nothing about the service prod made since', async () => {
    await applyCraftedLostCreate(dev.env, 'ledger', 'prod', { name: 'ledger' });
    await dev.env.waitFor('ledger', 'refused', refusedFor('OwnerClusterNotAllowed'));
    await prod.env.apply('ledger', { name: 'ledger' });
    const theirs = await prod.env.waitFor('ledger', 'Ready', (o) => isReady(o) && !!o?.status?.id, 60_000);
    const id = theirs.status!.id!;

    await dev.env.remove('ledger');
    await dev.env.waitFor('ledger', 'gone', (o) => o === undefined);
    expect(touching(dev.proxy.calls(), { id })).toEqual([]);
    expect(sentWrites(dev)).toEqual([]);
    expect(prod.env.emulator.store.services.get(id)?.state).toBe('running');
    expect(isReady(await prod.env.get('ledger'))).toBe(true);
  });

  it('adopting prod’s service by id, with spec.tags as sluice export writes them, is refused: no write, prod’s record stays', async () => {
    const id = prodIds['DatabaseService/orders']!;
    await dev.env.apply('copy', { name: 'orders', tags: [] }, { [EXTERNAL_ID]: id });
    const refused = await dev.env.waitFor('copy', 'refused', refusedFor('OwnedByAnotherCluster'));
    expect(condition(refused, 'Ready')!.message).toContain(`cluster "prod"`);
    expect(refused.status?.id).toBeUndefined();
    expect(sentWrites(dev)).toEqual([]);
    expect(prod.env.emulator.store.services.get(id)!.tags).toEqual([
      { key: OWNER_TAG, value: `prod/${prod.env.namespace}/DatabaseService/orders` },
    ]);
    await dev.env.remove('copy');
    await dev.env.waitFor('copy', 'gone', (o) => o === undefined);
  });

  it('a lost alert create (500) in dev never adopts prod’s alert of the same name, created meanwhile: dev creates its own', async () => {
    // dev's create is held 6 s and answered 500 without creating; prod creates its alert meanwhile.
    await dev.env.fault({ method: 'POST', route: ALERTS, status: 500, latencyMs: 6_000, count: 1 });
    await dev.env.of('Alert').apply('cpu', tileAlert('cpu'));
    const deadline = Date.now() + 10_000;
    const heldBack = () => dev.proxy.calls().some((c) => c.method === 'POST' && c.status === 0);
    while (Date.now() < deadline && !heldBack()) await new Promise((r) => setTimeout(r, 50));
    await prod.env.of('Alert').apply('cpu', tileAlert('cpu'));
    const theirs = await prod.env
      .of<SluiceObject>('Alert')
      .waitFor('cpu', 'Ready', (o) => isReady(o) && !!o?.status?.id);
    // dev's create was still unanswered when prod's alert was made.
    expect(dev.proxy.calls().filter((c) => c.method === 'POST' && c.path.endsWith('/alerts'))).toEqual([
      expect.objectContaining({ status: 0 }),
    ]);

    const ours = await dev.env
      .of<SluiceObject>('Alert')
      .waitFor('cpu', 'Ready', (o) => isReady(o) && !!o?.status?.id, 30_000);
    expect(dev.proxy.calls().filter((c) => c.method === 'POST' && c.status === 500)).toHaveLength(1);
    expect(ours.status!.id).not.toBe(theirs.status!.id);
    const store = prod.env.emulator.store.alerts;
    expect(store.get(theirs.status!.id!)?.note).toBe(ownerNote(`prod/${prod.env.namespace}/Alert/cpu`));
    expect(store.get(ours.status!.id!)?.note).toBe(ownerNote(`dev/${dev.env.namespace}/Alert/cpu`));
    expect(
      touching(dev.proxy.calls(), { alert: theirs.status!.id! }).filter((c) => c.method !== 'GET'),
    ).toEqual([]);
  });

  it('a malformed owner-cluster in dev creates nothing, while prod’s records are read alongside', async () => {
    const before = sentWrites(dev).length;
    await dev.env.apply('bad', { ...baseSpec, name: 'bad' }, { [OWNER_CLUSTER]: 'a/b' });
    const refused = await dev.env.waitFor('bad', 'refused', refusedFor('InvalidAnnotation'));
    expect(condition(refused, 'Ready')!.message).toContain(OWNER_CLUSTER);
    expect(sentWrites(dev)).toHaveLength(before);
  });
});
