import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SECRETS } from '../../../src/kube/api-path.ts';
import { Informer } from '../../../src/kube/informer.ts';
import { encodeSecretData, type SecretObject } from '../../../src/kube/secret-data.ts';
import { snapshotOf, type SecretSnapshot } from '../../../src/managed/secret-references.ts';
import { SecretCache } from '../../../src/runtime/secret-cache.ts';
import { FakeKubeApi } from '../kube/fake-kube-api.ts';

const until = { timeout: 5_000, interval: 10 };
const USER = 'DatabaseService/ns/db';
const NAME = 'db-connection';

function connection(values: Record<string, string>, name = NAME): SecretObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { namespace: 'ns', name },
    data: encodeSecretData(values),
  };
}

/** A write's answer the test hands over when it chooses. */
function pendingAnswer() {
  let resolve!: (secret: SecretSnapshot) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<SecretSnapshot>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('SecretCache: what sluice writes itself is held from the answer', () => {
  let api: FakeKubeApi;
  let informer: Informer<SecretObject>;
  let cache: SecretCache;
  let refreshes: Promise<void>[];

  beforeEach(async () => {
    api = await FakeKubeApi.start();
    informer = new Informer<SecretObject>({
      kubeConfig: api.kubeConfig(),
      resource: SECRETS,
      namespace: 'ns',
      logger: pino({ enabled: false }),
      shareStrings: false,
      metadataOnly: true,
    });
    cache = new SecretCache({ metadata: informer.cache, kubeConfig: api.kubeConfig() });
    refreshes = [];
    // What the operator's manager does with each change the watch shows.
    informer.subscribe((key) => refreshes.push(cache.refresh(key)));
    informer.start();
    await informer.waitForSync();
    await vi.waitFor(() => expect(api.openWatchCount).toBe(1), until);
    cache.use(USER, [{ secret: `ns/${NAME}` }]);
  });

  afterEach(async () => {
    await informer.stop();
    await api.close();
  });

  /** Resolves once the watch shows `version` of the Secret and every refresh it caused has ended. */
  async function watchShows(version: string | undefined, name = NAME): Promise<void> {
    await vi.waitFor(() => expect(cache.object('ns', name)?.metadata.resourceVersion).toBe(version), until);
    await Promise.all(refreshes);
  }

  /** sluice's write: stored on the server (its watch event on its way), its answer given to the cache. */
  function sluiceWrites(values: Record<string, string>): SecretObject {
    const stored = api.put(connection(values));
    cache.writing('ns', NAME, Promise.resolve(snapshotOf(stored)));
    return stored;
  }

  it('needs no GET when the answer comes before the watch event of the write', async () => {
    const stored = sluiceWrites({ password: 'pw-1' });
    await Promise.resolve();
    // Held already, though the watch has not shown the Secret yet.
    expect(cache.object('ns', NAME)).toBeUndefined();
    expect(cache.stats().data).toBe(1);

    await watchShows(stored.metadata.resourceVersion);
    expect(api.gets).toEqual([]);
    expect(cache.get('ns', NAME)).toMatchObject({
      data: { password: 'pw-1' },
      resourceVersion: stored.metadata.resourceVersion,
    });
  });

  it('needs no GET when the watch event comes first: it waits for the answer of the write under way', async () => {
    const answer = pendingAnswer();
    cache.writing('ns', NAME, answer.promise);
    const stored = api.put(connection({ password: 'pw-1' }));
    await vi.waitFor(
      () => expect(cache.object('ns', NAME)?.metadata.resourceVersion).toBe(stored.metadata.resourceVersion),
      until,
    );
    expect(cache.get('ns', NAME)).toBeUndefined();

    answer.resolve(snapshotOf(stored));
    await Promise.all(refreshes);
    expect(api.gets).toEqual([]);
    expect(cache.get('ns', NAME)?.data).toEqual({ password: 'pw-1' });
  });

  it('reads a newer version someone else wrote after sluice', async () => {
    sluiceWrites({ password: 'pw-1' });
    const theirs = api.put(connection({ password: 'pw-1', extra: 'theirs' }));

    await watchShows(theirs.metadata.resourceVersion);
    expect(api.gets).toHaveLength(1);
    expect(cache.get('ns', NAME)).toMatchObject({
      data: { password: 'pw-1', extra: 'theirs' },
      resourceVersion: theirs.metadata.resourceVersion,
    });
  });

  it('keeps the answer over a watch event of an older version that arrives after it', async () => {
    api.put(connection({ password: 'old' }));
    await cache.load([`ns/${NAME}`]);
    const before = api.gets.length;
    // Someone's write, then sluice's: both events still on their way when sluice's answer is held.
    const theirs = api.put(connection({ password: 'theirs' }));
    const ours = sluiceWrites({ password: 'ours' });

    await watchShows(ours.metadata.resourceVersion);
    expect(Number(theirs.metadata.resourceVersion)).toBeLessThan(Number(ours.metadata.resourceVersion));
    expect(api.gets).toHaveLength(before);
    expect(cache.get('ns', NAME)?.data).toEqual({ password: 'ours' });
  });

  it('reads what the watch shows when the write failed', async () => {
    const answer = pendingAnswer();
    cache.writing('ns', NAME, answer.promise);
    // Stored, though its answer was lost: only the watch tells.
    const stored = api.put(connection({ password: 'landed' }));
    await vi.waitFor(() => expect(cache.object('ns', NAME)).toBeDefined(), until);

    answer.reject(new Error('connection reset'));
    await watchShows(stored.metadata.resourceVersion);
    expect(api.gets).toHaveLength(1);
    expect(cache.get('ns', NAME)?.data).toEqual({ password: 'landed' });
  });

  it('drops a deleted Secret it held from an answer, and reads the one created in its place', async () => {
    const stored = sluiceWrites({ password: 'pw-1' });
    await watchShows(stored.metadata.resourceVersion);
    api.delete('ns', NAME);
    await watchShows(undefined);
    expect(cache.get('ns', NAME)).toBeUndefined();
    expect(cache.stats().data).toBe(0);

    const recreated = api.put(connection({ password: 'someone-elses' }));
    await watchShows(recreated.metadata.resourceVersion);
    expect(api.gets).toHaveLength(1);
    expect(cache.get('ns', NAME)?.data).toEqual({ password: 'someone-elses' });
  });

  it('holds no answer for a Secret no object uses, nor for one whose last user let go during the write', async () => {
    const unused = api.put(connection({ blob: 'x' }, 'unused'));
    cache.writing('ns', 'unused', Promise.resolve(snapshotOf(unused)));
    const answer = pendingAnswer();
    cache.writing('ns', NAME, answer.promise);
    const stored = api.put(connection({ password: 'pw-1' }));
    cache.use(USER, []);
    answer.resolve(snapshotOf(stored));
    await watchShows(stored.metadata.resourceVersion);
    await watchShows(unused.metadata.resourceVersion, 'unused');

    expect(cache.stats()).toMatchObject({ data: 0, dataBytes: 0 });
    expect(api.gets).toEqual([]);
  });
});
