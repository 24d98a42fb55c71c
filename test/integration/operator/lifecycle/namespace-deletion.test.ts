// A namespace whose objects use its own credentials Secret, deleted by the real namespace controller (the
// test control plane runs kube-controller-manager): whatever order the controller deletes things in, the
// Delete-policy cloud objects are deleted, the Orphan ones stay, and nothing resets a password.
import { afterEach, describe, expect, it } from 'vitest';
import { CREDENTIALS_FINALIZER } from '../../../../src/runtime/credentials-usage.ts';
import { tileAlert } from '../../../../tools/fixtures/alert.ts';
import { kafkaPipe } from '../../../../tools/fixtures/pipe.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import {
  COMPRESSED_QUOTA_MODE,
  isReadyWithId,
  startOperatorEnv,
  TIME_SCALE,
  untilNamespaceGone,
  type OperatorEnv,
  type SluiceObject,
} from '../support.ts';

const OWN = 'tenant-credentials';
/** What the namespace holds besides Secrets, all using its own credentials. */
const OBJECTS = [
  ['DatabaseService', 'doomed'],
  ['DatabaseService', 'kept'],
  ['Pipe', 'doomed-orders'],
  ['Pipe', 'kept-orders'],
  ['Alert', 'cpu'],
] as const;

interface Tenant {
  env: OperatorEnv;
  /** Cloud ids by object name. */
  ids: Record<string, string>;
}

/**
 * A namespace holding its own credentials Secret and, all using it: a Delete and an Orphan DatabaseService, a
 * Pipe on each (Delete, the default), and an Alert (Delete, the default).
 */
async function tenant(prefix: string, quota: 'off' | 'default'): Promise<Tenant> {
  const env = await startOperatorEnv(prefix);
  const { url } = env.emulator;
  await env.putCredentials(OWN, { alerting: true });
  await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass-1' });
  await env.startOperator({
    // As where the operator's own Secret lives elsewhere: this namespace's deletion takes it too.
    allowedApiHosts: `http://${new URL(url).host}`,
    // On compressed time: the retries of a teardown (a Secret or service going first) come round in seconds.
    timeScale: TIME_SCALE,
    // The default quota (10 requests per key in each window) or none.
    ...(quota === 'off' ? {} : COMPRESSED_QUOTA_MODE.operator),
  });
  const credentialsRef = { name: OWN };
  await env.apply('doomed', { name: 'doomed', deletionPolicy: 'Delete', credentialsRef });
  await env.apply('kept', { name: 'kept', credentialsRef });
  const pipes = env.of<SluiceObject>('Pipe');
  await pipes.apply('doomed-orders', {
    ...kafkaPipe('doomed-orders', { service: 'doomed' }),
    credentialsRef,
  });
  await pipes.apply('kept-orders', { ...kafkaPipe('kept-orders', { service: 'kept' }), credentialsRef });
  const alerts = env.of<SluiceObject>('Alert');
  await alerts.apply('cpu', { ...tileAlert('cpu'), credentialsRef });

  const ids: Record<string, string> = {};
  for (const [kind, name] of OBJECTS) {
    ids[name] = (
      await env.of<SluiceObject>(kind).waitFor(name, `${kind} ${name} Ready`, isReadyWithId, 60_000)
    ).status!.id!;
  }
  return { env, ids };
}

/** Waits until the namespace is gone; while it is not, says what holds it (for the failure message). */
async function waitNamespaceGone(env: OperatorEnv): Promise<void> {
  await untilNamespaceGone(env, async () => {
    const left = await Promise.all(
      OBJECTS.map(async ([kind, name]) => [
        name,
        (await env.of<SluiceObject>(kind).get(name))?.status?.conditions,
      ]),
    );
    return JSON.stringify(left.filter(([, conditions]) => conditions !== undefined));
  });
}

/** What the cloud shows once the namespace is gone: Delete objects deleted, Orphan ones left, no reset. */
async function expectCleanTeardown({ env, ids }: Tenant): Promise<void> {
  const store = env.emulator.store;
  expect(store.services.has(ids.doomed!)).toBe(false);
  expect(store.services.has(ids.kept!)).toBe(true);
  expect(store.pipesOf(ids.kept!).has(ids['kept-orders']!)).toBe(false);
  expect(store.findPipe(ids['doomed-orders']!)).toBeUndefined();
  expect(store.alerts.has(ids.cpu!)).toBe(false);
  const resets = (await env.calls()).filter((c) => c.route.endsWith('/password'));
  expect(resets).toEqual([]);
}

describe.skipIf(clusterSkipReason())('deleting a namespace that uses its own credentials', () => {
  let current: Tenant | undefined;
  afterEach(async () => {
    await current?.env.close();
    current = undefined;
  });

  it('keeps the credentials Secret until its last user is gone: the namespace goes, Delete objects are deleted in the cloud, Orphan ones stay, no password is reset', async () => {
    current = await tenant('ns-delete', 'off');
    const { env } = current;
    const secret = await env.core.readNamespacedSecret({ name: OWN, namespace: env.namespace });
    expect(secret.metadata?.finalizers).toContain(CREDENTIALS_FINALIZER);

    await env.core.deleteNamespace({ name: env.namespace });
    await waitNamespaceGone(env);
    await expectCleanTeardown(current);
  }, 150_000);

  it('the credentials Secret deleted by hand first stays Terminating while objects use it, and the namespace deleted next still goes cleanly (default quota)', async () => {
    current = await tenant('secret-first', 'default');
    const { env } = current;
    await env.core.deleteNamespacedSecret({ name: OWN, namespace: env.namespace });
    const terminating = await env.core.readNamespacedSecret({ name: OWN, namespace: env.namespace });
    expect(terminating.metadata?.deletionTimestamp).toBeTruthy();
    expect(terminating.metadata?.finalizers).toEqual([CREDENTIALS_FINALIZER]);

    await env.core.deleteNamespace({ name: env.namespace });
    await waitNamespaceGone(env);
    await expectCleanTeardown(current);
  }, 150_000);
});
