import { describe, expect, it } from 'vitest';
import { DeferredRequestError } from '../../../src/cloud/errors.ts';
import { ReconcileError } from '../../../src/managed/errors.ts';
import { FIRST_LOOK_FLOOR_MS } from '../../../src/managed/pacing.ts';
import { fakeReconciler, failingWith, POLL_MS, SYNC_MS, widget, widgetFakes } from './fakes.ts';

const MAX_POLL_MS = 30_000;

/** A reconciler of one widget over the fakes, on a clock the test moves (the arrival grace reads it). */
function setup() {
  const fakes = widgetFakes();
  const { server, cache, cloud } = fakes;
  let now = Date.parse('2025-01-01T00:00:00Z');
  /** The snapshot age each reconcile accepted for its cloud reads. */
  const freshness: number[] = [];
  const reconciler = fakeReconciler(server, cache, cloud, {
    maxPollIntervalMs: MAX_POLL_MS,
    now: () => new Date(now),
    cloudFor: async (_resource, { freshnessMs }) => {
      freshness.push(freshnessMs);
      return cloud;
    },
  });
  const sync = () => {
    cache.set(server.get('a'));
    reconciler.onCacheChange('ns/a');
  };
  cache.set(server.put(widget('a')));
  return {
    ...fakes,
    freshness,
    advance: (ms: number) => (now += ms),
    /** Reconciles `a`, lets the cache catch up, and returns the delay asked for. */
    async look(): Promise<number | undefined> {
      const next = await reconciler.reconcile('ns/a');
      sync();
      return next ? (next.requeueAfterMs ?? next.resyncAfterMs) : undefined;
    },
    /** Reconciles at each requeue the operator asks for, `times` times; returns the delays asked for. */
    async follow(times: number): Promise<(number | undefined)[]> {
      const delays: (number | undefined)[] = [];
      for (let i = 0; i < times; i++) {
        const delay = await this.look();
        delays.push(delay);
        now += delay ?? 0;
      }
      return delays;
    },
  };
}

const idOf = (t: ReturnType<typeof setup>) => t.server.get('a').status!.id!;
const deferred = () =>
  new DeferredRequestError({
    api: 'management',
    method: 'GET',
    route: '/w/:id',
    path: '/w/w-1',
    attempts: 0,
    retryAfterMs: 2_500,
    reason: 'quota',
  });

describe('ManagedReconciler pacing', () => {
  it('polls a cloud that keeps moving after 1, 3, 7, 15 and 31 poll intervals, then at the cap', async () => {
    const t = setup();

    // The create, then polls of a widget the cloud never finishes.
    const delays = await t.follow(8);

    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('counts a wake between polls as a look of the wait: it read the cloud, so the next poll moves out', async () => {
    const t = setup();
    await t.look(); // the create
    t.advance(500);
    // Woken before its poll was due (a list showed the object change, a referenced object moved).
    expect(await t.look()).toBe(2_000);
    t.advance(100);
    expect(await t.look()).toBe(4_000);
  });

  it('looks first, in the next wait, between when the last wait saw the cloud moving and saw it settled', async () => {
    const t = setup();
    // The create at 0 s, looks at 1, 3, 7 and 15 s find the cloud moving, the look at 31 s finds it settled.
    await t.follow(5);
    t.cloud.widgets.get(idOf(t))!.ready = true;
    expect(await t.look()).toBe(SYNC_MS);

    t.cloud.widgets.get(idOf(t))!.ready = false;
    t.cache.set(t.server.editSpec('a', { size: 3 }));
    t.advance(60_000);
    // The update is a new wait for the cloud: its first look at (15 + 31) / 2 s, then the poll interval on.
    expect(await t.follow(3)).toEqual([23_000, 2_000, 4_000]);
    expect(t.cloud.widgets.get(idOf(t))!.size).toBe(3);
  });

  it('looks sooner while first looks find the cloud settled already, but never sooner than the floor', async () => {
    const t = setup();
    const firstLooks: (number | undefined)[] = [];
    for (let size = 2; size <= 8; size++) {
      // A write (the create, then each update) and a cloud that has settled by the first look.
      firstLooks.push(await t.look());
      t.cloud.widgets.get(idOf(t))!.ready = true;
      t.advance(firstLooks.at(-1)!);
      expect(await t.look()).toBe(SYNC_MS);
      t.cloud.widgets.get(idOf(t))!.ready = false;
      t.cache.set(t.server.editSpec('a', { size }));
    }

    expect(firstLooks).toEqual([1_000, 750, 563, 422, 316, FIRST_LOOK_FLOOR_MS, FIRST_LOOK_FLOOR_MS]);
  });

  it('reads a waiting object only from a list taken since its last look, and never asks a GET for it', async () => {
    const t = setup();
    expect(await t.look()).toBe(POLL_MS); // the create
    t.advance(300);
    // Woken 300 ms after the create (a list showed it changed): that list, or a newer one, not an older.
    expect(await t.look()).toBe(2_000);
    t.advance(10_000);
    // A late look accepts no list older than the poll interval.
    await t.look();
    t.advance(0);
    await t.look();
    t.advance(100);
    // A spec its user changed meanwhile accepts the poll interval's list: the operator's writes since
    // replaced what that list said.
    t.cache.set(t.server.editSpec('a', { size: 3 }));
    await t.look();

    expect(t.freshness).toEqual([POLL_MS, 300, POLL_MS, 1, POLL_MS]);
  });

  it('reads a deleting object afresh at its first look, then only from lists taken since its last look', async () => {
    const t = setup();
    await t.look(); // the create
    t.cloud.widgets.get(idOf(t))!.ready = true;
    expect(await t.look()).toBe(SYNC_MS);
    let pending = 2;
    t.cloud.delete = async () => (pending-- > 0 ? 'pending' : 'gone');
    const deleting = t.server.get('a');
    deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    t.cache.set(t.server.put(deleting));
    t.freshness.length = 0;

    // Ready and in sync, yet not read from a list as old as the sync interval: a deletion acts on what it reads.
    const firstWait = await t.look();
    t.advance(firstWait!);
    await t.look();
    t.advance(700);
    await t.look();

    expect(t.freshness).toEqual([0, firstWait, 700]);
    expect(t.server.get('a').metadata.finalizers).toEqual([]);
  });

  it('keeps the pace of a wait through a poll that failed or was deferred: neither says the cloud stopped', async () => {
    const t = setup();
    expect(await t.look()).toBe(1_000); // the create
    t.advance(1_000);
    const observe = t.cloud.observe.bind(t.cloud);
    t.cloud.observe = failingWith(
      new ReconcileError('CloudApiError', 'GET /widgets/:id failed: 500 INTERNAL_ERROR'),
    );
    await expect(t.look()).rejects.toThrow('500');
    t.cloud.observe = failingWith(deferred());
    // A deferred call sent nothing: it is looked at again when the quota allows, as the quota said.
    expect(await t.look()).toBe(2_500);
    t.cloud.observe = observe;

    // Neither counted as a look, nor restarted the wait: the next poll is its second.
    expect(await t.look()).toBe(2_000);
    expect(await t.look()).toBe(4_000);
  });

  it('comes back for a call the quota deferred accepting what the deferred reconcile read, not reading afresh', async () => {
    const t = setup();
    await t.look(); // the create
    t.cloud.widgets.get(idOf(t))!.ready = true;
    expect(await t.look()).toBe(SYNC_MS);
    const deleting = t.server.get('a');
    deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    t.cache.set(t.server.put(deleting));
    const remove = t.cloud.delete.bind(t.cloud);
    t.cloud.delete = failingWith(deferred());
    t.freshness.length = 0;

    // The first look of a deletion reads afresh; its DELETE is deferred, twice.
    expect(await t.look()).toBe(2_500);
    t.advance(2_500);
    expect(await t.look()).toBe(2_500);
    t.advance(2_500);
    t.cloud.delete = remove;
    await t.look();

    // Each return accepts what the first deferred look read: the budget goes to the DELETE.
    expect(t.freshness).toEqual([0, 2_500, 5_000]);
    expect(t.server.get('a').metadata.finalizers).toEqual([]);
  });

  it('comes back for a change the quota deferred accepting the list its first look read, taken before that look began', async () => {
    const t = setup();
    await t.look(); // the create
    t.cloud.widgets.get(idOf(t))!.ready = true;
    expect(await t.look()).toBe(SYNC_MS);
    const update = t.cloud.update.bind(t.cloud);
    t.cloud.update = failingWith(deferred());
    t.cache.set(t.server.editSpec('a', { size: 3 }));
    t.freshness.length = 0;

    // The edit's look accepts a list up to the poll interval old; its update is deferred.
    expect(await t.look()).toBe(2_500);
    t.advance(2_500);
    t.cloud.update = update;
    await t.look();

    // Back 2.5 s later, that list is 2.5 s older: still accepted, so the update needs no new list first.
    expect(t.freshness).toEqual([POLL_MS, POLL_MS + 2_500]);
    expect(t.cloud.widgets.get(idOf(t))!.size).toBe(3);
  });

  it('waits for another object with the sync interval as safety net, and starts a later cloud wait afresh', async () => {
    const t = setup();
    await t.follow(4);
    const resource = t.server.get('a');
    resource.spec.managementPolicy = 'Observe';
    resource.metadata.annotations = {};
    // An Observe object with nothing recorded to observe waits for its user (an external-id).
    delete resource.status!.id;
    t.cache.set(t.server.put(resource));
    expect(await t.look()).toBe(SYNC_MS);
    expect(t.server.get('a').status?.conditions?.find((c) => c.type === 'Ready')?.reason).toBe(
      'NothingToObserve',
    );

    const full = t.server.get('a');
    full.spec.managementPolicy = 'Full';
    t.cache.set(t.server.put(full));
    t.advance(5_000);
    // Made anew (adopted by its marker): a new wait for the cloud, from the poll interval.
    expect(await t.look()).toBe(POLL_MS);
  });
});
