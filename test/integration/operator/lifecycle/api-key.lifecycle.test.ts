import { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../support/wait.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { sha256Hex } from '../../../../src/cloud/api-key-hash.ts';
import { KEY, KEYS, teamKey } from '../../../../tools/fixtures/api-key.ts';
import { unmarkedName } from '../../../../src/kinds/api-key/owner-mark.ts';
import {
  condition,
  crashDuringCreate,
  isReady,
  useOperatorEnv,
  writes,
  type CallRecord,
  type SluiceObject,
} from '../support.ts';
import { refuseSecretWrites } from '../secret-admission.ts';
import { untilValue } from '../../../support/wait.ts';

const ready = (o: SluiceObject | undefined) => isReady(o) && o?.status?.id !== undefined;
const keyCreates = (calls: CallRecord[]) => calls.filter((c) => c.method === 'POST' && c.route === KEYS);

describe.skipIf(clusterSkipReason())('ApiKey on a real apiserver against the emulator', () => {
  const env = useOperatorEnv('api-key');
  let lift: (() => Promise<void>) | undefined;
  const keys = () => env.of<SluiceObject>('ApiKey');
  const cloudKeysNamed = (name: string) =>
    [...env.emulator.store.apiKeys.values()].filter((key) => unmarkedName(key.name) === name);

  afterEach(async () => {
    await lift?.();
    lift = undefined;
  });

  it('writes the Secret, creates the key from its hashes, and the Secret works as a credentialsRef at once', async () => {
    await keys().apply('team-a', teamKey('team-a'));
    const key = await keys().waitFor('team-a', 'Ready', ready);
    const secret = (await env.secret('team-a-credentials'))!;
    expect(Object.keys(secret).sort()).toEqual(['keyId', 'keySecret', 'managementUrl', 'organizationId']);
    expect(secret).toMatchObject({
      organizationId: env.emulator.credentials.organizationId,
      managementUrl: env.emulator.url,
    });
    const [cloud] = cloudKeysNamed('team-a');
    expect(cloud).toMatchObject({
      id: key.status!.id,
      roles: ['developer'],
      state: 'enabled',
      keyIdHash: sha256Hex(secret.keyId!),
      keySecretHash: sha256Hex(secret.keySecret!),
    });
    expect(key.status).toMatchObject({
      keyId: cloud!.id,
      keySuffix: secret.keyId!.slice(-4),
      state: 'enabled',
    });
    expect(JSON.stringify(key)).not.toContain(secret.keySecret);
    const [create] = keyCreates(await env.calls());
    expect(JSON.stringify(create!.body)).not.toContain(secret.keySecret);

    await env.apply('by-team-a', { name: 'by team a', credentialsRef: { name: 'team-a-credentials' } });
    await env.waitFor('by-team-a', 'Ready', isReady);
    const used = (await env.calls()).filter((c) => c.key === secret.keyId);
    expect(used.length).toBeGreaterThan(0);
    expect(used.every((c) => c.status === 200)).toBe(true);
    await env.remove('by-team-a');
  });

  it('an object whose credentials Secret an ApiKey has yet to write waits for it, with no Warning, then becomes Ready', async () => {
    // The paused key holds the moment before it writes its Secret.
    await keys().apply('later', teamKey('later'), { 'sluice.dev/paused': 'true' });
    await env.apply('by-later', { name: 'by later', credentialsRef: { name: 'later-credentials' } });
    const waiting = await env.waitFor(
      'by-later',
      'WaitingForCredentials',
      (o) => condition(o, 'Ready')?.reason === 'WaitingForCredentials',
    );
    expect(condition(waiting, 'Ready')!.message).toBe(
      'waiting for ApiKey later to write the Secret later-credentials that spec.credentialsRef names',
    );
    expect(condition(waiting, 'Synced')).toMatchObject({ status: 'True' });
    expect(waiting.status?.credentials).toBe('later-credentials');

    await keys().annotate('later', { 'sluice.dev/paused': null });
    await env.waitFor('by-later', 'Ready', ready, 30_000);
    const warnings = (await env.core.listNamespacedEvent({ namespace: env.namespace })).items.filter(
      (e) => e.involvedObject.name === 'by-later' && e.type === 'Warning',
    );
    expect(warnings).toEqual([]);
    await env.remove('by-later');
  });

  it('applies an edit as one PATCH of the fields that differ', async () => {
    await keys().apply('edited', teamKey('edited'));
    const id = (await keys().waitFor('edited', 'Ready', ready)).status!.id!;
    await env.clearCalls();
    await keys().patchSpec('edited', {
      roles: ['developer', 'query_endpoints'],
      expireAt: '2099-01-01T00:00:00Z',
    });
    await keys().waitFor('edited', 'edit Ready', (o) => ready(o) && o!.status!.observedGeneration === 2);
    const changes = writes(await env.calls());
    expect(changes.map((c) => `${c.method} ${c.route}`)).toEqual([`PATCH ${KEY}`]);
    expect(changes[0]!.body).toEqual({
      roles: ['developer', 'query_endpoints'],
      expireAt: '2099-01-01T00:00:00Z',
    });
    expect(env.emulator.store.apiKeys.get(id)).toMatchObject({
      roles: ['developer', 'query_endpoints'],
      expireAt: '2099-01-01T00:00:00Z',
    });
  });

  it('a disabled key: the object using it reports the 401 in status and does not retry it in a hot loop', async () => {
    await keys().apply('switched', teamKey('switched'));
    await keys().waitFor('switched', 'Ready', ready);
    const { keyId } = (await env.secret('switched-credentials'))!;
    await env.apply('user', { name: 'user' }, { 'sluice.dev/sync-interval': '1s' });
    await env.patchSpec('user', { credentialsRef: { name: 'switched-credentials' } });
    await env.waitFor('user', 'Ready with the key', (r) => isReady(r) && r?.status?.observedGeneration === 2);

    await keys().patchSpec('switched', { state: 'disabled' });
    const disabled = await keys().waitFor('switched', 'disabled', (o) => o?.status?.state === 'disabled');
    expect(condition(disabled, 'Ready')).toMatchObject({ status: 'True' });
    const refused = await env.waitFor(
      'user',
      'Synced=False',
      (r) => condition(r, 'Synced')?.status === 'False',
    );
    expect(condition(refused, 'Synced')!.message).toContain('disabled');
    const since = Date.now();
    // A neighbour on the same 1 s sync interval is looked at three more times meanwhile.
    await env.apply('neighbour', { name: 'neighbour' }, { 'sluice.dev/sync-interval': '1s' });
    await env.waitFor('neighbour', 'Ready', isReady);
    const from = await env.reconciles('DatabaseService');
    await untilValue(
      'three more reconciles',
      () => env.reconciles('DatabaseService'),
      (n) => n >= from + 3,
    );
    const unauthorized = (await env.calls()).filter(
      (c) => c.key === keyId && c.status === 401 && Date.parse(c.timestamp) >= since,
    );
    // A refused call is retried no sooner than 10 s, not at the sync interval: at most one more.
    expect(unauthorized.length).toBeLessThanOrEqual(1);
    await env.remove('neighbour');
    await env.remove('user');
  });

  it('deleting the object deletes the key: its Secret no longer authenticates', async () => {
    await keys().apply('short-lived', teamKey('short-lived'));
    const id = (await keys().waitFor('short-lived', 'Ready', ready)).status!.id!;
    await keys().remove('short-lived');
    await keys().waitFor('short-lived', 'gone', (o) => o === undefined);
    expect(env.emulator.store.apiKeys.has(id)).toBe(false);
  });

  it('a Secret write admission refuses (though its dry run passed) creates no key; the key follows once it can be written', async () => {
    lift = await refuseSecretWrites(env, true);
    await env.clearCalls();
    await keys().apply('blocked', teamKey('blocked'));
    await keys().waitFor('blocked', 'Synced=False', (o) => condition(o, 'Synced')?.status === 'False');
    await env.reconciledAgain('ApiKey', 'blocked');
    expect(keyCreates(await env.calls())).toHaveLength(0);
    expect(cloudKeysNamed('blocked')).toHaveLength(0);

    await lift();
    lift = undefined;
    const key = await keys().waitFor('blocked', 'Ready', ready);
    expect(keyCreates(await env.calls())).toHaveLength(1);
    const secret = (await env.secret('blocked-credentials'))!;
    expect(env.emulator.store.apiKeys.get(key.status!.id!)?.keySecretHash).toBe(sha256Hex(secret.keySecret!));
  });

  it('a QueryEndpoint naming an ApiKey by object waits for its key, then allows it beside the raw key ids', async () => {
    await env.apply('queried', { name: 'queried' });
    const serviceId = (await env.waitFor('queried', 'Ready', isReady)).status!.id!;
    const endpoints = env.of<SluiceObject>('QueryEndpoint');
    await endpoints.apply('console', {
      serviceRef: { name: 'queried' },
      roles: ['sql_console_read_only'],
      openApiKeys: ['key-1'],
      apiKeyRefs: [{ name: 'reader' }],
    });
    const waiting = await endpoints.waitFor(
      'console',
      'waiting for the key',
      (o) =>
        condition(o, 'Ready')?.status === 'False' &&
        /ApiKey reader/.test(condition(o, 'Ready')?.message ?? ''),
    );
    expect(waiting.status?.id).toBeUndefined();
    expect(env.emulator.store.queryEndpoints.get(serviceId)).toBeUndefined();

    await keys().apply('reader', teamKey('reader', { roles: ['query_endpoints'] }));
    const keyId = (await keys().waitFor('reader', 'Ready', ready)).status!.id!;
    const endpoint = await endpoints.waitFor('console', 'Ready', ready);
    expect(endpoint.status!.openApiKeys).toEqual([keyId, 'key-1'].sort());
    expect(env.emulator.store.queryEndpoints.get(serviceId)?.openApiKeys?.sort()).toEqual(
      [keyId, 'key-1'].sort(),
    );
    await endpoints.remove('console');
    await endpoints.waitFor('console', 'gone', (o) => o === undefined);
    await env.remove('queried');
  });

  it('a rotation whose create answer is lost makes exactly one new key, whose secret reaches the Secret, and deletes only the old one', async () => {
    await keys().apply('turned', teamKey('turned', { rotation: { gracePeriod: '10s' } }));
    const oldId = (await keys().waitFor('turned', 'Ready', ready)).status!.id!;
    const before = (await env.secret('turned-credentials'))!;
    // The create is made, but its answer never arrives: the next attempt sends the same key again.
    await env.fault({ method: 'POST', route: KEYS, phase: 'response', drop: true, count: 1 });
    await keys().annotate('turned', { 'sluice.dev/rotate': 'r1' });
    const rotating = await keys().waitFor('turned', 'rotating', (o) => o?.status?.previousKeyId === oldId);
    const newId = rotating.status!.id!;
    expect(
      cloudKeysNamed('turned')
        .map((k) => k.id)
        .sort(),
    ).toEqual([oldId, newId].sort());
    const done = await keys().waitFor(
      'turned',
      'the old key deleted',
      (o) => o?.status?.previousKeyId === undefined && o?.status?.lastRotation === 'r1',
      60_000,
    );
    expect(done.status!.id).toBe(newId);
    expect(cloudKeysNamed('turned').map((k) => k.id)).toEqual([newId]);
    const after = (await env.secret('turned-credentials'))!;
    expect(after.keyId).not.toBe(before.keyId);
    expect(env.emulator.store.apiKeys.get(newId)!.keySecretHash).toBe(sha256Hex(after.keySecret!));
    expect(JSON.stringify(done)).not.toContain(after.keySecret);
  });

  it("after a kill -9 between a rotation's key POST and its status write, the restarted operator keeps the old key id, finishes the rotation and deletes only the old key", async () => {
    await keys().apply('relay', teamKey('relay', { rotation: { gracePeriod: '10s' } }));
    const oldId = (await keys().waitFor('relay', 'Ready', ready)).status!.id!;
    await env.stopOperator();
    await env.fault({ method: 'POST', route: KEYS, phase: 'response', latencyMs: 60_000 });
    const child = env.spawnOperator();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await keys().annotate('relay', { 'sluice.dev/rotate': 'r1' });
      await until('the new key made', () => cloudKeysNamed('relay').length === 2, 30_000, 50);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    const killed = (await keys().get('relay'))!;
    expect(killed.status?.id).toBe(oldId);
    expect(killed.status?.previousKeyId).toBeUndefined();
    const [made] = cloudKeysNamed('relay').filter((k) => k.id !== oldId);
    const stored = (await env.secret('relay-credentials'))!;
    expect(made!.keySecretHash).toBe(sha256Hex(stored.nextKeySecret!));
    await env.fault();
    await env.startOperator();
    const rotating = await keys().waitFor('relay', 'rotating', (o) => o?.status?.previousKeyId === oldId);
    expect(rotating.status!.id).toBe(made!.id);
    await keys().waitFor(
      'relay',
      'the old key deleted',
      (o) => o?.status?.previousKeyId === undefined,
      60_000,
    );
    expect(cloudKeysNamed('relay').map((k) => k.id)).toEqual([made!.id]);
    expect((await env.secret('relay-credentials'))!.keyId).toBe(stored.nextKeyId);
  });

  it('a QueryEndpoint naming a rotated ApiKey lets in the previous key until it is deleted, then the new one alone', async () => {
    await env.apply('rotated-q', { name: 'rotated q' });
    const serviceId = (await env.waitFor('rotated-q', 'Ready', isReady)).status!.id!;
    await keys().apply(
      'caller',
      teamKey('caller', { roles: ['query_endpoints'], rotation: { gracePeriod: '10s' } }),
    );
    const oldId = (await keys().waitFor('caller', 'Ready', ready)).status!.id!;
    const endpoints = env.of<SluiceObject>('QueryEndpoint');
    await endpoints.apply('rotated-console', {
      serviceRef: { name: 'rotated-q' },
      roles: ['sql_console_read_only'],
      apiKeyRefs: [{ name: 'caller' }],
    });
    await endpoints.waitFor('rotated-console', 'Ready', ready);
    const allowed = () => [...(env.emulator.store.queryEndpoints.get(serviceId)?.openApiKeys ?? [])].sort();
    expect(allowed()).toEqual([oldId]);

    await keys().annotate('caller', { 'sluice.dev/rotate': 'r1' });
    const newId = (await keys().waitFor('caller', 'rotating', (o) => o?.status?.previousKeyId === oldId))
      .status!.id!;
    await until(
      'both keys allowed',
      async () => isDeepStrictEqual(allowed(), [oldId, newId].sort()),
      30_000,
      100,
    );
    await keys().waitFor(
      'caller',
      'the old key deleted',
      (o) => o?.status?.previousKeyId === undefined,
      60_000,
    );
    await until('the new key alone allowed', async () => isDeepStrictEqual(allowed(), [newId]), 30_000, 100);
    await endpoints.remove('rotated-console');
    await endpoints.waitFor('rotated-console', 'gone', (o) => o === undefined);
    await env.remove('rotated-q');
  });

  it('after a kill -9 between the key POST and the status write, exactly one key exists and its secret is in the Secret', async () => {
    await env.stopOperator();
    const { orphaned, ready: adopted } = await crashDuringCreate(
      env,
      { kind: 'ApiKey', name: 'phoenix', spec: teamKey('phoenix') },
      { route: KEYS, created: () => cloudKeysNamed('phoenix').length, count: 1 },
    );
    expect(orphaned.status?.id).toBeUndefined();
    expect(orphaned.metadata.annotations?.['sluice.dev/create-pending']).toBeDefined();
    const [only] = cloudKeysNamed('phoenix');
    expect(cloudKeysNamed('phoenix')).toHaveLength(1);
    expect(adopted.status!.id).toBe(only!.id);
    const secret = (await env.secret('phoenix-credentials'))!;
    expect(only!.keySecretHash).toBe(sha256Hex(secret.keySecret!));
    expect(keyCreates(await env.calls())).toHaveLength(0);
  });
});
