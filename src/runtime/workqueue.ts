import { armableDelay, systemClock, type Clock, type TimerHandle } from '../clock.ts';
import { noopWorkQueueMetrics, type WorkQueueMetrics } from './metrics.ts';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.ts';

type Lane = 'due' | 'fresh';
const LANES: readonly Lane[] = ['due', 'fresh'];

export interface WorkQueueOptions {
  clock?: Clock;
  /** Defaults to client-go's controller limiter: max(per-key 5 ms → 5 min, 10 qps / burst 100). */
  rateLimiter?: RateLimiter;
  metrics?: WorkQueueMetrics;
}

/**
 * A work queue of `namespace/name` keys with client-go's guarantees:
 * - a key waits at most once (adding a key that is already waiting does nothing);
 * - a key is held by at most one worker; if it is added meanwhile it is marked dirty and queued again on
 *   `done(key)`, so the latest state is always reconciled once more but never concurrently;
 * - `addAfter` delays an add (the earliest pending time for a key wins) and `addRateLimited` delays it by
 *   the rate limiter's backoff, which `forget` resets.
 * Unlike client-go's FIFO, a delayed add that falls due (a poll after a create, a retry) or a `resume` (the
 * cloud moved for a key, or something it waits for did) goes before keys added by events: work already
 * started finishes before a backlog of new keys is begun, so a burst of thousands shows steady progress
 * instead of one wall of Ready at the end.
 */
export class WorkQueue {
  private readonly clock: Clock;
  private readonly rateLimiter: RateLimiter;
  private readonly metrics: WorkQueueMetrics;

  /** Keys ready for a worker: delayed adds that fell due, then new work, each in order. */
  private readonly lists: Record<Lane, string[]> = { due: [], fresh: [] };
  /**
   * The lane of each dirty key's live entry; an entry in the other list is stale (the key was promoted,
   * or already taken) and skipped.
   */
  private readonly lanes = new Map<string, Lane>();
  /** Number of keys ready for a worker (live entries). */
  private waiting = 0;
  /** Keys that need processing: waiting in `ready`, or added again while being processed. */
  private readonly dirty = new Set<string>();
  /** Keys held by a worker, with the time it took them. */
  private readonly processing = new Map<string, number>();
  /** When each dirty key was added, for the queue-latency metric. */
  private readonly addedAt = new Map<string, number>();
  private readonly getters: Array<(key: string | undefined) => void> = [];

  private readonly delayed = new Map<string, number>();
  private delayTimer: { handle: TimerHandle; at: number } | undefined;

  /** When a key was last handed out or finished, or the queue last turned busy after being empty. */
  private movedAt: number;

  private shuttingDown = false;
  private readonly drainWaiters: Array<() => void> = [];
  private readonly unregisterInFlight: () => void;

  constructor(options: WorkQueueOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter(this.clock);
    this.metrics = options.metrics ?? noopWorkQueueMetrics;
    this.unregisterInFlight = this.metrics.observeInFlight(() => this.inFlightWork());
    this.movedAt = this.clock.now();
  }

  /**
   * Since when the queue has held work (keys waiting or in a worker) without moving (no key handed out or
   * finished); undefined when it is empty. A queue that moves, however slowly, keeps pushing this forward:
   * liveness judges progress, not speed.
   */
  stalledSince(): number | undefined {
    return this.waiting === 0 && this.processing.size === 0 ? undefined : this.movedAt;
  }

  /** Number of keys ready for a worker (not counting delayed or in-flight ones). */
  get length(): number {
    return this.waiting;
  }

  add(key: string): void {
    this.addIn(key, 'fresh');
  }

  /** Adds `key` to continue work already started: ahead of new keys, like a delayed add that fell due. */
  resume(key: string): void {
    this.addIn(key, 'due');
  }

  /** Adds `key` after `delayMs`; if the key is already scheduled, the earlier time is kept. */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    // NaN would be due at once on every timer, Infinity never: both are bugs in the caller.
    if (!Number.isFinite(delayMs)) throw new RangeError(`addAfter(${key}): delay ${delayMs} is not finite`);
    if (delayMs <= 0) return this.add(key);
    const at = this.clock.now() + delayMs;
    const scheduled = this.delayed.get(key);
    if (scheduled !== undefined && scheduled <= at) return;
    this.delayed.set(key, at);
    // The timer already wakes no later than this key is due: no need to look at every delayed key again.
    if (this.delayTimer && this.delayTimer.at <= at) return;
    this.armDelayTimer();
  }

  /** Re-queues `key` after its backoff, but not sooner than `minDelayMs`: the reconcile failed. */
  addRateLimited(key: string, minDelayMs = 0): void {
    if (this.shuttingDown) return;
    this.metrics.retried();
    this.addAfter(key, Math.max(this.rateLimiter.when(key), minDelayMs));
  }

  /** Clears `key`'s backoff: the reconcile succeeded. */
  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.rateLimiter.numRequeues(key);
  }

  /**
   * The next key to process, once one is ready; `undefined` once the queue shuts down. The caller must
   * call `done(key)` when finished with it.
   */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    const key = this.nextReady();
    if (key !== undefined) return Promise.resolve(this.take(key));
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Releases `key`; if it was added while being processed, it is queued again now. */
  done(key: string): void {
    const startedAt = this.processing.get(key);
    if (startedAt === undefined) return;
    this.movedAt = this.clock.now();
    this.processing.delete(key);
    this.metrics.worked((this.clock.now() - startedAt) / 1000);
    if (this.shuttingDown) {
      if (this.processing.size === 0) this.drainWaiters.splice(0).forEach((resolve) => resolve());
    } else if (this.dirty.has(key)) {
      this.enqueue(key);
    }
  }

  /**
   * Stops handing out keys (pending and future `get()` calls return `undefined`), drops delayed adds, and
   * resolves once every key already handed out is `done`.
   */
  shutdown(): Promise<void> {
    if (!this.shuttingDown) {
      this.shuttingDown = true;
      if (this.delayTimer) this.clock.clearTimeout(this.delayTimer.handle);
      this.delayTimer = undefined;
      this.delayed.clear();
      this.getters.splice(0).forEach((resolve) => resolve(undefined));
      this.unregisterInFlight();
    }
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private addIn(key: string, lane: Lane): void {
    if (this.shuttingDown) return;
    if (this.dirty.has(key)) {
      // Already waiting behind new work: a due requeue moves it ahead (its old entry turns stale).
      if (lane === 'due' && this.lanes.get(key) === 'fresh') {
        this.lanes.set(key, 'due');
        if (!this.processing.has(key)) this.lists.due.push(key);
      }
      return;
    }
    this.dirty.add(key);
    this.lanes.set(key, lane);
    this.addedAt.set(key, this.clock.now());
    this.metrics.added();
    if (this.processing.has(key)) return; // queued again by done()
    this.enqueue(key);
  }

  private enqueue(key: string): void {
    if (this.waiting === 0 && this.processing.size === 0) this.movedAt = this.clock.now();
    const getter = this.getters.shift();
    if (getter) {
      getter(this.take(key));
    } else {
      this.lists[this.lanes.get(key) ?? 'fresh'].push(key);
      this.waiting++;
      this.metrics.depth(this.waiting);
    }
  }

  /** The first live entry, due lane first; `undefined` when none waits. */
  private nextReady(): string | undefined {
    for (const lane of LANES) {
      const list = this.lists[lane];
      for (let key = list.shift(); key !== undefined; key = list.shift()) {
        if (this.lanes.get(key) === lane && this.dirty.has(key) && !this.processing.has(key)) {
          this.waiting--;
          return key;
        }
      }
    }
    return undefined;
  }

  private take(key: string): string {
    const now = this.clock.now();
    this.metrics.depth(this.waiting);
    this.lanes.delete(key);
    this.metrics.queued((now - (this.addedAt.get(key) ?? now)) / 1000);
    this.addedAt.delete(key);
    this.dirty.delete(key);
    this.processing.set(key, now);
    this.movedAt = now;
    return key;
  }

  /** One timer for the earliest delayed key; a linear scan is plenty for an operator's few thousand keys. */
  private armDelayTimer(): void {
    let earliest = Infinity;
    for (const at of this.delayed.values()) earliest = Math.min(earliest, at);
    if (this.delayTimer && this.delayTimer.at <= earliest) return;
    if (this.delayTimer) this.clock.clearTimeout(this.delayTimer.handle);
    this.delayTimer = undefined;
    if (earliest === Infinity) return;
    // A key due beyond Node's timer limit takes several timers: each one releases nothing and arms the next.
    const handle = this.clock.setTimeout(
      () => this.releaseDueKeys(),
      armableDelay(earliest - this.clock.now()),
    );
    this.delayTimer = { handle, at: earliest };
  }

  private releaseDueKeys(): void {
    this.delayTimer = undefined;
    const now = this.clock.now();
    for (const [key, at] of this.delayed) {
      if (at > now) continue;
      this.delayed.delete(key);
      this.addIn(key, 'due');
    }
    this.armDelayTimer();
  }

  private inFlightWork() {
    const now = this.clock.now();
    let unfinishedSeconds = 0;
    let longestRunningSeconds = 0;
    for (const startedAt of this.processing.values()) {
      const seconds = (now - startedAt) / 1000;
      unfinishedSeconds += seconds;
      longestRunningSeconds = Math.max(longestRunningSeconds, seconds);
    }
    return { unfinishedSeconds, longestRunningSeconds };
  }
}
