// Uninstalling sluice strands no one: `sluice uninstall` (the chart's pre-delete hook runs it) takes every
// sluice finalizer off, so a tenant namespace that used its own credentials can be deleted with no operator;
// and a Secret named as credentials is kept only once it is known to be credentials.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mapConcurrently } from '../../../../src/base/map-concurrently.ts';
import { KINDS } from '../../../../src/kinds/index.ts';
import { loadKubeAccess } from '../../../../src/kube/kube-config.ts';
import { FINALIZER } from '../../../../src/managed/annotations.ts';
import { CREDENTIALS_FINALIZER } from '../../../../src/runtime/credentials-usage.ts';
import { RELEASE_CONCURRENCY, releaseFinalizers } from '../../../../src/uninstall/release.ts';
import { createTestNamespace } from '../../../harness/namespace.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { condition, isReady, startOperatorEnv, type OperatorEnv } from '../support.ts';

const OWN = 'tenant-credentials';

describe.skipIf(clusterSkipReason())('uninstalling sluice, and what it keeps meanwhile', () => {
  let env: OperatorEnv;

  beforeAll(async () => {
    env = await startOperatorEnv('iso-uninstall');
    await env.putCredentials(OWN);
    await env.startOperator({ allowedApiHosts: `http://${new URL(env.emulator.url).host}` });
  });
  afterAll(async () => env?.close());

  const finalizersOf = async (name: string) =>
    (await env.core.readNamespacedSecret({ name, namespace: env.namespace })).metadata?.finalizers ?? [];

  it('never keeps a Secret named as credentials that holds no credentials (a TLS Secret)', async () => {
    await env.putSecret('tls-cert', { 'tls.crt': 'certificate', 'tls.key': 'private key' });
    await env.apply('tls', { name: 'tls', credentialsRef: { name: 'tls-cert' } });
    const refused = await env.waitFor(
      'tls',
      'Synced=CredentialsMissing',
      (r) => condition(r, 'Synced')?.reason === 'CredentialsMissing',
    );
    expect(condition(refused, 'Synced')!.message).toContain('tls-cert');
    expect(await finalizersOf('tls-cert')).not.toContain(CREDENTIALS_FINALIZER);
    await env.removeUntilGone('tls');
  });

  it('sluice uninstall of a namespace that holds nothing releases nothing and ends cleanly', async () => {
    // An empty metadata-only list comes back with `items: null`, not an empty array.
    const empty = await createTestNamespace('iso-uninstall-empty');
    try {
      const released = await releaseFinalizers({
        kubeConfig: await loadKubeAccess(env.kubeconfigPath),
        kinds: KINDS,
        namespaces: [empty.name],
        log: () => undefined,
      });
      expect(released).toEqual({ secrets: 0, objects: 0 });
    } finally {
      await empty.delete();
    }
  });

  it('sluice uninstall takes the finalizer off every Secret of a namespace longer than a list page, several PATCHes at once but never more than its bound', async () => {
    // 510 Secrets: a list page holds 500, so the second page is released too.
    const count = 510;
    const large = await createTestNamespace('iso-uninstall-large');
    const core = large.kc.makeApiClient(CoreV1Api);
    try {
      await mapConcurrently(
        Array.from({ length: count }, (_, i) => `held-${i}`),
        16,
        (name) =>
          core.createNamespacedSecret({
            namespace: large.name,
            body: { metadata: { name, finalizers: [CREDENTIALS_FINALIZER] }, stringData: { key: 'value' } },
          }),
      );
      const patches = patchesInFlight(`/api/v1/namespaces/${large.name}/secrets/`);
      const released = await releaseFinalizers({
        kubeConfig: large.kc,
        kinds: KINDS,
        namespaces: [large.name],
        log: () => undefined,
      }).finally(() => patches.stop());

      expect(released).toEqual({ secrets: count, objects: 0 });
      const secrets = await core.listNamespacedSecret({ namespace: large.name });
      const holding = secrets.items.filter((s) => s.metadata?.finalizers?.includes(CREDENTIALS_FINALIZER));
      expect(holding.map((s) => s.metadata?.name)).toEqual([]);
      expect(patches.most).toBeGreaterThan(1);
      expect(patches.most).toBeLessThanOrEqual(RELEASE_CONCURRENCY);
    } finally {
      await large.delete();
    }
  });

  it('after sluice uninstall, the namespace of a tenant with its own credentials is deleted with no operator; its cloud service stays', async () => {
    await env.apply('tenant-db', { name: 'tenant db', credentialsRef: { name: OWN } });
    const id = (await env.waitFor('tenant-db', 'Ready', isReady)).status!.id!;
    expect(await finalizersOf(OWN)).toContain(CREDENTIALS_FINALIZER);
    expect((await env.get('tenant-db'))!.metadata.finalizers).toContain(FINALIZER);

    await env.stopOperator();
    const released = await releaseFinalizers({
      kubeConfig: await loadKubeAccess(env.kubeconfigPath),
      kinds: KINDS,
      namespaces: [env.namespace],
      log: () => undefined,
    });
    expect(released).toEqual({ secrets: 1, objects: 1 });

    await env.core.deleteNamespace({ name: env.namespace });
    await vi.waitFor(
      async () => {
        const phase = await env.core.readNamespace({ name: env.namespace }).then(
          (ns) => ns.status?.phase,
          (error: { code?: number }) => (error.code === 404 ? 'gone' : `error ${error.code}`),
        );
        expect(phase).toBe('gone');
      },
      { timeout: 90_000, interval: 500 },
    );
    // Nothing in the cloud is deleted: a later install takes the service back from its owner record.
    expect(env.emulator.store.services.has(id)).toBe(true);
  });
});

/**
 * The most PATCHes to paths under `prefix` this process had in flight at once, from now until `stop()`: Node's
 * HTTP client announces each request as it is sent and its answer as it arrives.
 */
function patchesInFlight(prefix: string): { readonly most: number; stop(): void } {
  let inFlight = 0;
  let most = 0;
  const isPatch = (request: ClientRequest) => request.method === 'PATCH' && request.path.startsWith(prefix);
  const sent = (message: unknown) => {
    if (isPatch((message as { request: ClientRequest }).request)) most = Math.max(most, ++inFlight);
  };
  const answered = (message: unknown) => {
    if (isPatch((message as { request: ClientRequest }).request)) inFlight--;
  };
  subscribe('http.client.request.start', sent);
  subscribe('http.client.response.finish', answered);
  return {
    get most() {
      return most;
    },
    stop() {
      unsubscribe('http.client.request.start', sent);
      unsubscribe('http.client.response.finish', answered);
    },
  };
}
