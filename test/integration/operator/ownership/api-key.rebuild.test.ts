// An ApiKey in a cluster rebuilt from Git. The cloud never shows a key's secret again, so the lost cluster's
// key cannot be taken back as a service is: the rebuilt ApiKey makes a new key into its new Secret, and the
// old key, found by the owner record its name carries, goes after the grace period as a rotation's would.
import { describe, expect, it } from 'vitest';
import { teamKey } from '../../../../tools/fixtures/api-key.ts';
import { cloudKeyName, isRecordedFor, unmarkedName } from '../../../../src/kinds/api-key/owner-mark.ts';
import { newKeyIdentity } from '../../../../src/cloud/api-key-hash.ts';
import { apiKeyCreateBody } from '../../../../src/kinds/api-key/mapping.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { until } from '../../../support/wait.ts';
import {
  baseSpec,
  condition,
  isReadyWithId,
  kubectlIn,
  writes,
  TIME_SCALE,
  useOperatorEnv,
  type OperatorEnv,
  type SluiceObject,
  loseObjects,
} from '../support.ts';
import { planDocuments } from '../plan-in-process.ts';

const SECRET = 'team-credentials';
const OPERATOR = { clusterName: 'prod', timeScale: TIME_SCALE };
const OWNER = { cluster: 'prod', kind: 'ApiKey', name: 'team' };
/** What Git holds: the team's key and a service signing in with it. */
const MANIFESTS = [
  {
    kind: 'ApiKey',
    name: 'team',
    spec: teamKey('team', { credentialsSecret: { name: SECRET }, rotation: { gracePeriod: '10s' } }),
  },
  {
    kind: 'DatabaseService',
    name: 'analytics',
    spec: { ...baseSpec, name: 'analytics', credentialsRef: { name: SECRET } },
  },
];

/** Applies the manifests and waits for each to be Ready with an id; the ids by kind. */
async function apply(env: OperatorEnv): Promise<Record<string, SluiceObject>> {
  const ready: Record<string, SluiceObject> = {};
  for (const { kind, name, spec } of MANIFESTS) {
    await env.of(kind).apply(name, spec);
    ready[kind] = await env.of<SluiceObject>(kind).waitFor(name, `${kind} Ready`, isReadyWithId, 60_000);
  }
  return ready;
}

/** The keys in the cloud named for the ApiKey `team` of this namespace. */
const teamKeys = (env: OperatorEnv) =>
  [...env.emulator.store.apiKeys.values()].filter((key) => unmarkedName(key.name) === 'team');

describe.skipIf(clusterSkipReason())('ApiKeys in a cluster rebuilt from Git', () => {
  const env = useOperatorEnv('key-rebuild', { operator: OPERATOR });

  it('makes a new key, deletes the lost cluster’s key after the grace period, and leaves exactly one key per ApiKey', async () => {
    const before = await apply(env);
    const lost = before.ApiKey!.status!.id!;
    // The key carries its owner record in its name: this object under cluster prod.
    const owner = { ...OWNER, namespace: env.namespace };
    expect(isRecordedFor(env.emulator.store.apiKeys.get(lost)!.name, owner)).toBe(true);

    await loseObjects(env, MANIFESTS, [SECRET, 'analytics-connection']);
    // The plan of the rebuild says what happens to the key.
    const { stdout } = await planDocuments(
      env,
      MANIFESTS.map(({ kind, name, spec }) => ({
        apiVersion: 'sluice.dev/v1alpha1',
        kind,
        metadata: { name, namespace: env.namespace },
        spec,
      })),
      { clusterName: 'prod' },
    );
    const planned = (JSON.parse(stdout) as { resources: { kind: string; action: string; reason: string }[] })
      .resources;
    expect(planned.find((r) => r.kind === 'ApiKey')).toMatchObject({
      action: 'create',
      reason: expect.stringContaining(`replaces key ${lost}`),
    });

    await env.startOperator(OPERATOR);
    const after = await apply(env);
    const made = after.ApiKey!.status!.id!;
    expect(made).not.toBe(lost);
    expect(after.ApiKey!.status).toMatchObject({ previousKeyId: lost });
    // The service signs in with the new key and is taken back, not made again.
    expect(after.DatabaseService!.status!.id).toBe(before.DatabaseService!.status!.id);

    await until('the lost cluster’s key deleted', () => !env.emulator.store.apiKeys.has(lost), 60_000);
    expect(teamKeys(env).map((key) => key.id)).toEqual([made]);
    // Status forgets it in the write that follows the DELETE.
    await env
      .of<SluiceObject>('ApiKey')
      .waitFor('team', 'previousKeyId cleared', (o) => o?.status?.previousKeyId === undefined);
    expect((await env.calls()).filter((c) => c.status === 401)).toEqual([]);
  }, 240_000);

  it('a key kept through a rebuild: its Secret restored from a backup as docs/disaster-recovery.md says, the same key is taken back, none made or deleted', async () => {
    const kubectl = kubectlIn(env);
    const keys = env.of<SluiceObject>('ApiKey');
    const spec = teamKey('restored');
    await keys.apply('restored', spec);
    const id = (await keys.waitFor('restored', 'Ready', isReadyWithId, 60_000)).status!.id!;
    const backup = (await env.secret('restored-credentials'))!;
    await loseObjects(env, [{ kind: 'ApiKey', name: 'restored' }], ['restored-credentials']);
    await env.clearCalls();
    await env.startOperator(OPERATOR);

    // Step 1: the ApiKey applied paused: no key is made, no Secret written.
    await keys.apply('restored', spec, { 'sluice.dev/paused': 'true' });
    // Step 2: the Secret from the backup, given to the ApiKey.
    await kubectl(
      'create',
      'secret',
      'generic',
      'restored-credentials',
      `--from-literal=keyId=${backup.keyId}`,
      `--from-literal=keySecret=${backup.keySecret}`,
    );
    const uid = await kubectl('get', 'apikey', 'restored', '-o', 'jsonpath={.metadata.uid}');
    const controller = { apiVersion: 'sluice.dev/v1alpha1', kind: 'ApiKey', name: 'restored', uid };
    await kubectl(
      'patch',
      'secret',
      'restored-credentials',
      '--type',
      'merge',
      '-p',
      JSON.stringify({
        metadata: {
          labels: { 'app.kubernetes.io/managed-by': 'sluice' },
          ownerReferences: [{ ...controller, controller: true }],
        },
      }),
    );
    // Step 3: resumed, it takes back the key the Secret holds.
    await kubectl('annotate', 'apikey', 'restored', 'sluice.dev/paused-');
    const back = await keys.waitFor('restored', 'taken back', isReadyWithId, 60_000);
    expect(back.status).toMatchObject({ id, adopted: true });
    await env.freshLook('ApiKey', 'restored');
    expect(writes(await env.calls())).toEqual([]);
    expect(await env.secret('restored-credentials')).toMatchObject({
      keyId: backup.keyId,
      keySecret: backup.keySecret,
      organizationId: backup.organizationId,
    });
  }, 120_000);

  it('a key recorded for another object is not adopted by id: OwnedByAnotherCluster, nothing written', async () => {
    const elsewhere = { cluster: 'staging', namespace: env.namespace, kind: 'ApiKey', name: 'taker' };
    const body = apiKeyCreateBody(
      { ...teamKey('other'), name: cloudKeyName('other', elsewhere) } as never,
      newKeyIdentity(),
    );
    const { key } = await env.cloud.createApiKey(body);
    await env.clearCalls();
    const keys = env.of<SluiceObject>('ApiKey');
    await keys.apply('taker', teamKey('taker'), { 'sluice.dev/external-id': key.id });
    const refused = await keys.waitFor(
      'taker',
      'refused',
      (o) => condition(o, 'Ready')?.reason === 'OwnedByAnotherCluster',
    );
    expect(condition(refused, 'Ready')!.message).toContain(key.id);
    await env.reconciledAgain('ApiKey', 'taker');
    expect(writes(await env.calls())).toEqual([]);
    expect(env.emulator.store.apiKeys.get(key.id)!.name).toBe(body.name);
  });

  it('a key with no record (made before keys had one, or in the console) adopted by id gets this object’s record: one PATCH of its name', async () => {
    const { key } = await env.cloud.createApiKey(
      apiKeyCreateBody(teamKey('console') as never, newKeyIdentity()),
    );
    await env.clearCalls();
    const keys = env.of<SluiceObject>('ApiKey');
    await keys.apply('console', teamKey('console'), { 'sluice.dev/external-id': key.id });
    await keys.waitFor('console', 'Ready', isReadyWithId, 30_000);
    const owner = { ...OWNER, namespace: env.namespace, name: 'console' };
    await until('the record on its name', () =>
      isRecordedFor(env.emulator.store.apiKeys.get(key.id)!.name, owner),
    );
    expect(env.emulator.store.apiKeys.get(key.id)!.name).toBe(cloudKeyName('console', owner));
    expect(
      writes(await env.calls()).map((c) => `${c.method} ${c.body ? JSON.stringify(c.body) : ''}`),
    ).toEqual([`PATCH ${JSON.stringify({ name: cloudKeyName('console', owner) })}`]);
  });
});
