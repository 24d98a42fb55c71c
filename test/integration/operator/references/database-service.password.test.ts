import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { baseSpec, isReady, type CallRecord, useOperatorEnv } from '../support.ts';
import { until } from '../../../support/wait.ts';

const SERVICES = '/v1/organizations/:organizationId/services';
const PASSWORD = `${SERVICES}/:serviceId/password`;

/** The hashes the management API takes, computed here independently of sluice's own code. */
function hashesOf(password: string) {
  const sha1 = createHash('sha1').update(password).digest();
  return {
    newPasswordHash: createHash('sha256').update(password).digest('base64'),
    newDoubleSha1Hash: createHash('sha1').update(sha1).digest('hex'),
  };
}
/**
 * The hashes as the call log keeps them: a field named like a password is redacted there as in every log
 * (`cloudHash` checks the value the cloud stored).
 */
const asLogged = (password: string) => ({ ...hashesOf(password), newPasswordHash: '[REDACTED]' });
const sha256Hex = (password: string) => createHash('sha256').update(password).digest('hex');

const passwordCalls = (calls: CallRecord[], id: string) =>
  calls.filter((c) => c.route === PASSWORD && c.path.includes(id));

describe.skipIf(clusterSkipReason())('DatabaseService passwordSecretRef: a password the user owns', () => {
  const env = useOperatorEnv('dbs-password');
  /** Every plain password this suite put in a Secret: none may leave the cluster or show anywhere. */
  const plain: string[] = [];
  const newPassword = (label: string) => {
    const value = `${label}-${Math.random().toString(36).slice(2)}-owned`;
    plain.push(value);
    return value;
  };
  /** Every call of the suite, kept across the clears that scope each test's assertions. */
  const allCalls: CallRecord[] = [];
  const clearCalls = async () => {
    allCalls.push(...(await env.calls()));
    await env.clearCalls();
  };
  const cloudHash = (id: string) => env.emulator.store.services.get(id)?.passwordSha256;

  it('create: the password is set by hash right after the create, and the connection Secret carries it', async () => {
    const password = newPassword('first');
    await env.putSecret('owned-password', { password });
    await clearCalls();
    await env.apply('owned', {
      name: 'owned',
      passwordSecretRef: { name: 'owned-password', key: 'password' },
    });
    const ready = await env.waitFor('owned', 'Ready', isReady);
    const id = ready.status!.id!;

    const calls = await env.calls();
    const create = calls.filter((c) => c.method === 'POST' && c.route === SERVICES);
    expect(create).toHaveLength(1);
    expect(create[0]!.body).not.toHaveProperty('passwordSecretRef');
    expect(passwordCalls(calls, id).map((c) => c.body)).toEqual([asLogged(password)]);
    expect(cloudHash(id)).toBe(sha256Hex(password));
    expect((await env.secret('owned-connection'))!.password).toBe(password);
  });

  it('rotation by value: one hash PATCH with the new value, and the connection Secret follows', async () => {
    const id = (await env.get('owned'))!.status!.id!;
    const password = newPassword('second');
    await clearCalls();
    await env.putSecret('owned-password', { password });
    await until(
      'the awaited password state',
      async () => (await env.secret('owned-connection'))?.password === password,
    );
    await env.waitFor('owned', 'Ready', isReady);

    expect(passwordCalls(await env.calls(), id).map((c) => c.body)).toEqual([asLogged(password)]);
    expect(cloudHash(id)).toBe(sha256Hex(password));
  });

  it('a label-only change of the Secret sends nothing', async () => {
    const before = (await env.get('owned'))!;
    const id = before.status!.id!;
    await clearCalls();
    const secret = await env.core.readNamespacedSecret({ name: 'owned-password', namespace: env.namespace });
    secret.metadata!.labels = { ...secret.metadata!.labels, team: 'analytics' };
    await env.core.replaceNamespacedSecret({
      name: 'owned-password',
      namespace: env.namespace,
      body: secret,
    });
    // A spec edit made after the label change: once it is in the cloud, the operator has read the Secret
    // cache after the label change too (the watch delivers in order, long before the rename's round trip).
    await env.patchSpec('owned', { name: 'owned renamed' });
    await env.waitFor(
      'owned',
      'the rename to be applied',
      (r) => isReady(r) && r!.status!.observedGeneration === before.metadata.generation! + 1,
    );
    expect((await env.cloud.getService(id)).name).toBe('owned renamed');
    expect(passwordCalls(await env.calls(), id)).toEqual([]);
  });

  it('adoption with passwordSecretRef: the password is set by hash, never reset', async () => {
    const { service } = await env.cloud.createService({ name: 'legacy', ...baseSpec });
    const password = newPassword('adopted');
    await env.putSecret('legacy-password', { pw: password });
    await clearCalls();
    await env.apply(
      'legacy',
      { name: 'legacy', passwordSecretRef: { name: 'legacy-password', key: 'pw' } },
      { 'sluice.dev/external-id': service.id },
    );
    await env.waitFor('legacy', 'Ready', isReady);

    const calls = await env.calls();
    expect(calls.filter((c) => c.method === 'POST' && c.route === SERVICES)).toEqual([]);
    // No `{}` (a reset): only the hashes of the owned password.
    expect(passwordCalls(calls, service.id).map((c) => c.body)).toEqual([asLogged(password)]);
    expect(cloudHash(service.id)).toBe(sha256Hex(password));
    expect((await env.secret('legacy-connection'))!.password).toBe(password);
    const events = await env.core.listNamespacedEvent({ namespace: env.namespace });
    expect(events.items.filter((e) => e.involvedObject.name === 'legacy').map((e) => e.reason)).not.toContain(
      'ConnectionDetailsRecovered',
    );
  });

  it('no plain password appears in any call body, log line, Event or status', async () => {
    expect(plain.length).toBeGreaterThanOrEqual(3);
    await clearCalls();
    expect(allCalls.filter((c) => c.route === PASSWORD).length).toBeGreaterThanOrEqual(3);
    const bodies = JSON.stringify(allCalls.map((c) => c.body));
    const events = JSON.stringify((await env.core.listNamespacedEvent({ namespace: env.namespace })).items);
    const statuses = JSON.stringify([(await env.get('owned'))?.status, (await env.get('legacy'))?.status]);
    const logs = env.logs.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    for (const value of plain) {
      expect(bodies).not.toContain(value);
      expect(events).not.toContain(value);
      expect(statuses).not.toContain(value);
      expect(logs).not.toContain(value);
    }
  });
});
