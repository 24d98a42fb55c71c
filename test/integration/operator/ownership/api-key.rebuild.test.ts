// An ApiKey in a cluster rebuilt from Git. The cloud never shows a key's secret again, so the lost cluster's
// key cannot be taken back as a service is: the rebuilt ApiKey makes a new key into its new Secret, and the
// old key, found by the owner record its name carries, goes after the grace period as a rotation's would.
import { describe, expect, it } from 'vitest';
import { teamKey } from '../../../../tools/fixtures/api-key.ts';
import { isRecordedFor, unmarkedName } from '../../../../src/kinds/api-key/owner-mark.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { until } from '../../../support/wait.ts';
import {
  baseSpec,
  isReadyWithId,
  TIME_SCALE,
  useOperatorEnv,
  type OperatorEnv,
  type SluiceObject,
} from '../support.ts';
import { planDocuments } from '../plan-in-process.ts';
import { loseObjects } from './ownership-fixtures.ts';

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
    const cleared = await env.of<SluiceObject>('ApiKey').get('team');
    expect(cleared!.status).not.toHaveProperty('previousKeyId');
    expect((await env.calls()).filter((c) => c.status === 401)).toEqual([]);
  }, 240_000);
});
