import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import {
  condition,
  isReady,
  startOperatorEnv,
  writes,
  type OperatorEnv,
  useOperatorEnv,
} from '../support.ts';

const SERVICE = '/v1/organizations/:organizationId/services/:serviceId';
const EXTERNAL_ID = 'sluice.dev/external-id';
const RESET_PASSWORD = 'sluice.dev/reset-password';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** True when `password` is the one the cloud holds for the service now. */
const cloudAccepts = (env: OperatorEnv, id: string, password: string) =>
  env.emulator.store.services.get(id)?.passwordSha256 === sha256(password);

const alreadyManaged = (env: OperatorEnv, name: string) =>
  env.waitFor(name, 'Ready=False AlreadyManaged', (r) => condition(r, 'Ready')?.reason === 'AlreadyManaged');

describe.skipIf(clusterSkipReason())('DatabaseService adopting an id another object manages', () => {
  let a: OperatorEnv;
  let b: OperatorEnv;
  let id: string;
  let password: string;

  beforeAll(async () => {
    a = await startOperatorEnv('dbs-owner');
    b = await startOperatorEnv('dbs-adopter', {}, { sharing: a });
    // One operator that sees both namespaces, as a cluster-wide install does.
    await a.startOperator({ namespace: `${a.namespace},${b.namespace}` });
    await a.apply('orders', { name: 'orders' });
    id = (await a.waitFor('orders', 'Ready', isReady)).status!.id!;
    password = (await a.secret('orders-connection'))!.password!;
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  for (const where of ['another namespace', 'the same namespace'] as const) {
    const naming = where === 'another namespace' ? 'naming no holder' : 'naming the holder';
    it(`in ${where}: Ready=False AlreadyManaged ${naming}, no cloud write, and its deletion deletes nothing`, async () => {
      const env = where === 'another namespace' ? b : a;
      const name = where === 'another namespace' ? 'thief' : 'twin';
      await a.clearCalls();
      await env.apply(name, { name, deletionPolicy: 'Delete' }, { [EXTERNAL_ID]: id });

      const refused = await alreadyManaged(env, name);
      expect(condition(refused, 'Ready')!.status).toBe('False');
      const message = condition(refused, 'Ready')!.message!;
      // Only within its namespace is the holder named: elsewhere, a message would map ids to their owners.
      if (where === 'another namespace') expect(message).not.toContain(a.namespace);
      else expect(message).toContain(`${a.namespace}/orders`);
      expect(refused.status!.id).toBeUndefined();
      expect(writes(await a.calls())).toEqual([]);
      // The holder's applications keep working: the cloud still takes the password in its Secret.
      expect((await a.secret('orders-connection'))!.password).toBe(password);
      expect(cloudAccepts(a, id, password)).toBe(true);
      expect(await env.secret(`${name}-connection`)).toBeUndefined();

      await env.removeUntilGone(name);
      expect(writes(await a.calls())).toEqual([]);
      expect((await a.cloud.getService(id)).name).toBe('orders');
      expect(isReady(await a.get('orders'))).toBe(true);
    });
  }

  it('two objects adopting one unheld id at once: the older holds it, the other is AlreadyManaged naming it until it is deleted', async () => {
    const { service } = await a.cloud.createService({ name: 'shared', provider: 'aws', region: 'us-east-1' });
    await a.apply('shared-1', { name: 'shared' }, { [EXTERNAL_ID]: service.id });
    await a.apply('shared-2', { name: 'shared' }, { [EXTERNAL_ID]: service.id });

    const holder = await a.waitFor('shared-1', 'Ready with the id', (r) => isReady(r) && !!r?.status?.id);
    expect(holder.status!.id).toBe(service.id);
    const refused = await alreadyManaged(a, 'shared-2');
    expect(condition(refused, 'Ready')!.message).toContain(`${a.namespace}/shared-1`);
    expect(refused.status!.id).toBeUndefined();

    // The holder deleted (deletionPolicy Orphan): the one refused is woken and adopts the service at once.
    await a.remove('shared-1');
    const adopted = await a.waitFor('shared-2', 'Ready with the id', (r) => isReady(r) && !!r?.status?.id);
    expect(adopted.status!.id).toBe(service.id);
  });
});

describe.skipIf(clusterSkipReason())('DatabaseService adopting an unmanaged service', () => {
  const env = useOperatorEnv('dbs-adopt');

  it('writes nothing and resets no password: the Secret holds the non-secret keys, status says the password is unknown; the annotation resets it once', async () => {
    const { service, password } = await env.cloud.createService({
      name: 'legacy',
      provider: 'aws',
      region: 'us-east-1',
      tags: [{ key: 'team', value: 'data' }],
    });
    await env.clearCalls();
    await env.apply('legacy', { name: 'legacy' }, { [EXTERNAL_ID]: service.id });

    const adopted = await env.waitFor('legacy', 'Ready', isReady);
    expect(adopted.status!.id).toBe(service.id);
    expect(adopted.status!.unknownConnectionKeys).toEqual(['password']);
    expect(condition(adopted, 'Ready')!.message).toContain(RESET_PASSWORD);
    const secret = (await env.secret('legacy-connection'))!;
    expect(secret).toMatchObject({ host: expect.any(String), port: expect.any(String), username: 'default' });
    expect(secret.https_host).toBe(secret.host);
    expect(secret).not.toHaveProperty('password');
    // The spec asks for nothing the service does not have: not a single write, its own tags kept.
    expect(writes(await env.calls())).toEqual([]);
    expect((await env.cloud.getService(service.id)).tags).toEqual([{ key: 'team', value: 'data' }]);
    expect(cloudAccepts(env, service.id, password)).toBe(true);

    await env.annotate('legacy', { [RESET_PASSWORD]: 'first' });
    const reset = await env.waitFor(
      'legacy',
      'the reset recorded',
      (r) => r?.status?.passwordReset === 'first',
    );
    expect(reset.status!.unknownConnectionKeys).toBeUndefined();
    const stored = (await env.secret('legacy-connection'))!.password!;
    expect(cloudAccepts(env, service.id, stored)).toBe(true);

    // Acted on once per value: a later spec change resets nothing.
    await env.patchSpec('legacy', { name: 'legacy renamed' });
    await env.waitFor(
      'legacy',
      'the rename applied',
      (r) => isReady(r) && r!.status!.observedGeneration === r!.metadata.generation,
    );
    expect((await env.calls()).filter((c) => c.route === `${SERVICE}/password`)).toHaveLength(1);
    expect((await env.secret('legacy-connection'))!.password).toBe(stored);
  });
});
