import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import {
  baseSpec,
  condition,
  isReady,
  startOperatorEnv,
  type CallRecord,
  type OperatorEnv,
} from '../support.ts';
import { admissionPolicy, refuseSecretWrites } from '../secret-admission.ts';
import { until } from '../../../support/wait.ts';

const SERVICES = '/v1/organizations/:organizationId/services';
const PASSWORD = `${SERVICES}/:serviceId/password`;
const sha256Hex = (password: string) => createHash('sha256').update(password).digest('hex');

/** Password calls of service `id` among the calls. */
const passwordCalls = (calls: CallRecord[], id: string) =>
  calls.filter((c) => c.route === PASSWORD && c.path.includes(id));
/** Password resets (`{}`: the cloud generates one) of service `id`. */
const resets = (calls: CallRecord[], id: string) =>
  passwordCalls(calls, id).filter((c) => JSON.stringify(c.body) === '{}');
const creates = (calls: CallRecord[]) => calls.filter((c) => c.method === 'POST' && c.route === SERVICES);

/**
 * A ValidatingAdmissionPolicy refusing, dry runs too, any Secret write in the env's namespace that holds a key
 * named `password` (a policy that judges a Secret by its content, not by who writes it).
 */
async function refusePasswordKeys(env: OperatorEnv): Promise<() => Promise<void>> {
  const remove = await admissionPolicy(
    env,
    `refuse-password-keys-${env.namespace}`,
    [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['secrets'] }],
    "!has(object.data) || !('password' in object.data)",
    'Secrets here may not hold a password key',
  );
  const probe = (data: Record<string, string>) => ({ metadata: { name: 'policy-probe' }, data });
  const accepted = (data: Record<string, string>) =>
    env.core.createNamespacedSecret({ namespace: env.namespace, body: probe(data), dryRun: 'All' }).then(
      () => true,
      () => false,
    );
  await until('the policy refusing a password key', async () => !(await accepted({ password: 'eA==' })));
  return async () => {
    await remove();
    await until('the policy lifted', () => accepted({ password: 'eA==' }));
  };
}

describe.skipIf(clusterSkipReason())(
  'DatabaseService passwords when the cluster around sluice changes',
  () => {
    let env: OperatorEnv;
    let lift: (() => Promise<void>) | undefined;
    const cloudHash = (id: string) => env.emulator.store.services.get(id)?.passwordSha256;
    /** Resolves once, after log line `from`, a reconcile of `name` ended refused or deferred by the cloud. */
    const reconcileEnded = (name: string, from: number) =>
      until(`a reconcile of ${name} that ended refused or deferred`, () =>
        env.logs
          .slice(from)
          .some(
            (line) =>
              line.includes(`"key":"${env.namespace}/${name}"`) &&
              /"msg":"(reconcile failed|cloud call deferred; requeued)"/.test(line),
          ),
      );

    /**
     * A Ready service `name` whose connection Secret is deleted while `refuse` keeps it from being written
     * again (lifted after the test): waits until Synced says so; returns the service's id and that message.
     */
    const lostWhileRefused = async (
      name: string,
      refuse: (env: OperatorEnv) => Promise<() => Promise<void>>,
    ): Promise<{ id: string; message: string }> => {
      await env.apply(name, { name });
      const id = (await env.waitFor(name, 'Ready', isReady)).status!.id!;
      lift = await refuse(env);
      await env.clearCalls();
      await env.core.deleteNamespacedSecret({ namespace: env.namespace, name: `${name}-connection` });
      const refused = await env.waitFor(
        name,
        'Synced=SecretNotWritable',
        (r) => condition(r, 'Synced')?.reason === 'SecretNotWritable',
      );
      return { id, message: condition(refused, 'Synced')!.message! };
    };

    /** Lifts the refusal; the lost Secret is written again with one reset. Returns the password it holds. */
    const restoredOnceLifted = async (name: string, id: string): Promise<string> => {
      await lift!();
      lift = undefined;
      await until(`the password of ${name} restored`, async () =>
        Boolean((await env.secret(`${name}-connection`))?.password),
      );
      expect(resets(await env.calls(), id)).toHaveLength(1);
      return (await env.secret(`${name}-connection`))!.password!;
    };

    beforeAll(async () => {
      env = await startOperatorEnv('dbs-pw-safety');
      await env.startOperator();
    });
    afterEach(async () => {
      await lift?.();
      lift = undefined;
      await env.fault();
    });
    afterAll(async () => env?.close());

    it('a lost connection Secret that admission refuses to recreate costs no reset; it is reset once when it can be written', async () => {
      const { id, message } = await lostWhileRefused('frozen', refuseSecretWrites);
      expect(message).toContain('frozen-connection');
      expect(message).toContain('Secrets are frozen in this namespace');
      await env.freshLook('DatabaseService', 'frozen');
      expect(resets(await env.calls(), id)).toHaveLength(0);

      const password = await restoredOnceLifted('frozen', id);
      expect(cloudHash(id)).toBe(sha256Hex(password));
    });

    it('a reset is dry-run with the Secret it writes: a policy refusing its password key costs no reset', async () => {
      const { id, message } = await lostWhileRefused('content', refusePasswordKeys);
      expect(message).toContain('Secrets here may not hold a password key');
      expect(resets(await env.calls(), id)).toHaveLength(0);

      const password = await restoredOnceLifted('content', id);
      expect(cloudHash(id)).toBe(sha256Hex(password));
    });

    it('after a reset whose Secret write failed, none other is made until the user changes something, across a restart', async () => {
      await env.apply('flaky', { name: 'flaky' });
      const id = (await env.waitFor('flaky', 'Ready', isReady)).status!.id!;
      lift = await refuseSecretWrites(env, true);
      await env.clearCalls();
      await env.core.deleteNamespacedSecret({ namespace: env.namespace, name: 'flaky-connection' });
      await env.waitFor('flaky', 'a failed write', (r) => condition(r, 'Synced')?.status === 'False');
      expect(resets(await env.calls(), id)).toHaveLength(1);
      expect((await env.get('flaky'))!.status!.passwordResetUnstored).toBeDefined();

      // A restart, and the time a retry would once have waited gone by: still nothing the user changed.
      await env.stopOperator();
      await env.kc.makeApiClient(CustomObjectsApi).patchNamespacedCustomObjectStatus(
        {
          group: 'sluice.dev',
          version: 'v1alpha1',
          namespace: env.namespace,
          plural: 'databaseservices',
          name: 'flaky',
          body: { status: { passwordResetUnstored: new Date(Date.now() - 120_000).toISOString() } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await env.startOperator();
      const blocked = await env.waitFor('flaky', 'the reset held back', (r) =>
        Boolean(condition(r, 'Synced')?.message?.includes('no other is made until')),
      );
      expect(condition(blocked, 'Synced')!.reason).toBe('SecretNotWritable');
      expect(condition(blocked, 'Synced')!.message).toContain('sluice.dev/reset-password');
      expect(resets(await env.calls(), id)).toHaveLength(1);

      // The user lifts the policy and asks: one reset, stored.
      await lift();
      lift = undefined;
      await env.annotate('flaky', { 'sluice.dev/reset-password': 'after-the-policy' });
      await until('the password stored', async () =>
        Boolean((await env.secret('flaky-connection'))?.password),
      );
      expect(resets(await env.calls(), id)).toHaveLength(2);
      expect(cloudHash(id)).toBe(sha256Hex((await env.secret('flaky-connection'))!.password!));
    }, 120_000);

    it('a new service is not created while its connection Secret cannot be written', async () => {
      lift = await refuseSecretWrites(env);
      await env.clearCalls();
      await env.apply('blocked', { name: 'blocked' });
      await env.waitFor(
        'blocked',
        'Synced=SecretNotWritable',
        (r) => condition(r, 'Synced')?.reason === 'SecretNotWritable',
      );
      await env.freshLook('DatabaseService', 'blocked');
      expect(creates(await env.calls())).toHaveLength(0);

      await lift();
      lift = undefined;
      const ready = await env.waitFor('blocked', 'Ready', isReady);
      expect(creates(await env.calls())).toHaveLength(1);
      expect(cloudHash(ready.status!.id!)).toBe(
        sha256Hex((await env.secret('blocked-connection'))!.password!),
      );
    });

    it('a full count/secrets quota: a lost Secret costs no reset and a new service is not created', async () => {
      await env.apply('quota', { name: 'quota' });
      const id = (await env.waitFor('quota', 'Ready', isReady)).status!.id!;
      // No quota controller runs here: the status set below is what admission goes by, as if counted.
      const full = { 'count/secrets': '1' };
      await env.core.createNamespacedResourceQuota({
        namespace: env.namespace,
        body: { metadata: { name: 'secrets' }, spec: { hard: full } },
      });
      await env.core.patchNamespacedResourceQuotaStatus(
        { name: 'secrets', namespace: env.namespace, body: { status: { hard: full, used: full } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      lift = async () => {
        await env.core.deleteNamespacedResourceQuota({ name: 'secrets', namespace: env.namespace });
      };
      await env.clearCalls();
      await env.core.deleteNamespacedSecret({ namespace: env.namespace, name: 'quota-connection' });
      await env.apply('quota-new', { name: 'quota new' });
      for (const name of ['quota', 'quota-new']) {
        const refused = await env.waitFor(
          name,
          'Synced=SecretNotWritable',
          (r) => condition(r, 'Synced')?.reason === 'SecretNotWritable',
        );
        expect(condition(refused, 'Synced')!.message).toContain('exceeded quota');
      }
      for (const name of ['quota', 'quota-new']) await env.freshLook('DatabaseService', name);
      const calls = await env.calls();
      expect(resets(calls, id)).toHaveLength(0);
      expect(creates(calls)).toHaveLength(0);
    });

    it('removing sluice.dev/external-id from an adopted service resets nothing', async () => {
      const { service } = await env.cloud.createService({ name: 'adopted', ...baseSpec });
      await env.apply('adopted', { name: 'adopted' }, { 'sluice.dev/external-id': service.id });
      await env.waitFor('adopted', 'Ready', isReady);
      await env.clearCalls();
      await env.annotate('adopted', { 'sluice.dev/external-id': null });
      await env.patchSpec('adopted', { ipAccessList: [{ source: '10.0.0.0/8' }] });
      await env.waitFor(
        'adopted',
        'the edit',
        (r) => isReady(r) && r!.status!.observedGeneration === r!.metadata.generation,
      );
      await env.freshLook('DatabaseService', 'adopted');
      expect(passwordCalls(await env.calls(), service.id)).toHaveLength(0);
      expect(await env.secret('adopted-connection')).not.toHaveProperty('password');
      expect((await env.get('adopted'))!.status!.unknownConnectionKeys).toEqual(['password']);
    });

    it('renaming the connection Secret carries the password over, without a reset', async () => {
      await env.apply('renamed', { name: 'renamed' });
      const id = (await env.waitFor('renamed', 'Ready', isReady)).status!.id!;
      const password = (await env.secret('renamed-connection'))!.password!;
      await env.clearCalls();
      await env.patchSpec('renamed', { connectionSecret: { name: 'renamed-db' } });
      await until(
        'the awaited password state',
        async () => (await env.secret('renamed-db'))?.password !== undefined,
      );
      await env.waitFor('renamed', 'Ready', isReady);
      await env.freshLook('DatabaseService', 'renamed');

      expect((await env.secret('renamed-db'))!.password).toBe(password);
      expect(passwordCalls(await env.calls(), id)).toHaveLength(0);
      expect(cloudHash(id)).toBe(sha256Hex(password));
      expect((await env.get('renamed'))!.status!.passwordStoredIn).toBe('renamed-db');
    });

    it('after an upgrade from a version that recorded nothing, neither a created nor an adopted service is reset', async () => {
      await env.apply('old-created', { name: 'old created' });
      const created = (await env.waitFor('old-created', 'Ready', isReady)).status!.id!;
      const { service } = await env.cloud.createService({ name: 'old adopted', ...baseSpec });
      await env.apply('old-adopted', { name: 'old adopted' }, { 'sluice.dev/external-id': service.id });
      await env.waitFor(
        'old-adopted',
        'Ready',
        (r) => isReady(r) && r!.status!.unknownConnectionKeys !== undefined,
      );
      await env.stopOperator();
      // What the previous version left: no record of where the password is kept.
      for (const name of ['old-created', 'old-adopted']) {
        await env.kc.makeApiClient(CustomObjectsApi).patchNamespacedCustomObjectStatus(
          {
            group: 'sluice.dev',
            version: 'v1alpha1',
            namespace: env.namespace,
            plural: 'databaseservices',
            name,
            body: { status: { passwordStoredIn: null } },
          },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
        expect((await env.get(name))!.status).not.toHaveProperty('passwordStoredIn');
      }
      await env.clearCalls();
      await env.startOperator();
      await env.annotate('old-adopted', { 'sluice.dev/external-id': null });
      await env.waitFor(
        'old-created',
        'the fact derived',
        (r) => r!.status!.passwordStoredIn === 'old-created-connection',
      );
      for (const name of ['old-created', 'old-adopted']) await env.freshLook('DatabaseService', name);
      const calls = await env.calls();
      expect(passwordCalls(calls, created)).toHaveLength(0);
      expect(passwordCalls(calls, service.id)).toHaveLength(0);
      expect((await env.get('old-adopted'))!.status!.passwordStoredIn).toBeUndefined();
    });

    it('Observe with passwordSecretRef never writes the password the cloud was not sent, nor turns Ready True', async () => {
      const { service } = await env.cloud.createService({ name: 'watched', ...baseSpec });
      await env.putSecret('watched-password', { password: 'owned-but-never-sent-9Z' });
      await env.clearCalls();
      await env.apply(
        'watched',
        {
          name: 'watched',
          managementPolicy: 'Observe',
          passwordSecretRef: { name: 'watched-password', key: 'password' },
        },
        { 'sluice.dev/external-id': service.id },
      );
      await env.waitFor('watched', 'observed', (r) => condition(r, 'Ready')?.reason === 'ObserveOnly');
      await env.freshLook('DatabaseService', 'watched');

      expect(condition(await env.get('watched'), 'Ready')!.status).toBe('False');
      expect(await env.secret('watched-connection')).not.toHaveProperty('password');
      expect((await env.calls()).filter((c) => c.method !== 'GET')).toHaveLength(0);
    });

    it('a rotation the cloud refuses leaves the connection Secret as it was; it follows once the cloud accepts', async () => {
      await env.putSecret('rotated-password', { password: 'first-password-1A' });
      await env.apply('rotated', {
        name: 'rotated',
        passwordSecretRef: { name: 'rotated-password', key: 'password' },
      });
      const id = (await env.waitFor('rotated', 'Ready', isReady)).status!.id!;
      expect((await env.secret('rotated-connection'))!.password).toBe('first-password-1A');

      await env.fault({ method: 'PATCH', route: PASSWORD, status: 503 });
      await env.clearCalls();
      await env.putSecret('rotated-password', { password: 'second-password-2B' });
      let from = env.logs.length;
      await until('the awaited password state', async () => passwordCalls(await env.calls(), id).length >= 1);
      await reconcileEnded('rotated', from);
      expect((await env.secret('rotated-connection'))!.password).toBe('first-password-1A');
      expect(cloudHash(id)).toBe(sha256Hex('first-password-1A'));

      await env.fault();
      await until(
        'the awaited password state',
        async () => (await env.secret('rotated-connection'))!.password === 'second-password-2B',
      );
      expect(cloudHash(id)).toBe(sha256Hex('second-password-2B'));

      // Deferred: a 429 asking for longer than a call may wait sends nothing now; the Secret waits too.
      await env.fault({ method: 'PATCH', route: PASSWORD, status: 429, retryAfter: 30 });
      await env.clearCalls();
      await env.putSecret('rotated-password', { password: 'third-password-3C' });
      from = env.logs.length;
      await until('the awaited password state', async () => passwordCalls(await env.calls(), id).length >= 1);
      await reconcileEnded('rotated', from);
      expect((await env.secret('rotated-connection'))!.password).toBe('second-password-2B');
      expect(cloudHash(id)).toBe(sha256Hex('second-password-2B'));
    });
  },
);

describe.skipIf(clusterSkipReason())('DatabaseService passwords in a namespace being deleted', () => {
  let env: OperatorEnv;
  let id: string;
  const notWritable = (r: Parameters<typeof condition>[0]) =>
    condition(r, 'Synced')?.reason === 'SecretNotWritable' &&
    condition(r, 'Synced')!.message!.includes('being terminated');

  let allowDeletes: () => Promise<void>;

  beforeAll(async () => {
    env = await startOperatorEnv('dbs-pw-terminating');
    await env.startOperator();
    await env.apply('doomed', { name: 'doomed' });
    id = (await env.waitFor('doomed', 'Ready', isReady)).status!.id!;
    // The namespace controller empties a namespace being deleted; a policy refusing deletes (as a platform
    // team's might) keeps it Terminating with the service and its Secret in it, for as long as the test needs.
    allowDeletes = await admissionPolicy(
      env,
      `refuse-deletes-${env.namespace}`,
      [
        { apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['secrets'] },
        {
          apiGroups: ['sluice.dev'],
          apiVersions: ['*'],
          operations: ['DELETE'],
          resources: ['databaseservices'],
        },
      ],
      'false',
      'deletes are held in this namespace',
    );
    await until('the awaited password state', async () => {
      const held = await env.core
        .deleteNamespacedSecret({ namespace: env.namespace, name: 'doomed-connection', dryRun: 'All' })
        .then(
          () => false,
          () => true,
        );
      return held;
    });
    await env.core.deleteNamespace({ name: env.namespace });
    await until(
      'the awaited password state',
      async () => (await env.core.readNamespace({ name: env.namespace })).status?.phase === 'Terminating',
    );
  });
  afterAll(async () => {
    await allowDeletes?.();
    await env?.close();
  });

  it('a reset asked for while the namespace is Terminating is not made, though the Secret still exists', async () => {
    await env.clearCalls();
    await env.annotate('doomed', { 'sluice.dev/reset-password': 'please' });
    await env.waitFor('doomed', 'Synced=SecretNotWritable', notWritable);
    await env.freshLook('DatabaseService', 'doomed');
    expect(resets(await env.calls(), id)).toHaveLength(0);
    expect((await env.secret('doomed-connection'))?.password).toBeTruthy();
  });

  it('a connection Secret that lost its password while the namespace is Terminating costs no reset', async () => {
    await env.clearCalls();
    await env.core.patchNamespacedSecret(
      {
        namespace: env.namespace,
        name: 'doomed-connection',
        body: [{ op: 'remove', path: '/data/password' }],
      },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    await until('the awaited password state', async () => !(await env.secret('doomed-connection'))?.password);
    await env.freshLook('DatabaseService', 'doomed');
    expect(resets(await env.calls(), id)).toHaveLength(0);
    expect(condition(await env.get('doomed'), 'Synced')!.reason).toBe('SecretNotWritable');
  });
});
