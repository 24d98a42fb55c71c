// The credentials an ApiKey signs in with are the ones it states (spec.credentialsRef, else the operator's),
// never the namespace's default: the documented recipe (a team key made by an ApiKey, kept as the namespace's
// default for the team's other objects, the operator's credentials allowed in few namespaces) works as one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { KEY, KEYS, teamKey } from '../../../../tools/fixtures/api-key.ts';
import { untilValue } from '../../../support/wait.ts';
import {
  condition,
  isReady,
  isReadyWithId,
  startOperatorEnv,
  TIME_SCALE,
  type OperatorEnv,
  type SluiceObject,
} from '../support.ts';

const DEFAULT = 'sluice-credentials';

const synced = (reason: string) => (o: SluiceObject | undefined) =>
  condition(o, 'Synced')?.status === 'False' && condition(o, 'Synced')?.reason === reason;

describe.skipIf(clusterSkipReason())('the credentials an ApiKey signs in with', () => {
  /** Where the operator's credentials live (and are allowed). */
  let home: OperatorEnv;
  /** A team allowed the operator's credentials: its ApiKey makes the team key, also its namespace default. */
  let team: OperatorEnv;
  /** A team not allowed the operator's credentials. */
  let other: OperatorEnv;
  /** A namespace deleted whole while its ApiKey writes the namespace's default Secret. */
  let doomed: OperatorEnv;
  const operatorKeyId = () => home.emulator.credentials.keyId;

  beforeAll(async () => {
    home = await startOperatorEnv('key-creds-home', { timeScale: TIME_SCALE });
    team = await startOperatorEnv('key-creds-team', {}, { sharing: home });
    other = await startOperatorEnv('key-creds-other', {}, { sharing: home });
    doomed = await startOperatorEnv('key-creds-doomed', {}, { sharing: home });
    await home.startOperator({
      namespace: [home, team, other, doomed].map((env) => env.namespace).join(','),
      operatorCredentialsNamespaces: [home, team, doomed].map((env) => env.namespace).join(','),
      timeScale: TIME_SCALE,
    });
  });
  afterAll(async () => {
    await home?.stopOperator();
    for (const env of [doomed, other, team]) await env?.close();
    await home?.close();
  });

  it("an ApiKey naming the operator's credentials keeps them when a namespace default appears, and rotates with them", async () => {
    const keys = team.of<SluiceObject>('ApiKey');
    await keys.apply('team', teamKey('team', { operatorCredentials: true }));
    const made = await keys.waitFor('team', 'Ready', isReadyWithId);
    expect(made.status?.credentials).toBe('(operator)');

    // The recipe: the team key becomes the namespace's default, for every other object of the team.
    const teamSecret = (await team.secret('team-credentials'))!;
    await team.putSecret(DEFAULT, teamSecret);
    await team.apply('orders', { name: 'orders' });
    const orders = await team.waitFor('orders', 'Ready', isReady, 30_000);
    expect(orders.status?.credentialsSecret).toBe(DEFAULT);

    // The ApiKey still signs in as the operator: its rotation makes a key, which a developer key may not.
    await home.clearCalls();
    await keys.annotate('team', { 'sluice.dev/rotate': 'first' });
    const rotated = await keys.waitFor(
      'team',
      'rotated',
      (o) => isReady(o) && o?.status?.lastRotation === 'first' && o?.status?.id !== made.status!.id,
      60_000,
    );
    expect(rotated.status?.credentials).toBe('(operator)');
    const keyCalls = (await home.calls()).filter((c) => c.route === KEYS || c.route === KEY);
    expect(keyCalls.length).toBeGreaterThan(0);
    expect(keyCalls.filter((c) => c.key !== operatorKeyId())).toEqual([]);
    expect(keyCalls.filter((c) => c.status >= 400)).toEqual([]);
  });

  it("an ApiKey stating nothing uses the operator's credentials, never the namespace default", async () => {
    const keys = team.of<SluiceObject>('ApiKey');
    await keys.apply('plain', teamKey('plain'));
    const made = await keys.waitFor('plain', 'Ready', isReadyWithId);
    expect(made.status?.credentials).toBe('(operator)');
    expect(made.status?.credentialsSecret).toBeUndefined();
  });

  it("where the operator's credentials are not allowed, an ApiKey is refused up front, naming spec.credentialsRef, never the namespace default", async () => {
    const keys = other.of<SluiceObject>('ApiKey');
    await keys.apply('stated', teamKey('stated', { operatorCredentials: true }));
    await keys.apply('unstated', teamKey('unstated'));
    for (const name of ['stated', 'unstated']) {
      const refused = await keys.waitFor(name, 'refused', synced('OperatorCredentialsNotAllowed'));
      const message = condition(refused, 'Synced')!.message!;
      expect(message).toContain('spec.credentialsRef');
      expect(message).not.toContain(DEFAULT);
      expect(refused.status?.id).toBeUndefined();
    }
    // Nothing was written: no Secret, no key.
    expect(await other.secret('stated-credentials')).toBeUndefined();
    expect(await other.secret('unstated-credentials')).toBeUndefined();
    expect([...home.emulator.store.apiKeys.values()].filter((k) => k.name.endsWith('stated'))).toEqual([]);

    // A namespace default appearing changes nothing for them.
    await other.putSecret(DEFAULT, (await team.secret('team-credentials'))!);
    await other.freshLook('ApiKey', 'unstated');
    expect(synced('OperatorCredentialsNotAllowed')(await keys.get('unstated'))).toBe(true);
  });

  it('a Secret a sluice ApiKey manages is refused as the credentials of an ApiKey, yet serves the other kinds', async () => {
    const keys = home.of<SluiceObject>('ApiKey');
    await keys.apply('maker', teamKey('maker', { roles: ['admin'] }));
    await keys.waitFor('maker', 'Ready', isReadyWithId);
    // The Secret the ApiKey writes, and a copy of its key under another name (as a tenant could make it).
    await home.putSecret('copied', (await home.secret('maker-credentials'))!);
    await keys.apply('by-secret', teamKey('by-secret', { credentialsRef: { name: 'maker-credentials' } }));
    await keys.apply('by-copy', teamKey('by-copy', { credentialsRef: { name: 'copied' } }));
    for (const name of ['by-secret', 'by-copy']) {
      const refused = await keys.waitFor(name, 'refused', synced('CredentialsManagedKey'));
      expect(condition(refused, 'Synced')!.message).toContain('ApiKey maker');
      expect(condition(refused, 'Synced')!.message).toContain('spec.credentialsRef');
      expect(refused.status?.id).toBeUndefined();
    }
    // Another namespace's copy of the key is refused too.
    await team.putSecret('borrowed', (await home.secret('maker-credentials'))!);
    await team
      .of<SluiceObject>('ApiKey')
      .apply('by-borrowed', teamKey('by-borrowed', { credentialsRef: { name: 'borrowed' } }));
    await team.of<SluiceObject>('ApiKey').waitFor('by-borrowed', 'refused', synced('CredentialsManagedKey'));
    expect([...home.emulator.store.apiKeys.values()].filter((k) => k.name.startsWith('by-'))).toEqual([]);

    // For the other kinds, the ApiKey's Secret is what it is made for.
    await home.apply('with-key', { name: 'with key', credentialsRef: { name: 'maker-credentials' } });
    await home.waitFor('with-key', 'Ready', isReady, 30_000);
  });

  it('a namespace whose ApiKey writes the namespace default Secret is deleted whole, the key deleted in the cloud', async () => {
    const keys = doomed.of<SluiceObject>('ApiKey');
    await keys.apply('doomed', teamKey('doomed', { credentialsSecret: { name: DEFAULT } }));
    const made = await keys.waitFor('doomed', 'Ready', isReadyWithId);
    const id = made.status!.id!;
    // The namespace's objects now see the key as their default; the ApiKey does not.
    await doomed.apply('team-db', { name: 'team db' });
    await doomed.waitFor('team-db', 'Ready', isReady, 30_000);
    await doomed.freshLook('ApiKey', 'doomed');
    // Soft: on its own this would stop the test before what it is about, the namespace's deletion.
    expect.soft((await keys.get('doomed'))!.status?.credentials).toBe('(operator)');

    const core = doomed.kc.makeApiClient(CoreV1Api);
    await core.deleteNamespace({ name: doomed.namespace });
    await untilValue(
      'the namespace gone',
      () =>
        core.readNamespace({ name: doomed.namespace }).then(
          (ns) => `${ns.status?.phase}`,
          (error: { code?: number }) => (error.code === 404 ? 'gone' : `error ${error.code}`),
        ),
      (state) => state === 'gone',
      90_000,
    );
    expect(home.emulator.store.apiKeys.has(id)).toBe(false);
  }, 150_000);
});
