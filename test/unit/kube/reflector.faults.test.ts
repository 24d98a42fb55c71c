import type { ClientRequest } from 'node:http';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Reflector, type ReflectorOptions } from '../../../src/kube/reflector.ts';
import { ManualClock } from '../../support/manual-clock.ts';
import {
  FakeKubeApi,
  failWith,
  hangAfterHeaders,
  hangBeforeHeaders,
  widget,
  type WatchScript,
} from './fake-kube-api.ts';

const WIDGETS = { group: 'example.dev', version: 'v1', plural: 'widgets' };
const until = { timeout: 5_000, interval: 10 };

/** The longest backoff these tests configure: a timer due sooner is a backoff sleep, not a watch deadline. */
const LONGEST_BACKOFF_MS = 10_000;

/** True while the reflector sleeps on a backoff, not on a watch deadline (5 min and more) or a list timeout. */
function backingOff(clock: ManualClock): boolean {
  const at = clock.nextTimerAt;
  return at !== undefined && at - clock.now() <= LONGEST_BACKOFF_MS;
}

/**
 * Fires each backoff the moment the reflector arms it, until `done`: the requests in between run for real
 * against the fake apiserver, only the waiting is skipped.
 */
async function fireBackoffsUntil(clock: ManualClock, done: () => boolean): Promise<void> {
  for (;;) {
    await vi.waitFor(() => expect(done() || backingOff(clock)).toBe(true), until);
    if (done()) return;
    await clock.advanceAndSettle(clock.nextTimerAt! - clock.now());
  }
}

describe('Reflector against a fake apiserver', () => {
  let api: FakeKubeApi;
  let reflector: Reflector | undefined;
  let changes: string[];

  beforeEach(async () => {
    api = await FakeKubeApi.start();
    changes = [];
  });

  afterEach(async () => {
    await reflector?.stop();
    reflector = undefined;
    await api.close();
  });

  /** A reflector of the widgets, started; its changes go to `changes`. */
  function launchReflector(options: Partial<ReflectorOptions> = {}): Reflector {
    reflector = new Reflector({
      kubeConfig: api.kubeConfig(),
      resource: WIDGETS,
      onChange: (key) => changes.push(key),
      ...options,
    });
    reflector.start();
    return reflector;
  }

  async function startReflector(options: Partial<ReflectorOptions> = {}): Promise<Reflector> {
    const started = launchReflector({ backoff: { initialMs: 10, maxMs: 50 }, ...options });
    await started.waitForSync();
    await vi.waitFor(() => expect(api.openWatchCount).toBe(1), until);
    return started;
  }

  const cachedKeys = () => reflector!.cache.keys().sort();

  it('lists page by page with limit and continue before it reports synced', async () => {
    for (const name of ['a', 'b', 'c', 'd', 'e']) api.put(widget('ns', name));
    await startReflector({ pageSize: 2 });

    expect(api.lists.map((request) => request.query.get('limit'))).toEqual(['2', '2', '2']);
    const tokens = api.lists.map((request) => request.query.get('continue'));
    expect(tokens[0]).toBeNull();
    expect(tokens[1]).toBeTruthy();
    expect(tokens[2]).toBeTruthy();
    expect(tokens[2]).not.toBe(tokens[1]);
    expect(cachedKeys()).toEqual(['ns/a', 'ns/b', 'ns/c', 'ns/d', 'ns/e']);
    expect(changes.sort()).toEqual(['ns/a', 'ns/b', 'ns/c', 'ns/d', 'ns/e']);
    expect(reflector!.hasSynced()).toBe(true);
    expect(api.lists[0]!.authorization).toBe('Bearer t');
  });

  it('starts over without pages when the continue token expires mid-list', async () => {
    for (const name of ['a', 'b', 'c']) api.put(widget('ns', name));
    api.expireContinueTokens = true;
    await startReflector({ pageSize: 2 });

    expect(api.lists.map((request) => request.query.get('limit'))).toEqual(['2', '2', null]);
    expect(cachedKeys()).toEqual(['ns/a', 'ns/b', 'ns/c']);
  });

  it('strips managedFields and kubectl’s last-applied copy from listed and watched objects and fills in apiVersion and kind on list items', async () => {
    const managedFields = [{ manager: 'kubectl', operation: 'Apply', fieldsV1: {} }];
    const annotations = {
      'kubectl.kubernetes.io/last-applied-configuration': '{"spec":{"size":1}}',
      'sluice.dev/paused': 'true',
    };
    const metadata = (name: string) => ({ namespace: 'ns', name, managedFields, annotations });
    api.put(widget('ns', 'listed', { metadata: metadata('listed') }));
    await startReflector();
    api.put(widget('ns', 'watched', { metadata: metadata('watched') }));
    await vi.waitFor(() => expect(reflector!.cache.get('ns/watched')).toBeDefined(), until);

    for (const key of ['ns/listed', 'ns/watched']) {
      const cached = reflector!.cache.get(key)!;
      expect(cached.metadata).not.toHaveProperty('managedFields');
      expect(cached.metadata.annotations).toEqual({ 'sluice.dev/paused': 'true' });
      expect(cached).toMatchObject({ apiVersion: 'example.dev/v1', kind: 'Widget' });
    }
  });

  it('watches from the list’s resourceVersion with bookmarks and a server-side timeout', async () => {
    api.put(widget('ns', 'a'));
    const listedAt = api.currentResourceVersion;
    await startReflector({ watchTimeoutSeconds: { min: 300, max: 600 } });

    const query = api.watches[0]!.query;
    expect(query.get('resourceVersion')).toBe(listedAt);
    expect(query.get('allowWatchBookmarks')).toBe('true');
    expect(Number(query.get('timeoutSeconds'))).toBeGreaterThanOrEqual(300);
    expect(Number(query.get('timeoutSeconds'))).toBeLessThanOrEqual(600);
  });

  it('applies added, modified and deleted objects to the cache and reports each key', async () => {
    api.put(widget('ns', 'a', { spec: { size: 1 } }));
    await startReflector();
    changes.length = 0;

    api.put(widget('ns', 'b'));
    api.put(widget('ns', 'a', { spec: { size: 2 } }));
    api.delete('ns', 'b');
    await vi.waitFor(() => expect(changes).toEqual(['ns/b', 'ns/a', 'ns/b']), until);
    expect(cachedKeys()).toEqual(['ns/a']);
    expect(reflector!.cache.get('ns/a')).toMatchObject({ spec: { size: 2 } });
  });

  it('resumes from the bookmark’s resourceVersion when the server ends the watch', async () => {
    await startReflector();
    const bookmarked = api.bookmark();
    await vi.waitFor(() => expect(reflector!.resourceVersion).toBe(bookmarked), until);

    api.endWatches();
    await vi.waitFor(() => expect(api.watches).toHaveLength(2), until);
    expect(api.watches[1]!.query.get('resourceVersion')).toBe(bookmarked);
    expect(api.lists).toHaveLength(1);
    expect(changes).toEqual([]);
  });

  it('re-watches after a socket reset mid-watch and catches events from the gap and after it', async () => {
    await startReflector();
    api.put(widget('ns', 'before'));
    await vi.waitFor(() => expect(changes).toEqual(['ns/before']), until);
    const lastSeen = api.currentResourceVersion;

    api.resetWatches();
    api.put(widget('ns', 'during-gap'));
    await vi.waitFor(() => expect(api.openWatchCount).toBe(1), until);
    api.put(widget('ns', 'after'));

    await vi.waitFor(() => expect(changes).toEqual(['ns/before', 'ns/during-gap', 'ns/after']), until);
    expect(api.watches[1]!.query.get('resourceVersion')).toBe(lastSeen);
    expect(api.lists).toHaveLength(1);
    expect(cachedKeys()).toEqual(['ns/after', 'ns/before', 'ns/during-gap']);
  });

  it('aborts a watch that sends headers and then nothing, and re-watches once its deadline passes', async () => {
    // node:http's own report that a watch's response headers reached the client.
    let watchHeadersReceived = 0;
    const onResponse = (message: unknown) => {
      if ((message as { request: ClientRequest }).request.path.includes('watch=true')) watchHeadersReceived++;
    };
    subscribe('http.client.response.finish', onResponse);
    try {
      api.scriptNextWatch(hangAfterHeaders);
      const clock = new ManualClock();
      launchReflector({ watchTimeoutSeconds: { min: 1, max: 1 }, hungWatchGraceMs: 300, clock });
      await vi.waitFor(() => expect(watchHeadersReceived).toBe(1), until);

      // The deadline: timeoutSeconds + grace after the watch opened, and not a moment sooner.
      expect(clock.nextTimerAt).toBe(1_300);
      await clock.advanceAndSettle(1_299);
      expect(api.watches).toHaveLength(1);
      await clock.advanceAndSettle(1);
      await vi.waitFor(() => expect(api.openWatchCount).toBe(1), until);
      expect(api.watches).toHaveLength(2);
      api.put(widget('ns', 'after'));
      await vi.waitFor(() => expect(changes).toEqual(['ns/after']), until);
    } finally {
      unsubscribe('http.client.response.finish', onResponse);
    }
  });

  it('aborts a watch whose response never starts, and re-watches', async () => {
    api.scriptNextWatch(hangBeforeHeaders);
    const clock = new ManualClock();
    launchReflector({ watchTimeoutSeconds: { min: 1, max: 1 }, hungWatchGraceMs: 300, clock });
    await vi.waitFor(() => expect(api.watches).toHaveLength(1), until);

    await clock.advanceAndSettle(1_300);
    await vi.waitFor(() => expect(api.openWatchCount).toBe(1), until);
    expect(api.watches).toHaveLength(2);
    api.put(widget('ns', 'after'));
    await vi.waitFor(() => expect(changes).toEqual(['ns/after']), until);
  });

  it('keeps a quiet watch open while bookmarks keep arriving', async () => {
    // Deadline 1 s; bookmarks every 250 ms for 1.5 s: only resetting the deadline on each keeps the watch.
    const clock = new ManualClock();
    await startReflector({ watchTimeoutSeconds: { min: 0, max: 0 }, hungWatchGraceMs: 1_000, clock });
    for (let i = 0; i < 6; i++) {
      const bookmarked = api.bookmark();
      await vi.waitFor(() => expect(reflector!.resourceVersion).toBe(bookmarked), until);
      await clock.advanceAndSettle(250);
    }
    expect(api.watches).toHaveLength(1);
  });

  describe.each(['event', 'http'] as const)('on 410 Gone as %s', (goneAs) => {
    it('re-lists; an object deleted during the gap leaves the cache and is reported', async () => {
      api.goneAs = goneAs;
      api.put(widget('ns', 'kept'));
      api.put(widget('ns', 'deleted-in-gap'));
      await startReflector();
      changes.length = 0;

      // While the reflector is disconnected, one object goes and one comes, and the history is compacted.
      api.endWatches();
      api.delete('ns', 'deleted-in-gap');
      api.put(widget('ns', 'created-in-gap'));
      api.compact();

      await vi.waitFor(() => expect(api.lists).toHaveLength(2), until);
      await vi.waitFor(() => expect(api.openWatchCount).toBe(1), until);
      expect(cachedKeys()).toEqual(['ns/created-in-gap', 'ns/kept']);
      expect(changes.sort()).toEqual(['ns/created-in-gap', 'ns/deleted-in-gap', 'ns/kept']);
      expect(api.watches.at(-1)!.query.get('resourceVersion')).toBe(api.currentResourceVersion);
    });
  });

  it('re-watches from the same resourceVersion after an HTTP 500, without re-listing', async () => {
    await startReflector();
    const resourceVersion = api.watches[0]!.query.get('resourceVersion');
    api.scriptNextWatch(failWith(500));
    api.endWatches();

    await vi.waitFor(() => expect(api.watches).toHaveLength(3), until);
    expect(api.watches.map((request) => request.query.get('resourceVersion'))).toEqual([
      resourceVersion,
      resourceVersion,
      resourceVersion,
    ]);
    expect(api.lists).toHaveLength(1);
  });

  /** Scripts the next `count` watches to open and fail at once, noting when (on `clock`) each arrived. */
  function failWatchesRightAfterOpening(count: number, clock: ManualClock): number[] {
    const arrivals: number[] = [];
    const openThenFail: WatchScript = (response) => {
      arrivals.push(clock.now());
      response.writeHead(200, { 'content-type': 'application/json' });
      const status = { kind: 'Status', code: 500, reason: 'InternalError', message: 'boom' };
      response.end(JSON.stringify({ type: 'ERROR', object: status }) + '\n');
    };
    for (let i = 0; i < count; i++) api.scriptNextWatch(openThenFail);
    return arrivals;
  }

  it('backs off further each time a watch opens and fails at once, instead of retrying at the first delay', async () => {
    const clock = new ManualClock();
    const arrivals = failWatchesRightAfterOpening(50, clock);
    launchReflector({ backoff: { initialMs: 40, maxMs: LONGEST_BACKOFF_MS }, clock });
    // 1.2 s of retries: each backoff fires the moment it is armed, as long as it ends within the 1.2 s.
    while (clock.now() < 1_200) {
      await vi.waitFor(() => expect(backingOff(clock)).toBe(true), until);
      await clock.advanceAndSettle(Math.min(clock.nextTimerAt!, 1_200) - clock.now());
    }

    // Doubling from 40 ms (each delay at least half its step): 20 + 40 + 80 + 160 + 320 + 640 > 1.2 s.
    expect(arrivals.length).toBeLessThanOrEqual(7);
    const gaps = arrivals.slice(1).map((at, i) => at - arrivals[i]!);
    expect(gaps.at(-1)).toBeGreaterThanOrEqual(150);
  });

  it('resets the backoff only after a watch stayed open for the healthy period', async () => {
    const clock = new ManualClock();
    const arrivals = failWatchesRightAfterOpening(4, clock);
    launchReflector({ backoff: { initialMs: 40, maxMs: LONGEST_BACKOFF_MS }, healthyWatchMs: 300, clock });
    await fireBackoffsUntil(clock, () => api.openWatchCount === 1);
    // Four failures pushed the step to 640 ms; the fifth watch is served normally and stays open.
    expect(arrivals).toHaveLength(4);
    await clock.advanceAndSettle(400);
    const failedAgain = failWatchesRightAfterOpening(1, clock);
    api.resetWatches();
    await fireBackoffsUntil(clock, () => failedAgain.length === 1);
    const brokeAt = clock.now();
    await fireBackoffsUntil(clock, () => api.openWatchCount === 1);
    // Back at the first step (20–40 ms, then 40–80 ms), not at 640 ms or more.
    expect(clock.now() - brokeAt).toBeLessThan(400);
  });

  it('re-lists when the server says the watch’s resourceVersion is too large', async () => {
    await startReflector();
    api.scriptNextWatch((response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const status = {
        kind: 'Status',
        status: 'Failure',
        code: 504,
        reason: 'Timeout',
        message: 'Too large resource version: 999, current: 101',
        details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] },
      };
      response.end(JSON.stringify({ type: 'ERROR', object: status }) + '\n');
    });
    api.endWatches();

    await vi.waitFor(() => expect(api.lists).toHaveLength(2), until);
    await vi.waitFor(() => expect(api.openWatchCount).toBe(1), until);
  });

  it('re-lists when the watch request itself is refused for a too large resourceVersion', async () => {
    await startReflector();
    api.scriptNextWatch((response) => {
      response.writeHead(504, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          kind: 'Status',
          status: 'Failure',
          code: 504,
          reason: 'Timeout',
          message: 'Too large resource version: 999, current: 101',
          details: { causes: [{ reason: 'ResourceVersionTooLarge' }] },
        }),
      );
    });
    api.endWatches();

    await vi.waitFor(() => expect(api.lists).toHaveLength(2), until);
  });

  it('retries a failed list after backoff', async () => {
    api.put(widget('ns', 'a'));
    api.failNextList(500);
    api.failNextList(503);
    await startReflector();

    expect(api.lists).toHaveLength(3);
    expect(cachedKeys()).toEqual(['ns/a']);
  });

  it('scopes list and watch to one namespace and a label selector', async () => {
    await startReflector({ namespace: 'team-a', labelSelector: 'app=db' });
    for (const request of [api.lists[0]!, api.watches[0]!]) {
      expect(request.path).toBe('/apis/example.dev/v1/namespaces/team-a/widgets');
      expect(request.query.get('labelSelector')).toBe('app=db');
    }
  });

  it('uses /api/v1 paths for the core group', async () => {
    await startReflector({ resource: { group: '', version: 'v1', plural: 'secrets' } });
    expect(api.lists[0]!.path).toBe('/api/v1/secrets');
  });

  it('closes its watch on stop and makes no further requests', async () => {
    const clock = new ManualClock();
    await startReflector({ clock });
    await reflector!.stop();

    await vi.waitFor(() => expect(api.openWatchCount).toBe(0), until);
    api.put(widget('ns', 'after-stop'));
    await clock.advanceAndSettle(100); // several backoff periods
    expect(clock.pendingTimers).toBe(0);
    expect(api.watches).toHaveLength(1);
    expect(changes).toEqual([]);
  });

  it('rejects waitForSync when stopped before the first list completes', async () => {
    api.failNextList(500);
    const started = launchReflector({ backoff: { initialMs: 60_000, maxMs: 60_000 } });
    const synced = started.waitForSync();
    await vi.waitFor(() => expect(api.lists).toHaveLength(1), until);
    await started.stop();
    await expect(synced).rejects.toThrow(/stopped/);
  });
});
