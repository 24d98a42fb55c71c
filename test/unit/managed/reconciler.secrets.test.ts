import { describe, expect, it } from 'vitest';
import { deriveDigestKey } from '../../../src/managed/secret-digests.ts';
import type { SecretSnapshot } from '../../../src/managed/secret-references.ts';
import { connected, fakeReconciler, observedAlso, widget, widgetFakes, widgetKind } from './fakes.ts';

const TOKEN = 'spec.tokenSecretRef';

/** Widgets whose cloud side takes a token from a referenced Secret, and is sent it again when it rotates. */
function setup() {
  const fakes = widgetFakes();
  const { server, cache, cloud } = fakes;
  const secrets = new Map<string, SecretSnapshot>([
    ['token', { resourceVersion: '1', data: { token: 't-1' } }],
  ]);
  const sent: string[] = [];
  let rotated: ReadonlySet<string> = new Set();
  const observe = cloud.observe.bind(cloud);
  cloud.observe = async (resource, id) => {
    const found = await observe(resource, id);
    if (!rotated.has(TOKEN)) return found;
    return observedAlso(found, { unheldDifferences: [TOKEN] });
  };
  cloud.update = async () => void sent.push(secrets.get('token')!.data.token!);
  const reconciler = fakeReconciler(server, cache, cloud, {
    kind: {
      ...widgetKind(cloud),
      secretReferences: () => [{ field: TOKEN, secretName: 'token', keys: ['token'] }],
      connect: (_resource, context) => ((rotated = context.secrets.rotated), connected(cloud)),
    },
    secrets: { get: (_namespace, name) => secrets.get(name) },
    secretDigestKey: () => deriveDigestKey('api-key-secret'),
  });
  cache.set(server.put(widget('a')));
  return {
    ...fakes,
    secrets,
    sent,
    reconcile: () => reconciler.reconcile('ns/a'),
    sync: () => cache.set(server.get('a')),
  };
}

describe('the reconciler and referenced Secrets', () => {
  it('sends a rotated value once, even when woken again before the cache shows the recorded digests', async () => {
    const t = setup();
    await t.reconcile();
    t.sync();
    t.cloud.widgets.get(t.server.get('a').status!.id!)!.ready = true;
    await t.reconcile();
    t.sync();
    expect(t.sent).toEqual([]);

    t.secrets.set('token', { resourceVersion: '2', data: { token: 't-2' } });
    await t.reconcile();
    // The Secret watch wakes it again before the status write reached the cache.
    await t.reconcile();
    expect(t.sent).toEqual(['t-2']);

    t.sync();
    t.secrets.set('token', { resourceVersion: '3', data: { token: 't-2' }, ownerReferences: [] });
    await t.reconcile();
    expect(t.sent).toEqual(['t-2']);
    expect(JSON.stringify(t.server.get('a').status)).not.toContain('t-2');
  });

  it('gives the Secret cache the answer of each stored connection Secret write, never of its dry run', async () => {
    const { server, cache, cloud } = widgetFakes();
    const told: { secret: string; answer: SecretSnapshot }[] = [];
    const reconciler = fakeReconciler(server, cache, cloud, {
      secretWrites: {
        writing: (namespace, name, answer) =>
          void answer.then((snapshot) => told.push({ secret: `${namespace}/${name}`, answer: snapshot })),
      },
    });
    cache.set(server.put(widget('a')));

    await reconciler.reconcile('ns/a');

    // The create's password was checked writable by a dry run, then stored: only what was stored is told.
    expect(server.secretDryRuns).toBe(1);
    expect(told).toEqual([
      {
        secret: 'ns/a-connection',
        answer: expect.objectContaining({ data: server.secrets.get('a-connection')!.data }),
      },
    ]);
    expect(told[0]!.answer.data.password).toBeTruthy();
  });
});
