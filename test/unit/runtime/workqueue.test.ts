import { describe, expect, it } from 'vitest';
import { MAX_TIMER_DELAY_MS, type Clock } from '../../../src/clock.ts';
import {
  BucketRateLimiter,
  ExponentialFailureRateLimiter,
  defaultControllerRateLimiter,
} from '../../../src/runtime/rate-limiter.ts';
import type { Requeue } from '../../../src/base/requeue.ts';
import { runWorkers } from '../../../src/runtime/workers.ts';
import { WorkQueue } from '../../../src/runtime/workqueue.ts';
import { ManualClock, settle } from '../../support/manual-clock.ts';

function newQueue(clock = new ManualClock()) {
  return {
    clock,
    queue: new WorkQueue({ clock, rateLimiter: new ExponentialFailureRateLimiter(5, 300_000) }),
  };
}

/** Takes every ready key (marking each as being processed). */
async function drain(queue: WorkQueue): Promise<string[]> {
  const keys: string[] = [];
  while (queue.length > 0) keys.push((await queue.get())!);
  return keys;
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('WorkQueue', () => {
  it('hands keys out in the order they were added', async () => {
    const { queue } = newQueue();
    queue.add('ns/a');
    queue.add('ns/b');
    queue.add('ns/c');
    expect(await drain(queue)).toEqual(['ns/a', 'ns/b', 'ns/c']);
  });

  it('ignores adding a key that is already waiting', async () => {
    const { queue } = newQueue();
    queue.add('ns/a');
    queue.add('ns/b');
    queue.add('ns/a');
    expect(queue.length).toBe(2);
    expect(await drain(queue)).toEqual(['ns/a', 'ns/b']);
  });

  it('makes get() wait until a key is added', async () => {
    const { queue } = newQueue();
    const next = queue.get();
    queue.add('ns/a');
    expect(await next).toBe('ns/a');
  });

  it('does not hand out a key that is being processed; a key added meanwhile comes back once after done', async () => {
    const { queue } = newQueue();
    queue.add('ns/a');
    expect(await queue.get()).toBe('ns/a');

    queue.add('ns/a');
    queue.add('ns/a');
    expect(queue.length).toBe(0);

    queue.done('ns/a');
    expect(await drain(queue)).toEqual(['ns/a']);
    queue.done('ns/a');
    expect(queue.length).toBe(0);
  });

  it('delays addAfter until the time has passed', () => {
    const { clock, queue } = newQueue();
    queue.addAfter('ns/a', 100);
    clock.advance(99);
    expect(queue.length).toBe(0);
    clock.advance(1);
    expect(queue.length).toBe(1);
  });

  it('hands out a delayed add that fell due before keys that were never started', async () => {
    const { clock, queue } = newQueue();
    queue.addAfter('ns/started', 100);
    for (const key of ['ns/new-1', 'ns/new-2']) queue.add(key);
    clock.advance(100);
    queue.add('ns/new-3');

    expect(await drain(queue)).toEqual(['ns/started', 'ns/new-1', 'ns/new-2', 'ns/new-3']);
  });

  it('moves a key waiting behind new work ahead when its delayed add falls due, and hands it out once', async () => {
    const { clock, queue } = newQueue();
    queue.add('ns/new-1');
    queue.add('ns/started'); // an event for it arrived while its poll was pending
    queue.addAfter('ns/started', 100);
    clock.advance(100);

    expect(queue.length).toBe(2);
    expect(await drain(queue)).toEqual(['ns/started', 'ns/new-1']);
  });

  it('hands out a resumed key (work already started) before keys that were never started', async () => {
    const { queue } = newQueue();
    for (const key of ['ns/new-1', 'ns/new-2']) queue.add(key);
    queue.resume('ns/started');
    queue.add('ns/new-1'); // already waiting: stays where it is
    queue.resume('ns/new-2'); // waiting behind new work: moves ahead, handed out once

    expect(await drain(queue)).toEqual(['ns/started', 'ns/new-2', 'ns/new-1']);
  });

  it('queues a key that fell due while being processed in the due lane again on done', async () => {
    const { clock, queue } = newQueue();
    queue.add('ns/started');
    const key = (await queue.get())!;
    queue.add('ns/new-1');
    queue.add(key);
    queue.addAfter(key, 10);
    clock.advance(10);
    queue.done(key);

    expect(await drain(queue)).toEqual(['ns/started', 'ns/new-1']);
  });

  it('keeps the earliest time when a key is delayed twice, whichever comes first', async () => {
    const { clock, queue } = newQueue();
    queue.addAfter('ns/later-first', 200);
    queue.addAfter('ns/later-first', 50);
    queue.addAfter('ns/sooner-first', 50);
    queue.addAfter('ns/sooner-first', 200);

    clock.advance(50);
    const keys = await drain(queue);
    expect(keys.sort()).toEqual(['ns/later-first', 'ns/sooner-first']);
    keys.forEach((key) => queue.done(key));

    clock.advance(500);
    expect(queue.length).toBe(0);
  });

  it('never arms a timer past Node’s limit: a key due in 30 days takes a few timers, not a 1 ms loop', async () => {
    // Node arms a longer timer (or NaN) for 1 ms instead: this clock does the same and records each delay.
    const clock = new ManualClock();
    const delays: number[] = [];
    const nodeLike: Clock = {
      now: () => clock.now(),
      setTimeout: (callback, delayMs) => {
        delays.push(delayMs);
        if (delays.length > 100) throw new Error(`a timer loop: ${delays.slice(-3).join(', ')} ms`);
        return clock.setTimeout(callback, delayMs >= 1 && delayMs <= MAX_TIMER_DELAY_MS ? delayMs : 1);
      },
      clearTimeout: (handle) => clock.clearTimeout(handle),
    };
    const queue = new WorkQueue({ clock: nodeLike });
    const thirtyDays = 30 * 24 * 3_600_000;
    queue.addAfter('ns/far', thirtyDays);
    queue.addAfter('ns/near', 1_000);
    clock.advance(1_000);
    expect(await drain(queue)).toEqual(['ns/near']);
    clock.advance(thirtyDays - 1_001);
    expect(queue.length).toBe(0);
    clock.advance(1);
    expect(await drain(queue)).toEqual(['ns/far']);
    expect(delays.every((ms) => ms <= MAX_TIMER_DELAY_MS)).toBe(true);
    expect(delays.length).toBeLessThanOrEqual(4);
  });

  it('is stalled since it last moved while it holds work, and never while it is empty', async () => {
    const { clock, queue } = newQueue();
    expect(queue.stalledSince()).toBeUndefined();
    clock.advance(1_000);
    queue.add('ns/a');
    queue.add('ns/b');
    // Busy from the moment work arrived, not from when the queue last moved before it was empty.
    expect(queue.stalledSince()).toBe(1_000);
    clock.advance(500);
    const key = (await queue.get())!;
    expect(queue.stalledSince()).toBe(1_500);
    clock.advance(60_000);
    // A worker holding a key for a minute with another waiting: nothing moved since the hand-out.
    expect(queue.stalledSince()).toBe(1_500);
    queue.done(key);
    expect(queue.stalledSince()).toBe(61_500);
    queue.done((await queue.get())!);
    expect(queue.stalledSince()).toBeUndefined();
  });

  it('does not count a delayed key that is not due yet as work it holds', () => {
    const { clock, queue } = newQueue();
    queue.addAfter('ns/later', 10_000);
    clock.advance(5_000);
    expect(queue.stalledSince()).toBeUndefined();
    clock.advance(5_000);
    expect(queue.stalledSince()).toBe(10_000);
  });

  it('refuses a delay that is not a finite number', () => {
    const { queue } = newQueue();
    expect(() => queue.addAfter('ns/a', Number.NaN)).toThrow(RangeError);
    expect(() => queue.addAfter('ns/a', Infinity)).toThrow(RangeError);
  });

  it('adds a key delayed by zero immediately', () => {
    const { queue } = newQueue();
    queue.addAfter('ns/a', 0);
    expect(queue.length).toBe(1);
  });

  it('retries a failed key after 5 ms, then 10 ms, 20 ms, doubling', async () => {
    const { clock, queue } = newQueue();
    for (const expectedDelay of [5, 10, 20, 40]) {
      queue.addRateLimited('ns/a');
      clock.advance(expectedDelay - 1);
      expect(queue.length).toBe(0);
      clock.advance(1);
      expect(await drain(queue)).toEqual(['ns/a']);
      queue.done('ns/a');
    }
    expect(queue.numRequeues('ns/a')).toBe(4);
  });

  it('waits at least the given floor when a retry asks for one, e.g. a server’s Retry-After', () => {
    const { clock, queue } = newQueue();
    queue.addRateLimited('ns/a', 2_000);
    clock.advance(1_999);
    expect(queue.length).toBe(0);
    clock.advance(1);
    expect(queue.length).toBe(1);
    expect(queue.numRequeues('ns/a')).toBe(1);
  });

  it('starts the backoff from 5 ms again after forget', async () => {
    const { clock, queue } = newQueue();
    queue.addRateLimited('ns/a');
    queue.addRateLimited('ns/a');
    queue.addRateLimited('ns/a');
    clock.advance(20);
    await drain(queue);
    queue.done('ns/a');

    queue.forget('ns/a');
    expect(queue.numRequeues('ns/a')).toBe(0);
    queue.addRateLimited('ns/a');
    clock.advance(5);
    expect(queue.length).toBe(1);
  });

  it('keeps each key’s backoff separate', async () => {
    const { clock, queue } = newQueue();
    queue.addRateLimited('ns/a');
    clock.advance(5);
    await drain(queue);
    queue.done('ns/a');

    queue.addRateLimited('ns/a'); // second failure: 10 ms
    queue.addRateLimited('ns/b'); // first failure: 5 ms
    clock.advance(5);
    expect(await drain(queue)).toEqual(['ns/b']);
  });

  it('stops handing out keys on shutdown and resolves once in-flight keys are done', async () => {
    const { clock, queue } = newQueue();
    queue.add('ns/a');
    queue.add('ns/b');
    queue.addAfter('ns/c', 1000);
    expect(await queue.get()).toBe('ns/a');

    let drained = false;
    const shutdown = queue.shutdown().then(() => (drained = true));
    expect(await queue.get()).toBeUndefined(); // although ns/b is waiting
    expect(clock.pendingTimers).toBe(0); // ns/c's delay was dropped
    queue.add('ns/d');
    queue.addRateLimited('ns/d');
    expect(queue.length).toBe(1);

    await settle();
    expect(drained).toBe(false);
    queue.done('ns/a');
    await shutdown;
    expect(drained).toBe(true);
  });

  it('releases a worker waiting in get() with undefined on shutdown', async () => {
    const { queue } = newQueue();
    const waiting = queue.get();
    await queue.shutdown();
    expect(await waiting).toBeUndefined();
  });

  it('does not queue a key again after shutdown even if it changed while in flight', async () => {
    const { queue } = newQueue();
    queue.add('ns/a');
    await queue.get();
    queue.add('ns/a');
    const shutdown = queue.shutdown();
    queue.done('ns/a');
    await shutdown;
    expect(queue.length).toBe(0);
  });
});

describe('rate limiters', () => {
  it('caps the per-key backoff at 5 minutes', () => {
    const limiter = new ExponentialFailureRateLimiter(5, 300_000);
    const delays = Array.from({ length: 20 }, () => limiter.when('ns/a'));
    expect(delays.slice(0, 4)).toEqual([5, 10, 20, 40]);
    expect(delays[16]).toBe(300_000); // 5 ms · 2^16 = 327 s
    expect(Math.max(...delays)).toBe(300_000);
    expect(limiter.when('ns/a')).toBe(300_000);
  });

  it('lets a burst of 100 through, then spaces retries at 10 per second', () => {
    const clock = new ManualClock();
    const bucket = new BucketRateLimiter(10, 100, clock);
    const burst = Array.from({ length: 100 }, () => bucket.when());
    expect(burst.every((delay) => delay === 0)).toBe(true);
    expect(bucket.when()).toBeCloseTo(100);
    expect(bucket.when()).toBeCloseTo(200);

    clock.advance(1000); // refills 10 tokens, 2 of which pay off the overdraft
    expect(Array.from({ length: 8 }, () => bucket.when()).every((delay) => delay === 0)).toBe(true);
    expect(bucket.when()).toBeCloseTo(100);
  });

  it('uses the longer of per-key backoff and the shared bucket by default', () => {
    const clock = new ManualClock();
    const limiter = defaultControllerRateLimiter(clock);
    for (let i = 0; i < 100; i++) expect(limiter.when(`ns/key-${i}`)).toBe(5);
    expect(limiter.when('ns/key-100')).toBeCloseTo(100);
  });
});

describe('runWorkers', () => {
  it('reconciles at most `concurrency` keys at once and uses all the workers', async () => {
    const { queue } = newQueue();
    const gates = new Map<string, ReturnType<typeof deferred>>();
    let running = 0;
    let mostRunning = 0;
    const reconciled: string[] = [];
    const workers = runWorkers({
      queue,
      concurrency: 3,
      reconcile: async (key) => {
        running++;
        mostRunning = Math.max(mostRunning, running);
        const gate = deferred();
        gates.set(key, gate);
        await gate.promise;
        running--;
        reconciled.push(key);
      },
    });
    for (let i = 0; i < 10; i++) queue.add(`ns/key-${i}`);

    while (reconciled.length < 10) {
      await settle();
      expect(running).toBeLessThanOrEqual(3);
      for (const [key, gate] of gates) {
        gates.delete(key);
        gate.resolve();
      }
    }
    expect(mostRunning).toBe(3);
    await queue.shutdown();
    await workers;
  });

  it('never reconciles the same key twice at once, and reconciles it again if it changed meanwhile', async () => {
    const { queue } = newQueue();
    const gate = deferred();
    const calls: string[] = [];
    const workers = runWorkers({
      queue,
      concurrency: 4,
      reconcile: async (key) => {
        calls.push(key);
        if (calls.length === 1) await gate.promise;
      },
    });
    queue.add('ns/a');
    await settle();
    queue.add('ns/a');
    queue.add('ns/a');
    await settle();
    expect(calls).toEqual(['ns/a']);

    gate.resolve();
    await settle();
    expect(calls).toEqual(['ns/a', 'ns/a']);
    await queue.shutdown();
    await workers;
  });

  it('retries a failing key with growing backoff and forgets the backoff once it succeeds', async () => {
    const { clock, queue } = newQueue();
    let failuresLeft = 2;
    const calls: number[] = [];
    const workers = runWorkers({
      queue,
      concurrency: 1,
      clock,
      reconcile: async () => {
        calls.push(clock.now());
        if (failuresLeft-- > 0) throw new Error('cloud unavailable');
      },
    });
    queue.add('ns/a');
    await settle();
    expect(queue.numRequeues('ns/a')).toBe(1);
    clock.advance(5);
    await settle();
    expect(queue.numRequeues('ns/a')).toBe(2);
    clock.advance(10);
    await settle();
    expect(calls).toEqual([0, 5, 15]);
    expect(queue.numRequeues('ns/a')).toBe(0);
    await queue.shutdown();
    await workers;
  });

  it('comes back after requeueAfterMs without counting a failure, or after backoff for requeue', async () => {
    const { clock, queue } = newQueue();
    const results: Array<Requeue> = [{ requeueAfterMs: 30_000 }, { requeue: true }, {}];
    const calls: number[] = [];
    const workers = runWorkers({
      queue,
      concurrency: 1,
      reconcile: async () => {
        calls.push(clock.now());
        return results.shift();
      },
    });
    queue.add('ns/a');
    await settle();
    expect(queue.numRequeues('ns/a')).toBe(0);
    clock.advance(30_000);
    await settle();
    expect(queue.numRequeues('ns/a')).toBe(1);
    clock.advance(5);
    await settle();
    expect(calls).toEqual([0, 30_000, 30_005]);
    expect(queue.numRequeues('ns/a')).toBe(0);
    await queue.shutdown();
    await workers;
  });

  it('returns once the queue is shut down and the running reconcile has finished', async () => {
    const { queue } = newQueue();
    const gate = deferred();
    let finished = false;
    const workers = runWorkers({ queue, concurrency: 2, reconcile: () => gate.promise }).then(
      () => (finished = true),
    );
    queue.add('ns/a');
    await settle();
    const shutdown = queue.shutdown();
    await settle();
    expect(finished).toBe(false);
    gate.resolve();
    await shutdown;
    await workers;
    expect(finished).toBe(true);
  });

  it('rejects a concurrency below 1', async () => {
    const { queue } = newQueue();
    await expect(runWorkers({ queue, concurrency: 0, reconcile: async () => {} })).rejects.toThrow(
      RangeError,
    );
  });
});
