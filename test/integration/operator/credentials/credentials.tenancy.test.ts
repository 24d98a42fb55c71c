import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { tileAlert } from '../../../../tools/fixtures/alert.ts';
import { condition, isReady, startOperatorEnv, type OperatorEnv, type SluiceObject } from '../support.ts';

/** A plain HTTP listener on loopback standing in for a host the operator must never call: it counts calls. */
async function startOtherHost(): Promise<{
  url: string;
  host: string;
  requests: string[];
  close(): Promise<void>;
}> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(500, { 'content-type': 'text/plain' }).end('internal metadata the operator must not relay');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const syncedReason = (reason: string) => (r: SluiceObject | undefined) =>
  condition(r, 'Synced')?.status === 'False' && condition(r, 'Synced')?.reason === reason;

describe.skipIf(clusterSkipReason())('tenant credentials: API hosts and namespaces', () => {
  let env: OperatorEnv;
  let other: Awaited<ReturnType<typeof startOtherHost>>;

  beforeAll(async () => {
    env = await startOperatorEnv('tenancy');
    other = await startOtherHost();
    // A tenant's Secret with a real key but URLs of a host the operator was not told to allow.
    await env.putCredentials('elsewhere', { url: other.url, alerting: true });
    // A tenant's own Secret for the emulator (the host of the operator-wide Secret).
    await env.putCredentials('own');
  });
  afterEach(() => env.stopOperator());
  afterAll(async () => {
    await env?.close();
    await other?.close();
  });

  it('refuses a Secret naming a host the operator may not call, names the key, and sends that host nothing', async () => {
    await env.startOperator();
    await env.apply('ssrf', { name: 'ssrf', credentialsRef: { name: 'elsewhere' } });
    await env.of<SluiceObject>('Alert').apply('ssrf-alert', {
      ...tileAlert('ssrf-alert'),
      credentialsRef: { name: 'elsewhere' },
    });

    const service = await env.waitFor('ssrf', 'Synced=ApiHostNotAllowed', syncedReason('ApiHostNotAllowed'));
    expect(condition(service, 'Synced')!.message).toBe(
      `Secret ${env.namespace}/elsewhere key managementUrl names host ${other.host} over plain http, which the operator ` +
        `may not call (allowed: http://${new URL(env.emulator.url).host}; see --allowed-api-hosts)`,
    );
    const alert = await env
      .of<SluiceObject>('Alert')
      .waitFor('ssrf-alert', 'Synced=ApiHostNotAllowed', syncedReason('ApiHostNotAllowed'));
    expect(condition(alert, 'Synced')!.message).toContain('key alertsUrl names host');
    expect(other.requests).toEqual([]);

    // The same Secret is used once the operator is told to allow that host.
    await env.stopOperator();
    await env.startOperator({
      allowedApiHosts: `http://${new URL(env.emulator.url).host},http://${other.host}`,
    });
    await env.waitFor('ssrf', 'a call to the allowed host', () => other.requests.length > 0);
    await env.remove('ssrf');
    await env.of('Alert').remove('ssrf-alert');
  });

  it('a host listed for https is refused over plain http, naming it, and sent nothing; listed with http:// it is called', async () => {
    const emulatorEntry = `http://${new URL(env.emulator.url).host}`;
    await env.startOperator({ allowedApiHosts: `${emulatorEntry},${other.host}` });
    const before = other.requests.length;
    await env.apply('cleartext', { name: 'cleartext', credentialsRef: { name: 'elsewhere' } });
    const service = await env.waitFor(
      'cleartext',
      'Synced=ApiHostNotAllowed',
      syncedReason('ApiHostNotAllowed'),
    );
    expect(condition(service, 'Synced')!.message).toBe(
      `Secret ${env.namespace}/elsewhere key managementUrl names host ${other.host} over plain http, which ` +
        `the operator may not call (allowed: ${emulatorEntry}, ${other.host}; see --allowed-api-hosts)`,
    );
    expect(other.requests.slice(before)).toEqual([]);

    await env.stopOperator();
    await env.startOperator({ allowedApiHosts: `${emulatorEntry},http://${other.host}` });
    await env.waitFor('cleartext', 'a call to the allowed host', () => other.requests.length > before);
    await env.remove('cleartext');
  });

  it('limits the operator-wide credentials to the listed namespaces; a resource elsewhere needs its own', async () => {
    await env.clearCalls();
    await env.startOperator({ operatorCredentialsNamespaces: 'team-a,team-b' });
    await env.apply('borrower', { name: 'borrower' });
    await env.apply('self-funded', { name: 'self funded', credentialsRef: { name: 'own' } });

    const borrower = await env.waitFor(
      'borrower',
      'Synced=OperatorCredentialsNotAllowed',
      syncedReason('OperatorCredentialsNotAllowed'),
    );
    expect(condition(borrower, 'Synced')!.message).toBe(
      `the operator's credentials may be used only in namespaces team-a, team-b ` +
        `(--operator-credentials-namespaces), not in ${env.namespace}: set spec.credentialsRef to a Secret ` +
        `of this namespace, or create its default credentials Secret sluice-credentials`,
    );
    const selfFunded = await env.waitFor('self-funded', 'Ready', isReady);
    // Only the resource with its own credentials reached the cloud.
    const created = (await env.calls()).filter((c) => c.method === 'POST');
    expect(created).toHaveLength(1);
    expect((await env.cloud.getService(selfFunded.status!.id!)).name).toBe('self funded');
    expect(borrower.status?.id).toBeUndefined();

    // Listing this namespace lets the borrower use them.
    await env.stopOperator();
    await env.startOperator({ operatorCredentialsNamespaces: `team-a,${env.namespace}` });
    await env.waitFor('borrower', 'Ready', isReady);
  });
});
