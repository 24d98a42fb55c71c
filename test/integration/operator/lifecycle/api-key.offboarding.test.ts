// A team that signs in with its own ApiKey is offboarded: its services use the key's Secret as their
// credentials, so the key must outlive them. Deleting the ApiKey waits for every object still using its
// Secret, as a service waits for its pipes: in a namespace's teardown, in a bulk delete, or on its own.
import { afterEach, describe, expect, it } from 'vitest';
import { KEY, teamKey } from '../../../../tools/fixtures/api-key.ts';
import { MANAGEMENT_ROUTES } from '../../../../src/cloud/management-client.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { NAMESPACE_CREDENTIALS } from '../../../../src/managed/index.ts';
import {
  condition,
  CREDENTIALS_SECRET,
  isReadyWithId,
  startOperatorEnv,
  startOperatorOutside,
  TIME_SCALE,
  untilNamespaceGone,
  type OperatorEnv,
  type SluiceObject,
} from '../support.ts';

const SECRET = 'team-credentials';
const credentialsRef = { name: SECRET };

interface Team {
  env: OperatorEnv;
  home: { close(): Promise<void> };
  /** Cloud ids by object name. */
  ids: Record<string, string>;
}

/**
 * A namespace holding the team's ApiKey (made with the operator's key) and two services signing in with the
 * key's Secret: `doomed` (Delete) and `kept` (Orphan, a service's default).
 */
async function team(prefix: string): Promise<Team> {
  const env = await startOperatorEnv(prefix);
  // The operator's own key lives outside the team's namespace, as in an install.
  const home = await startOperatorOutside(env, { timeScale: TIME_SCALE });
  const keys = env.of<SluiceObject>('ApiKey');
  await keys.apply('team', teamKey('team', { credentialsSecret: credentialsRef }));
  const ids: Record<string, string> = {};
  ids.team = (await keys.waitFor('team', 'ApiKey team Ready', isReadyWithId, 60_000)).status!.id!;
  await env.apply('doomed', { name: 'doomed', deletionPolicy: 'Delete', credentialsRef });
  await env.apply('kept', { name: 'kept', credentialsRef });
  for (const name of ['doomed', 'kept'])
    ids[name] = (await env.waitFor(name, `${name} Ready`, isReadyWithId, 60_000)).status!.id!;
  return { env, home, ids };
}

/** Where each call's route and id fell in the emulator's log: the key's DELETE after the service's. */
async function deletions(env: OperatorEnv, ids: Record<string, string>) {
  const calls = await env.calls();
  const at = (route: string, id: string) =>
    calls.findIndex((c) => c.method === 'DELETE' && c.route === route && c.path.endsWith(`/${id}`));
  return {
    service: at(MANAGEMENT_ROUTES.service, ids.doomed!),
    key: at(KEY, ids.team!),
    unauthorized: calls.filter((c) => c.status === 401).length,
  };
}

describe.skipIf(clusterSkipReason())('offboarding a team that signs in with its own ApiKey', () => {
  let current: Team | undefined;
  afterEach(async () => {
    await current?.env.close();
    await current?.home.close();
    current = undefined;
  });

  it('deleting its namespace deletes the Delete service, keeps the Orphan one, deletes the key last, and the namespace goes', async () => {
    current = await team('offboard');
    const { env, ids } = current;
    await env.core.deleteNamespace({ name: env.namespace });
    await untilNamespaceGone(env, async () => {
      const left = await Promise.all(
        (['ApiKey/team', 'DatabaseService/doomed', 'DatabaseService/kept'] as const).map(async (ref) => {
          const [kind, name] = ref.split('/') as [string, string];
          const ready = condition(await env.of<SluiceObject>(kind).get(name), 'Ready');
          return ready ? `${ref}: ${ready.reason} ${ready.message ?? ''}` : undefined;
        }),
      );
      return left.filter(Boolean).join('; ');
    });

    const { services, apiKeys } = env.emulator.store;
    expect(services.has(ids.doomed!)).toBe(false);
    expect(services.has(ids.kept!)).toBe(true);
    expect(apiKeys.has(ids.team!)).toBe(false);
    const order = await deletions(env, ids);
    expect(order.service).toBeGreaterThanOrEqual(0);
    expect(order.key).toBeGreaterThan(order.service);
    expect(order.unauthorized).toBe(0);
  }, 150_000);

  it('deleting the ApiKey alone waits, Ready=False naming the objects whose credentials are its Secret, and goes once they are gone', async () => {
    current = await team('offboard-key');
    const { env, ids } = current;
    const keys = env.of<SluiceObject>('ApiKey');
    await keys.remove('team');
    const waiting = await keys.waitFor(
      'team',
      'the deletion waiting for its users',
      (o) => condition(o, 'Ready')?.reason === 'WaitingForDependants',
      30_000,
    );
    expect(condition(waiting, 'Ready')).toMatchObject({
      status: 'False',
      message: expect.stringContaining('DatabaseService doomed, DatabaseService kept'),
    });
    await env.reconciledAgain('ApiKey', 'team');
    expect(env.emulator.store.apiKeys.has(ids.team!)).toBe(true);

    await env.removeUntilGone('doomed', 'kept');
    await keys.waitFor('team', 'ApiKey team gone', (o) => o === undefined, 30_000);
    expect(env.emulator.store.apiKeys.has(ids.team!)).toBe(false);
    expect(env.emulator.store.services.has(ids.doomed!)).toBe(false);
    expect(env.emulator.store.services.has(ids.kept!)).toBe(true);
    expect((await deletions(env, ids)).unauthorized).toBe(0);
  }, 150_000);

  it('an ApiKey writing the namespace default waits for the objects that sign in with it by default', async () => {
    const env = await startOperatorEnv('offboard-default');
    current = { env, home: await startOperatorOutside(env, { timeScale: TIME_SCALE }), ids: {} };
    const keys = env.of<SluiceObject>('ApiKey');
    // The key signs in with a Secret of its own, never with the namespace default it writes.
    const spec = teamKey('default', {
      credentialsSecret: { name: NAMESPACE_CREDENTIALS },
      credentialsRef: { name: CREDENTIALS_SECRET },
    });
    await keys.apply('default', spec);
    const id = (await keys.waitFor('default', 'Ready', isReadyWithId, 60_000)).status!.id!;
    await env.apply('by-default', { name: 'by default' });
    const user = await env.waitFor('by-default', 'Ready', isReadyWithId, 60_000);
    expect(user.status).toMatchObject({ credentials: NAMESPACE_CREDENTIALS });

    await keys.remove('default');
    const waiting = await keys.waitFor(
      'default',
      'the deletion waiting for its users',
      (o) => condition(o, 'Ready')?.reason === 'WaitingForDependants',
      30_000,
    );
    expect(condition(waiting, 'Ready')!.message).toContain('DatabaseService by-default');
    await env.removeUntilGone('by-default');
    await keys.waitFor('default', 'ApiKey default gone', (o) => o === undefined, 30_000);
    expect(env.emulator.store.apiKeys.has(id)).toBe(false);
  }, 150_000);
});
