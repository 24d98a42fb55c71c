import { randomUUID } from 'node:crypto';
import { Agent, MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/cloud/http.ts';
import { AlertingClient } from '../../../src/cloud/alerting-client.ts';
import { CloudClients } from '../../../src/cloud-access/cloud-clients.ts';
import type { RequestEvent } from '../../../src/cloud/hooks.ts';
import { NAMESPACE_CREDENTIALS, type SecretReader, type ManagedObject } from '../../../src/managed/index.ts';

const resource: ManagedObject = {
  apiVersion: 'sluice.dev/v1alpha1',
  kind: 'DatabaseService',
  metadata: { name: 'db', namespace: 'ns', uid: 'uid-1' },
  spec: {},
};

/** A credentials Secret's values with a fresh key and token, so each test registers its own quota schedulers. */
function freshCredentials(managementUrl: string, alertsUrl: string): Record<string, string> {
  return {
    organizationId: 'org',
    keyId: `key-${randomUUID()}`,
    keySecret: 'secret',
    managementUrl,
    alertsUrl,
    alertsToken: `token-${randomUUID()}`,
  };
}

/**
 * A reader whose every Secret holds fresh credentials (only the keys `only` names, when given), except a
 * namespace's default credentials Secret, which no namespace here has.
 */
function fakeSecrets(only?: readonly string[]): SecretReader {
  const all = freshCredentials('http://127.0.0.1:1', 'http://127.0.0.1:1');
  const data = only ? Object.fromEntries(only.map((key) => [key, all[key]!])) : all;
  return {
    get: (_namespace, name) => (name === NAMESPACE_CREDENTIALS ? undefined : { data, resourceVersion: '1' }),
  };
}

describe('CloudClients', () => {
  const dispatcher = new Agent();
  let clouds: CloudClients | undefined;
  afterEach(async () => {
    await clouds?.close();
  });
  /** Clients on `secrets` with the operator's Secret at sys/cloud, quiet, no hooks; `options` add or override. */
  const clientsOf = (
    secrets: SecretReader,
    options: Partial<ConstructorParameters<typeof CloudClients>[0]> = {},
  ): CloudClients =>
    new CloudClients({
      secrets,
      defaultSecret: { namespace: 'sys', name: 'cloud' },
      dispatcher,
      hooks: {},
      logger: silentLogger,
      ...options,
    });

  const connect = (
    quotas: ConstructorParameters<typeof CloudClients>[0]['quotas'],
    keys?: readonly string[],
  ) => {
    clouds = clientsOf(fakeSecrets(keys), { quotas });
    return clouds.connectionFor(resource, { priority: 'poll' });
  };

  /** `secrets`, with each read noted in `looked` (`get ns/name`, and `exists ns/name` for metadata). */
  const noting = (secrets: SecretReader, looked: string[]) => ({
    secrets: {
      get: (namespace: string, name: string) => {
        looked.push(`get ${namespace}/${name}`);
        return secrets.get(namespace, name);
      },
    },
    secretExists: (namespace: string, name: string) => {
      looked.push(`exists ${namespace}/${name}`);
      return secrets.get(namespace, name) !== undefined;
    },
  });

  it("reads once whether the namespace's default Secret exists, then the Secret the object signs in with", () => {
    const looked: string[] = [];
    const { secrets, secretExists } = noting(fakeSecrets(), looked);
    clouds = clientsOf(secrets, { secretExists });
    expect(clouds.readCredentials(resource).secret).toEqual({ namespace: 'sys', name: 'cloud' });
    expect(looked).toEqual([`exists ns/${NAMESPACE_CREDENTIALS}`, 'get sys/cloud']);
  });

  it("reads the operator's Secret again for its key suffix only when a kind asks for it", async () => {
    const looked: string[] = [];
    const { secrets, secretExists } = noting(fakeSecrets(), looked);
    clouds = clientsOf(secrets, { secretExists });
    const cloud = await clouds.connectionFor(resource, { priority: 'poll' });
    expect(looked.filter((read) => read === 'get sys/cloud')).toHaveLength(1);
    expect(cloud.operatorKeySuffix).toMatch(/^.{4}$/);
    expect(looked.filter((read) => read === 'get sys/cloud')).toHaveLength(2);
  });

  it('names one budget key for Secrets holding one key, and none for an API whose keys are missing', () => {
    clouds = clientsOf(fakeSecrets(['organizationId', 'keyId', 'keySecret', 'managementUrl']));
    const a = clouds.budgetKeyOf({ namespace: 'team-a', name: 'cloud' }, 'management');
    expect(a).toMatch(/^management /);
    expect(clouds.budgetKeyOf({ namespace: 'team-b', name: 'same-key' }, 'management')).toBe(a);
    expect(clouds.budgetKeyOf({ namespace: 'team-a', name: 'cloud' }, 'alerting')).toBeUndefined();
  });

  it('gives the alerting client the --alerting-quota budget', async () => {
    const cloud = await connect({ alerting: { requests: 7, windowMs: 3_000 } });
    expect(cloud.alerting.quota?.limit).toMatchObject({ requests: 7, windowMs: 3_000 });
  });

  it('sends alerting calls unthrottled with --alerting-quota off', async () => {
    const cloud = await connect({ alerting: false });
    expect(cloud.alerting.quota).toBeUndefined();
  });

  it('gives the management client the --management-quota budget, or none when off', async () => {
    expect(
      (await connect({ management: { requests: 3, windowMs: 1_000 } })).management.quota?.limit,
    ).toMatchObject({ requests: 3, windowMs: 1_000 });
    expect((await connect({ management: false })).management.quota).toBeUndefined();
  });

  it('builds each API’s client from its own keys only, and names the keys an API lacks', async () => {
    const alertsOnly = await connect({}, ['alertsUrl', 'alertsToken']);
    expect(alertsOnly.alerting.quota?.limit).toMatchObject({ requests: 100, windowMs: 60_000 });
    expect(() => alertsOnly.management).toThrow(
      'Secret sys/cloud has no key organizationId, keyId, keySecret, managementUrl (for the management API)',
    );
    const noToken = await connect({}, ['organizationId', 'keyId', 'keySecret', 'managementUrl', 'alertsUrl']);
    expect(noToken.management.quota).toBeDefined();
    expect(() => noToken.alerting).toThrow('Secret sys/cloud has no key alertsToken (for the alerting API)');
  });

  it('keeps its own budgets: the flag governs even when the process registered the key first', async () => {
    const secrets = fakeSecrets();
    const data = secrets.get('sys', 'cloud')!.data!;
    const earlier = new AlertingClient({ baseUrl: data.alertsUrl!, token: data.alertsToken! });
    clouds = clientsOf(secrets, { quotas: { alerting: { requests: 5, windowMs: 1_000 } } });
    const cloud = await clouds.connectionFor(resource, { priority: 'poll' });
    expect(earlier.quota?.limit).toMatchObject({ requests: 100 });
    expect(cloud.alerting.quota?.limit).toMatchObject({ requests: 5, windowMs: 1_000 });
    await earlier.close();
  });

  describe('releasing a Secret no object uses any more', () => {
    const own = (namespace: string): ManagedObject => ({
      ...resource,
      metadata: { ...resource.metadata, namespace },
      spec: { credentialsRef: { name: 'own' } },
    });
    const perNamespace = (): SecretReader => {
      const byNamespace = new Map<string, SecretReader>();
      return {
        get: (namespace, name) => {
          if (!byNamespace.has(namespace)) byNamespace.set(namespace, fakeSecrets());
          return byNamespace.get(namespace)!.get(namespace, name);
        },
      };
    };
    const start = () =>
      (clouds = new CloudClients({
        secrets: perNamespace(),
        allowedApiHosts: ['http://127.0.0.1:1'],
        dispatcher,
        hooks: {},
        logger: silentLogger,
        quotas: { management: { requests: 2, windowMs: 60_000 } },
      }));

    it('forgets its clients and the idle budget of its key; a later use builds them again', async () => {
      const clients = start();
      const first = (await clients.connectionFor(own('a'), { priority: 'poll' })).management;
      await clients.connectionFor(own('b'), { priority: 'poll' });
      expect(clients.credentialsInUse()).toEqual(['a/own', 'b/own']);

      clients.release({ namespace: 'a', name: 'own' });
      expect(clients.credentialsInUse()).toEqual(['b/own']);
      const again = (await clients.connectionFor(own('a'), { priority: 'poll' })).management;
      expect(again.quota).toBeDefined();
      expect(again.quota).not.toBe(first.quota);
      expect(clients.credentialsInUse()).toEqual(['a/own', 'b/own']);
    });

    it('keeps the budget of its key while what it spent still counts in the window', async () => {
      const clients = start();
      const first = (await clients.connectionFor(own('a'), { priority: 'poll' })).management;
      const ticket = await first.quota!.acquire();
      ticket.release();

      clients.release({ namespace: 'a', name: 'own' });
      const again = (await clients.connectionFor(own('a'), { priority: 'poll' })).management;
      expect(again.quota).toBe(first.quota);
      expect(again.quotaRemaining()).toBe(1);
    });
  });

  it('derives the Secret digest key from the credentials the resource uses: stable, and new with a new key secret', () => {
    const digestKey = (data: Record<string, string>, ref?: string) =>
      clientsOf({ get: () => ({ data, resourceVersion: '1' }) }).secretDigestKey(
        ref ? { ...resource, spec: { credentialsRef: { name: ref } } } : resource,
      );
    const first = digestKey({ keySecret: 'secret-one' });
    expect(digestKey({ keySecret: 'secret-one', keyId: 'other' }).id).toBe(first.id);
    expect(digestKey({ keySecret: 'secret-two' }).id).not.toBe(first.id);
    expect(digestKey({ alertsToken: 'token-only' }).id).not.toBe(first.id);
    expect(() => digestKey({ organizationId: 'org' }, 'own')).toThrow(
      'Secret ns/own has no key keySecret or alertsToken',
    );
  });

  it('signs in, digests and pins with the credentials as the reconcile read them, not as the Secret changed since', async () => {
    const cloud = new MockAgent();
    cloud.disableNetConnect();
    const signedIn: string[] = [];
    cloud
      .get('http://127.0.0.1:1')
      .intercept({
        path: () => true,
        method: () => true,
        headers: ({ authorization }: Record<string, string>) => signedIn.push(authorization!) > 0,
      })
      .reply(200, { status: 200, requestId: 'r', result: { id: 'svc', name: 'db', state: 'running' } })
      .persist();
    const before = freshCredentials('http://127.0.0.1:1', 'http://127.0.0.1:1');
    let data = before;
    clouds = clientsOf(
      { get: () => ({ data, resourceVersion: data === before ? '1' : '2' }) },
      { dispatcher: cloud },
    );
    const read = clouds.readCredentials(resource);
    // The Secret is replaced by another organization's key after the reconcile read it.
    data = {
      ...freshCredentials('http://127.0.0.1:1', 'http://127.0.0.1:1'),
      organizationId: 'elsewhere',
      keySecret: 'another secret',
    };

    const basic = ({ keyId, keySecret }: Record<string, string>) =>
      `Basic ${Buffer.from(`${keyId}:${keySecret}`).toString('base64')}`;
    await (
      await clouds.connectionFor(resource, { priority: 'poll', credentials: read })
    ).management.getService('svc');
    expect(signedIn).toEqual([basic(before)]);
    expect(read.organization).toBe(before.organizationId);
    expect(clouds.secretDigestKey(resource, read).id).not.toBe(clouds.secretDigestKey(resource).id);
    // Asked without a read, the clients read the Secret as it is now.
    await (await clouds.connectionFor(resource, { priority: 'poll' })).management.getService('svc');
    expect(signedIn).toEqual([basic(before), basic(data)]);
    await cloud.close();
  });

  it('sends a reconcile’s reads at its priority and its writes as user (a create’s as create), the shared client left as it was', async () => {
    // Answered in-process: every management call gets a running service.
    const cloud = new MockAgent();
    cloud.disableNetConnect();
    const service = { id: 'svc', name: 'db', state: 'running' };
    cloud
      .get('http://127.0.0.1:1')
      .intercept({ path: () => true, method: () => true })
      .reply(200, { status: 200, requestId: 'r', result: service })
      .persist();
    const sent: Pick<RequestEvent, 'method' | 'priority'>[] = [];
    clouds = clientsOf(fakeSecrets(), {
      dispatcher: cloud,
      hooks: { onRequest: ({ method, priority }) => sent.push({ method, priority }) },
    });
    const polling = await clouds.connectionFor(resource, { priority: 'poll' });
    await polling.management.getService('svc');
    await polling.management.changeServiceState('svc', 'awake');
    const changed = await clouds.connectionFor(resource, { priority: 'user' });
    await changed.management.getService('svc');
    const creating = await clouds.connectionFor(resource, { priority: 'create' });
    await creating.management.getService('svc');
    await creating.management.changeServiceState('svc', 'awake');
    await polling.management.getService('svc');
    expect(sent).toEqual([
      { method: 'GET', priority: 'poll' },
      { method: 'PATCH', priority: 'user' },
      { method: 'GET', priority: 'user' },
      { method: 'GET', priority: 'create' },
      { method: 'PATCH', priority: 'create' },
      { method: 'GET', priority: 'poll' },
    ]);
    await cloud.close();
  });

  it('defers the calls of two objects of one namespace each to its own turn: the second object’s claim counts the first’s', async () => {
    const cloud = new MockAgent();
    cloud.disableNetConnect();
    cloud
      .get('http://127.0.0.1:1')
      .intercept({ path: () => true, method: () => true })
      .reply(200, { status: 200, requestId: 'r', result: { id: 'svc', name: 'db', state: 'running' } })
      .persist();
    clouds = clientsOf(fakeSecrets(), {
      dispatcher: cloud,
      quotas: { management: { requests: 1, windowMs: 60_000 } },
      maxWaitMs: 10,
    });
    const named = (name: string): ManagedObject => ({
      ...resource,
      metadata: { ...resource.metadata, name },
    });
    await (await clouds.connectionFor(named('first'), { priority: 'user' })).management.getService('svc');
    const deferral = async (name: string) =>
      (await clouds!.connectionFor(named(name), { priority: 'user' })).management.getService('svc').then(
        () => undefined,
        (error: { retryAfterMs?: number }) => error.retryAfterMs,
      );
    const [a, b] = [await deferral('a'), await deferral('b')];
    expect(a).toBeGreaterThan(59_000);
    expect(a).toBeLessThanOrEqual(60_600);
    expect(b! - a!).toBeGreaterThan(59_000);
    await cloud.close();
  });

  it('refreshes a shared list at poll priority, even in a reconcile of a user change, so a user write waiting with it goes first', async () => {
    const cloud = new MockAgent();
    cloud.disableNetConnect();
    const service = { id: 'svc', name: 'db', state: 'running' };
    const origin = cloud.get('http://127.0.0.1:1');
    origin
      .intercept({ path: (path) => path.endsWith('/services'), method: 'GET' })
      .reply(200, { status: 200, requestId: 'r', result: [service] })
      .persist();
    origin
      .intercept({ path: () => true, method: () => true })
      .reply(200, { status: 200, requestId: 'r', result: service })
      .persist();
    const sent: Pick<RequestEvent, 'method' | 'route' | 'priority' | 'credentials'>[] = [];
    clouds = clientsOf(fakeSecrets(), {
      dispatcher: cloud,
      hooks: {
        onRequest: ({ method, route, priority, credentials }) =>
          sent.push({ method, route, priority, credentials }),
      },
      // One call per 300 ms: the list and the write below both wait for the one slot.
      quotas: { management: { requests: 1, windowMs: 300 } },
      maxWaitMs: 5_000,
    });
    const changed = await clouds.connectionFor(resource, { priority: 'user' });
    await changed.management.getService('svc');
    const listing = changed.snapshots.services.refresh(0);
    const writing = changed.management.changeServiceState('svc', 'awake');
    await Promise.all([listing, writing]);
    const services = '/v1/organizations/:organizationId/services';
    expect(sent).toEqual([
      { method: 'GET', route: `${services}/:serviceId`, priority: 'user', credentials: 'sys/cloud' },
      { method: 'PATCH', route: `${services}/:serviceId/state`, priority: 'user', credentials: 'sys/cloud' },
      { method: 'GET', route: services, priority: 'poll', credentials: 'sys/cloud' },
    ]);
    await cloud.close();
  });

  /** The error a refused connection throws: its reason and message, with the credentials retry floor. */
  const refusal = (reason: string, message: string) =>
    expect.objectContaining({ name: 'ReconcileError', reason, message, retryAfterMs: 10_000 });

  describe('what a resource’s own Secret and the operator’s Secret may be used for', () => {
    const operatorSecret = freshCredentials('https://api.example.com', 'https://alerts.example.com');
    const tenantSecret = (urls: { managementUrl: string; alertsUrl: string }) => ({
      ...operatorSecret,
      keyId: `key-${randomUUID()}`,
      alertsToken: `token-${randomUUID()}`,
      ...urls,
    });
    const own = (namespace: string): ManagedObject => ({
      ...resource,
      metadata: { ...resource.metadata, namespace },
      spec: { credentialsRef: { name: 'own' } },
    });
    const borrowing = (namespace: string): ManagedObject => ({
      ...resource,
      metadata: { ...resource.metadata, namespace },
    });
    const withSecrets = (
      tenant: Record<string, string>,
      options: Partial<ConstructorParameters<typeof CloudClients>[0]> = {},
    ) => {
      const secrets: SecretReader = {
        get: (namespace, name) =>
          namespace === 'sys' && name === 'cloud'
            ? { data: operatorSecret, resourceVersion: '1' }
            : name === 'own'
              ? { data: tenant, resourceVersion: '1' }
              : undefined,
      };
      clouds = clientsOf(secrets, { ...options });
      return clouds;
    };

    it('lets a resource’s own Secret name the hosts of the operator’s Secret by default', async () => {
      const cloud = await withSecrets(
        tenantSecret({ managementUrl: 'https://api.example.com/', alertsUrl: 'https://alerts.example.com' }),
      ).connectionFor(own('team'), { priority: 'poll' });
      expect(cloud.management.quota).toBeDefined();
      expect(cloud.alerting.quota).toBeDefined();
    });

    it('refuses each API whose host its own Secret names and the operator may not call, naming the key', async () => {
      const cloud = await withSecrets(
        tenantSecret({ managementUrl: 'http://169.254.169.254', alertsUrl: 'https://alerts.example.com' }),
      ).connectionFor(own('team'), { priority: 'poll' });
      expect(() => cloud.management).toThrow(
        refusal(
          'ApiHostNotAllowed',
          'Secret team/own key managementUrl names host 169.254.169.254 over plain http, which the operator ' +
            'may not call ' +
            '(allowed: api.example.com, alerts.example.com; see --allowed-api-hosts)',
        ),
      );
      expect(cloud.alerting.quota).toBeDefined();
    });

    it('uses --allowed-api-hosts instead of the default when given', async () => {
      const clients = withSecrets(
        tenantSecret({
          managementUrl: 'https://eu.api.example.net',
          alertsUrl: 'https://alerts.example.com',
        }),
        { allowedApiHosts: ['*.example.net'] },
      );
      const cloud = await clients.connectionFor(own('team'), { priority: 'poll' });
      expect(cloud.management.quota).toBeDefined();
      expect(() => cloud.alerting).toThrow('key alertsUrl names host alerts.example.com');
    });

    it('trusts the operator’s own Secret whatever the list says', async () => {
      const cloud = await withSecrets(tenantSecret({ managementUrl: 'x', alertsUrl: 'y' }), {
        allowedApiHosts: ['elsewhere.example.org'],
      }).connectionFor(borrowing('team'), { priority: 'poll' });
      expect(cloud.management.quota).toBeDefined();
    });

    it('lets only the listed namespaces use the operator’s Secret; a resource elsewhere may bring its own', async () => {
      const clients = withSecrets(
        tenantSecret({ managementUrl: 'https://api.example.com', alertsUrl: 'https://alerts.example.com' }),
        { defaultSecretNamespaces: ['team-a', 'team-b'] },
      );
      expect(
        (await clients.connectionFor(borrowing('team-a'), { priority: 'poll' })).management.quota,
      ).toBeDefined();
      await expect(clients.connectionFor(borrowing('team-c'), { priority: 'poll' })).rejects.toThrow(
        refusal(
          'OperatorCredentialsNotAllowed',
          "the operator's credentials may be used only in namespaces team-a, team-b " +
            '(--operator-credentials-namespaces), not in team-c: set spec.credentialsRef to a Secret of this namespace, ' +
            'or create its default credentials Secret sluice-credentials',
        ),
      );
      expect(
        (await clients.connectionFor(own('team-c'), { priority: 'poll' })).management.quota,
      ).toBeDefined();
    });

    describe('a kind that states its credentials (an ApiKey)', () => {
      const apiKey = (namespace: string, spec: ManagedObject['spec'] = {}): ManagedObject => ({
        ...resource,
        kind: 'ApiKey',
        metadata: { ...resource.metadata, namespace },
        spec,
      });
      const { managementUrl, alertsUrl } = operatorSecret as { managementUrl: string; alertsUrl: string };
      const teamDefault = { ...tenantSecret({ managementUrl, alertsUrl }), organizationId: 'team-org' };
      /** Every namespace has a default sluice-credentials (of another organization); ApiKeys state theirs. */
      const withDefaults = (options: Partial<ConstructorParameters<typeof CloudClients>[0]> = {}) => {
        const secrets: SecretReader = {
          get: (namespace, name) =>
            namespace === 'sys' && name === 'cloud'
              ? { data: operatorSecret, resourceVersion: '1' }
              : name === NAMESPACE_CREDENTIALS
                ? { data: teamDefault, resourceVersion: '1' }
                : undefined,
        };
        clouds = clientsOf(secrets, { statesCredentials: (r) => r.kind === 'ApiKey', ...options });
        return clouds;
      };

      it("uses the operator's credentials, never the namespace default, whichever exists", () => {
        const clients = withDefaults();
        expect(clients.credentialsOf(apiKey('team'))).toEqual({ namespace: 'sys', name: 'cloud' });
        expect(clients.readCredentials(apiKey('team')).organization).toBe(operatorSecret.organizationId);
        // Any other kind there takes the default, of its own organization.
        expect(clients.credentialsOf(borrowing('team'))).toEqual({
          namespace: 'team',
          name: NAMESPACE_CREDENTIALS,
        });
        expect(clients.readCredentials(borrowing('team')).organization).toBe('team-org');
      });

      it("names in the read the Secret of the object's namespace it signs in with: the default, or none for a kind that states its credentials", () => {
        const clients = withDefaults();
        expect(clients.readCredentials(borrowing('team')).objectSecret).toBe(NAMESPACE_CREDENTIALS);
        expect(clients.readCredentials(apiKey('team')).objectSecret).toBeUndefined();
        const own = apiKey('team', { credentialsRef: { name: 'key-maker' } });
        expect(clients.readCredentials(own).objectSecret).toBe('key-maker');
      });

      it('is refused the operator credentials outside the listed namespaces, pointed at spec.credentialsRef only', async () => {
        const clients = withDefaults({ defaultSecretNamespaces: ['platform'] });
        await expect(clients.connectionFor(apiKey('team'), { priority: 'poll' })).rejects.toThrow(
          refusal(
            'OperatorCredentialsNotAllowed',
            "the operator's credentials may be used only in namespaces platform " +
              '(--operator-credentials-namespaces), not in team: set spec.credentialsRef to a Secret of this ' +
              'namespace holding a key that may manage keys (this kind never uses the namespace default)',
          ),
        );
        expect(clients.readCredentials(apiKey('team')).organization).toBeUndefined();
      });

      it("tells the kind the operator's key suffix, whichever credentials the object uses", async () => {
        const cloud = await withDefaults().connectionFor(borrowing('team'), { priority: 'poll' });
        expect(cloud.operatorKeySuffix).toBe(operatorSecret.keyId!.slice(-4));
      });
    });
  });
});
