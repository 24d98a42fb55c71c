import { describe, expect, it } from 'vitest';
import { DeferredRequestError } from '../../../../src/cloud/errors.ts';
import { ReconcileError } from '../../../../src/runtime/managed/errors.ts';
import { FakeCache, FakeCloud, FakeServer, fakeReconciler, POLL_MS, SYNC_MS, widget } from './fakes.ts';

const MAX_POLL_MS = 30_000;

/** A reconciler of one widget over the fakes, on a clock the test moves (the arrival grace reads it). */
function setup() {
  const server = new FakeServer();
  const cache = new FakeCache();
  const cloud = new FakeCloud();
  let now = Date.parse('2025-01-01T00:00:00Z');
  const reconciler = fakeReconciler(server, cache, cloud, {
    maxPollIntervalMs: MAX_POLL_MS,
    now: () => new Date(now),
  });
  const sync = () => {
    cache.set(server.get('a'));
    reconciler.onCacheChange('ns/a');
  };
  cache.set(server.put(widget('a')));
  return {
    server,
    cache,
    cloud,
    advance: (ms: number) => (now += ms),
    /** Reconciles `a`, lets the cache catch up, and returns the delay asked for. */
    async look(): Promise<number | undefined> {
      const next = await reconciler.reconcile('ns/a');
      sync();
      return next ? next.requeueAfterMs : undefined;
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

  it('starts the next wait for the cloud at the poll interval once the cloud was in sync', async () => {
    const t = setup();
    await t.follow(5);
    t.cloud.widgets.get(idOf(t))!.ready = true;
    expect(await t.look()).toBe(SYNC_MS);

    t.cache.set(t.server.editSpec('a', { size: 3 }));
    t.advance(60_000);
    // The update is a new wait for the cloud: no trace of the one before it.
    expect(await t.look()).toBe(POLL_MS);
    expect(t.cloud.widgets.get(idOf(t))!.size).toBe(3);
  });

  it('keeps the pace of a wait through a poll that failed or was deferred: neither says the cloud stopped', async () => {
    const t = setup();
    expect(await t.look()).toBe(1_000); // the create
    t.advance(1_000);
    const observe = t.cloud.observe.bind(t.cloud);
    t.cloud.observe = async () => {
      throw new ReconcileError('CloudApiError', 'GET /widgets/:id failed: 500 INTERNAL_ERROR');
    };
    await expect(t.look()).rejects.toThrow('500');
    t.cloud.observe = async () => {
      throw deferred();
    };
    // A deferred call sent nothing: it is looked at again when the quota allows, as the quota said.
    expect(await t.look()).toBe(2_500);
    t.cloud.observe = observe;

    // Neither counted as a look, nor restarted the wait: the next poll is its second.
    expect(await t.look()).toBe(2_000);
    expect(await t.look()).toBe(4_000);
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
