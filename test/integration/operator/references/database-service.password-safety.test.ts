import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/testCluster.ts';
import { condition, isReady, startOperatorEnv, type CallRecord, type OperatorEnv } from '../support.ts';
import { until } from '../../../support/wait.ts';

const SERVICES = '/v1/organizations/:organizationId/services';
const PASSWORD = `${SERVICES}/:serviceId/password`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sha256Hex = (password: string) => createHash('sha256').update(password).digest('hex');

/** Password calls of service `id` among the calls. */
const passwordCalls = (calls: CallRecord[], id: string) =>
  calls.filter((c) => c.route === PASSWORD && c.path.includes(id));
/** Password resets (`{}`: the cloud generates one) of service `id`. */
const resets = (calls: CallRecord[], id: string) =>
  passwordCalls(calls, id).filter((c) => JSON.stringify(c.body) === '{}');
const creates = (calls: CallRecord[]) => calls.filter((c) => c.method === 'POST' && c.route === SERVICES);

type ResourceRule = { apiGroups: string[]; apiVersions: string[]; operations: string[]; resources: string[] };

/** A ValidatingAdmissionPolicy denying, in the env's namespace, what `rules` match unless `expression` holds. */
async function admissionPolicy(
  env: OperatorEnv,
  name: string,
  rules: ResourceRule[],
  expression: string,
  message: string,
): Promise<() => Promise<void>> {
  const ref = (kind: string) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name } });
  await env.objects.create({
    ...ref('ValidatingAdmissionPolicy'),
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: rules },
      validations: [{ expression, message }],
    },
  } as never);
  await env.objects.create({
    ...ref('ValidatingAdmissionPolicyBinding'),
    spec: {
      policyName: name,
      validationActions: ['Deny'],
      matchResources: {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': env.namespace } },
      },
    },
  } as never);
  return async () => {
    await env.objects.delete(ref('ValidatingAdmissionPolicyBinding'));
    await env.objects.delete(ref('ValidatingAdmissionPolicy'));
  };
}

/**
 * A ValidatingAdmissionPolicy refusing Secret writes in one namespace (as a platform team's policy would);
 * `realOnly` lets server-side dry runs through, so only the real write is refused.
 */
async function refuseSecretWrites(env: OperatorEnv, realOnly = false): Promise<() => Promise<void>> {
  const remove = await admissionPolicy(
    env,
    `refuse-secrets-${env.namespace}`,
    [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['secrets'] }],
    realOnly ? 'request.dryRun == true' : 'false',
    'Secrets are frozen in this namespace',
  );
  // The policy takes effect once the apiserver has compiled it: wait until a probe Secret is refused.
  const probe = { metadata: { name: 'policy-probe' }, stringData: { x: 'y' } };
  for (let i = 0; ; i++) {
    try {
      await env.core.createNamespacedSecret({ namespace: env.namespace, body: probe, dryRun: 'All' });
      if (realOnly) {
        await env.core.createNamespacedSecret({ namespace: env.namespace, body: probe });
        await env.core.deleteNamespacedSecret({ namespace: env.namespace, name: 'policy-probe' });
      }
    } catch {
      if (!realOnly || i > 0) break;
    }
    if (i > 100) throw new Error('the admission policy never took effect');
    await sleep(100);
  }
  return async () => {
    await remove();
    // Lifted once a real probe Secret can be created again.
    for (let i = 0; i < 100; i++) {
      try {
        await env.core.createNamespacedSecret({ namespace: env.namespace, body: probe, dryRun: 'All' });
        return;
      } catch {
        await sleep(100);
      }
    }
  };
}

describe.skipIf(clusterSkipReason())(
  'DatabaseService passwords when the cluster around sluice changes',
  () => {
    let env: OperatorEnv;
    let lift: (() => Promise<void>) | undefined;
    const cloudHash = (id: string) => env.emulator.store.services.get(id)?.passwordSha256;

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
      await env.apply('frozen', { name: 'frozen' });
      const id = (await env.waitFor('frozen', 'Ready', isReady)).status!.id!;
      lift = await refuseSecretWrites(env);
      await env.clearCalls();
      await env.core.deleteNamespacedSecret({ namespace: env.namespace, name: 'frozen-connection' });

      const refused = await env.waitFor(
        'frozen',
        'Synced=SecretNotWritable',
        (r) => condition(r, 'Synced')?.reason === 'SecretNotWritable',
      );
      expect(condition(refused, 'Synced')!.message).toContain('frozen-connection');
      expect(condition(refused, 'Synced')!.message).toContain('Secrets are frozen in this namespace');
      await sleep(3_000);
      expect(resets(await env.calls(), id)).toHaveLength(0);

      await lift();
      lift = undefined;
      await until('the awaited password state', async () =>
        Boolean((await env.secret('frozen-connection'))?.password),
      );
      expect(resets(await env.calls(), id)).toHaveLength(1);
      const password = (await env.secret('frozen-connection'))!.password!;
      expect(cloudHash(id)).toBe(sha256Hex(password));
    });

    it('a reset whose Secret write failed anyway is recorded and not repeated in a loop', async () => {
      await env.apply('flaky', { name: 'flaky' });
      const id = (await env.waitFor('flaky', 'Ready', isReady)).status!.id!;
      lift = await refuseSecretWrites(env, true);
      await env.clearCalls();
      await env.core.deleteNamespacedSecret({ namespace: env.namespace, name: 'flaky-connection' });
      await env.waitFor('flaky', 'a failed write', (r) => condition(r, 'Synced')?.status === 'False');
      await sleep(5_000);
      expect(resets(await env.calls(), id)).toHaveLength(1);
      expect((await env.get('flaky'))!.status!.passwordResetUnstored).toBeDefined();
    });

    it('a new service is not created while its connection Secret cannot be written', async () => {
      lift = await refuseSecretWrites(env);
      await env.clearCalls();
      await env.apply('blocked', { name: 'blocked' });
      await env.waitFor(
        'blocked',
        'Synced=SecretNotWritable',
        (r) => condition(r, 'Synced')?.reason === 'SecretNotWritable',
      );
      await sleep(2_000);
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
      await sleep(2_000);
      const calls = await env.calls();
      expect(resets(calls, id)).toHaveLength(0);
      expect(creates(calls)).toHaveLength(0);
    });

    it('removing sluice.dev/external-id from an adopted service resets nothing', async () => {
      const { service } = await env.cloud.createService({
        name: 'adopted',
        provider: 'aws',
        region: 'us-east-1',
      });
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
      await sleep(1_000);
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
      await sleep(1_000);

      expect((await env.secret('renamed-db'))!.password).toBe(password);
      expect(passwordCalls(await env.calls(), id)).toHaveLength(0);
      expect(cloudHash(id)).toBe(sha256Hex(password));
      expect((await env.get('renamed'))!.status!.passwordStoredIn).toBe('renamed-db');
    });

    it('after an upgrade from a version that recorded nothing, neither a created nor an adopted service is reset', async () => {
      await env.apply('old-created', { name: 'old created' });
      const created = (await env.waitFor('old-created', 'Ready', isReady)).status!.id!;
      const { service } = await env.cloud.createService({
        name: 'old adopted',
        provider: 'aws',
        region: 'us-east-1',
      });
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
      await sleep(2_000);
      const calls = await env.calls();
      expect(passwordCalls(calls, created)).toHaveLength(0);
      expect(passwordCalls(calls, service.id)).toHaveLength(0);
      expect((await env.get('old-adopted'))!.status!.passwordStoredIn).toBeUndefined();
    });

    it('Observe with passwordSecretRef never writes the password the cloud was not sent, nor turns Ready True', async () => {
      const { service } = await env.cloud.createService({
        name: 'watched',
        provider: 'aws',
        region: 'us-east-1',
      });
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
      await sleep(2_000);

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
      await until('the awaited password state', async () => passwordCalls(await env.calls(), id).length >= 1);
      await sleep(2_000);
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
      await until('the awaited password state', async () => passwordCalls(await env.calls(), id).length >= 1);
      await sleep(2_000);
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
    await sleep(2_000);
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
    await sleep(3_000);
    expect(resets(await env.calls(), id)).toHaveLength(0);
    expect(condition(await env.get('doomed'), 'Synced')!.reason).toBe('SecretNotWritable');
  });
});
