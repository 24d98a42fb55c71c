// A namespace's default credentials: the Secret `sluice-credentials` of an object's own namespace, used by
// every object there without spec.credentialsRef, under the same host allow-list as any tenant Secret.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { CREDENTIALS_FINALIZER } from '../../../../src/runtime/credentials-usage.ts';
import { condition, isReady, startOperatorEnv, type OperatorEnv, type SluiceObject } from '../support.ts';
import { planInProcess } from '../plan-in-process.ts';
import { ExportConfig } from '../../../../src/export/config.ts';
import { runExport } from '../../../../src/export/run.ts';
import { testKubeconfigPath } from '../../../harness/test-cluster.ts';

const DEFAULT = 'sluice-credentials';

const syncedReason = (reason: string) => (r: SluiceObject | undefined) =>
  condition(r, 'Synced')?.status === 'False' && condition(r, 'Synced')?.reason === reason;

describe.skipIf(clusterSkipReason())("a namespace's default credentials Secret", () => {
  /** Team A and team B: the operator's own credentials are allowed in neither. */
  let a: OperatorEnv;
  let b: OperatorEnv;
  let other: Server;
  let otherUrl = '';
  const otherRequests: string[] = [];

  const keyAt = (env: OperatorEnv, url: string) => ({
    organizationId: env.emulator.credentials.organizationId,
    keyId: env.emulator.credentials.keyId,
    keySecret: env.emulator.credentials.keySecret,
    managementUrl: url,
  });
  /** Asks for a reconcile of `name` in `env` and waits until its status says it was handled. */
  const looked = async (env: OperatorEnv, name: string) => {
    const at = new Date().toISOString() + Math.random();
    await env.annotate(name, { 'sluice.dev/reconcile-requested-at': at });
    return env.waitFor(name, 'the reconcile asked for', (r) => r?.status?.lastHandledReconcileAt === at);
  };

  beforeAll(async () => {
    a = await startOperatorEnv('default-creds-a');
    b = await startOperatorEnv('default-creds-b', {}, { sharing: a });
    other = createServer((req, res) => {
      otherRequests.push(`${req.method} ${req.url}`);
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    await a.startOperator({
      namespace: `${a.namespace},${b.namespace}`,
      operatorCredentialsNamespaces: 'team-elsewhere',
    });
  });
  afterAll(async () => {
    await a?.stopOperator();
    await b?.close();
    await a?.close();
    await new Promise((resolve) => other?.close(resolve));
  });

  it('without one, an object is refused the operator credentials, and the message names the default', async () => {
    await a.apply('orders', { name: 'orders' });
    const refused = await a.waitFor(
      'orders',
      'Synced=OperatorCredentialsNotAllowed',
      syncedReason('OperatorCredentialsNotAllowed'),
    );
    expect(condition(refused, 'Synced')!.message).toContain(
      `set spec.credentialsRef to a Secret of this namespace, or create its default credentials Secret ${DEFAULT}`,
    );
    expect(refused.status?.credentialsSecret).toBeUndefined();
  });

  it('once the Secret appears, the object reconciles with it unedited, says so in status, and the Secret is kept while used', async () => {
    await a.putSecret(DEFAULT, keyAt(a, a.emulator.url));
    const ready = await a.waitFor('orders', 'Ready', isReady);
    expect(ready.status?.credentialsSecret).toBe(DEFAULT);
    const secret = await a.core.readNamespacedSecret({ name: DEFAULT, namespace: a.namespace });
    expect(secret.metadata?.finalizers).toContain(CREDENTIALS_FINALIZER);
  });

  it("another namespace's objects never use it: they stay refused", async () => {
    await b.apply('billing', { name: 'billing' });
    await b.waitFor(
      'billing',
      'Synced=OperatorCredentialsNotAllowed',
      syncedReason('OperatorCredentialsNotAllowed'),
    );
    const after = await looked(b, 'billing');
    expect(condition(after, 'Synced')?.reason).toBe('OperatorCredentialsNotAllowed');
    expect(after.status?.id).toBeUndefined();
    expect(after.status?.credentialsSecret).toBeUndefined();
  });

  it('a default naming a host that is not allowed is refused like any tenant Secret, and that host gets nothing', async () => {
    await b.putSecret(DEFAULT, keyAt(b, otherUrl));
    const refused = await b.waitFor('billing', 'Synced=ApiHostNotAllowed', syncedReason('ApiHostNotAllowed'));
    expect(condition(refused, 'Synced')!.message).toContain(
      `Secret ${b.namespace}/${DEFAULT} key managementUrl`,
    );
    expect(otherRequests).toEqual([]);

    // Its removal re-reconciles the object: back to the refusal of the operator's credentials.
    await b.core.deleteNamespacedSecret({ name: DEFAULT, namespace: b.namespace });
    await b.waitFor(
      'billing',
      'Synced=OperatorCredentialsNotAllowed again',
      syncedReason('OperatorCredentialsNotAllowed'),
    );
    expect(otherRequests).toEqual([]);
  });

  it('a change of the Secret re-reconciles the objects using it by default', async () => {
    await a.putSecret(DEFAULT, keyAt(a, otherUrl));
    await a.waitFor('orders', 'Synced=ApiHostNotAllowed', syncedReason('ApiHostNotAllowed'));
    expect(otherRequests).toEqual([]);
    await a.putSecret(DEFAULT, keyAt(a, a.emulator.url));
    await a.waitFor('orders', 'Ready again', (r) => isReady(r) && condition(r, 'Synced')?.status === 'True');
  });

  it('sluice plan resolves the default before the operator credentials, as the operator does', async () => {
    const { code, stdout, stderr } = await planInProcess(a);
    expect(code, `${stderr}\n${stdout}`).toBe(0);
    const { resources } = JSON.parse(stdout) as { resources: { name: string; action: string }[] };
    expect(resources).toEqual([expect.objectContaining({ name: 'orders', action: 'none' })]);
  });

  it('sluice export -n reads with the namespace default, and says so', async () => {
    const lines: string[] = [];
    const code = await runExport(
      ExportConfig.parse({
        kubeconfig: testKubeconfigPath(),
        namespace: a.namespace,
        kind: ['DatabaseService'],
        includeManaged: true,
        managementQuota: 'off',
      }),
      { stdout: () => undefined, stderr: (line) => lines.push(line) },
    );
    expect(code, lines.join('\n')).toBe(0);
    expect(lines).toContain(`credentials: ${a.namespace}/${DEFAULT} (the namespace's default credentials)`);
  });
});
