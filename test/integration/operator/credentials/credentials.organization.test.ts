// Someone who can write Secrets but not the objects swaps an object's credentials for a key of another
// organization: the organization an object's cloud id lives in is pinned in status, so the object is refused
// (Synced=False, no create there), and a deletion under those credentials waits (a 404 there is no "gone").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import {
  condition,
  isReadyWithId,
  startOperatorEnv,
  TIME_SCALE,
  writes,
  type OperatorEnv,
  type SluiceObject,
} from '../support.ts';

const refused = (o: SluiceObject | undefined) =>
  condition(o, 'Synced')?.status === 'False' && condition(o, 'Synced')?.reason === 'OrganizationChanged';

describe.skipIf(clusterSkipReason())("an object's credentials swapped for another organization's", () => {
  /** The operator and the organization the objects live in. */
  let env: OperatorEnv;
  /** Another organization (its own emulator), whose key the Secret is swapped for. */
  let elsewhere: OperatorEnv;
  const keyOf = (of: OperatorEnv) => ({
    organizationId: of.emulator.credentials.organizationId,
    keyId: of.emulator.credentials.keyId,
    keySecret: of.emulator.credentials.keySecret,
    managementUrl: of.emulator.url,
  });

  beforeAll(async () => {
    env = await startOperatorEnv('org-pinned', { timeScale: TIME_SCALE });
    elsewhere = await startOperatorEnv('org-elsewhere', { timeScale: TIME_SCALE });
    const host = (of: OperatorEnv) => `http://${new URL(of.emulator.url).host}`;
    await env.startOperator({ timeScale: TIME_SCALE, allowedApiHosts: `${host(env)},${host(elsewhere)}` });
  });
  afterAll(async () => {
    await env?.close();
    await elsewhere?.close();
  });

  it('a Ready object under another organization is Synced=False with the organization pinned, and nothing is created there', async () => {
    await env.putSecret('tenant', keyOf(env));
    await env.apply('orders', { name: 'orders', credentialsRef: { name: 'tenant' } });
    const ready = await env.waitFor('orders', 'Ready', isReadyWithId, 30_000);
    const organizationId = env.emulator.credentials.organizationId;
    expect(ready.status?.organizationId).toBe(organizationId);

    await elsewhere.clearCalls();
    await env.putSecret('tenant', keyOf(elsewhere));
    const stopped = await env.waitFor('orders', 'OrganizationChanged', refused, 30_000);
    expect(condition(stopped, 'Synced')!.message).toContain(organizationId);
    expect(condition(stopped, 'Synced')!.message).toContain(elsewhere.emulator.credentials.organizationId);
    await env.freshLook('DatabaseService', 'orders');
    const after = (await env.get('orders'))!;
    expect(refused(after)).toBe(true);
    expect(after.status?.id).toBe(ready.status!.id);
    expect(after.status?.organizationId).toBe(organizationId);
    expect(writes(await elsewhere.calls())).toEqual([]);
    expect(elsewhere.emulator.store.services.size).toBe(0);

    // Pointed back, it is Ready again on the same service.
    await env.putSecret('tenant', keyOf(env));
    const back = await env.waitFor('orders', 'Ready again', (o) => isReadyWithId(o) && !refused(o), 30_000);
    expect(back.status?.id).toBe(ready.status!.id);
  });

  it('a deletion under another organization keeps the finalizer and says why; pointed back, the service is deleted', async () => {
    await env.putSecret('leaving', keyOf(env));
    await env.apply('leaving', {
      name: 'leaving',
      deletionPolicy: 'Delete',
      credentialsRef: { name: 'leaving' },
    });
    const id = (await env.waitFor('leaving', 'Ready', isReadyWithId, 30_000)).status!.id!;

    await elsewhere.clearCalls();
    await env.putSecret('leaving', keyOf(elsewhere));
    await env.remove('leaving');
    const waiting = await env.waitFor('leaving', 'the deletion refused', refused, 30_000);
    expect(waiting.metadata.finalizers ?? []).toContain('sluice.dev/cleanup');
    await env.reconciledAgain('DatabaseService', 'leaving');
    expect(await env.get('leaving')).toBeDefined();
    expect(env.emulator.store.services.has(id)).toBe(true);
    expect(writes(await elsewhere.calls())).toEqual([]);

    await env.putSecret('leaving', keyOf(env));
    await env.waitFor('leaving', 'gone', (o) => o === undefined, 60_000);
    expect(env.emulator.store.services.has(id)).toBe(false);
  });
});
