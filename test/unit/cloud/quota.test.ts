import { describe, expect, it } from 'vitest';
import {
  apiOfQuotaKey,
  type Priority,
  QuotaDeferral,
  QuotaRegistry,
  QuotaScheduler,
  quotaKey,
} from '../../../src/cloud/quota.ts';
import { ManualClock, settle } from '../../support/manual-clock.ts';
import { CallChain } from '../../../src/base/call-chain.ts';

const limit = { requests: 10, windowMs: 10_000, safetyMarginMs: 100 };

/** A scheduler of key `k` with `quota`, on a clock the test moves. */
function scheduledOnManualClock(quota: ConstructorParameters<typeof QuotaScheduler>[1] = limit) {
  const clock = new ManualClock();
  return { clock, scheduler: new QuotaScheduler('k', quota, clock) };
}

/** Starts `count` acquisitions; each request "takes" no time (released as soon as granted). */
function acquireMany(
  scheduler: QuotaScheduler,
  clock: ManualClock,
  count: number,
  priority: Priority = 'poll',
  label: string = priority,
  log: Array<{ label: string; at: number }> = [],
) {
  const done = Array.from({ length: count }, (_, i) =>
    scheduler.acquire(priority).then((ticket) => {
      log.push({ label: `${label}${i}`, at: clock.now() });
      ticket.release();
    }),
  );
  return { log, done: Promise.all(done) };
}

/** A call granted: for whom, at what priority, and when. */
interface Grant {
  sharer: string;
  priority: Priority;
  at: number;
}

function keepAsking(
  scheduler: QuotaScheduler,
  clock: ManualClock,
  grants: Grant[],
  { sharer, priority, depth, endMs }: { sharer: string; priority: Priority; depth: number; endMs: number },
) {
  const ask = () =>
    void scheduler.acquire(priority, undefined, { sharer }).then((ticket) => {
      grants.push({ sharer, priority, at: clock.now() });
      ticket.release();
      if (clock.now() < endMs) ask();
    });
  for (let i = 0; i < depth; i++) ask();
}

/**
 * One call asked as the operator asks: with a wait deadline, and after a deferral again when the budget is
 * estimated to allow it, until granted. Resolves with the time it was granted.
 */
async function askAsTheOperatorDoes(
  scheduler: QuotaScheduler,
  clock: ManualClock,
  {
    sharer,
    priority,
    deadlineMs,
    lateMs = 0,
  }: { sharer: string; priority: Priority; deadlineMs: number; lateMs?: number },
): Promise<number> {
  for (;;) {
    try {
      (await scheduler.acquire(priority, undefined, { sharer, deadlineMs })).release();
      return clock.now();
    } catch (error) {
      if (!(error instanceof QuotaDeferral)) throw error;
      const back = error.retryAfterMs + lateMs;
      await new Promise((resolve) => clock.setTimeout(() => resolve(undefined), back));
    }
  }
}

/**
 * One user's change made as a reconcile makes it: a read, then a write, in one chain of calls asked with the
 * operator's wait deadline (1 s); a deferral ends the reconcile, which comes back when it was told and starts
 * again from the read. Each grant is logged in `grants`, as `keepAsking` logs its own.
 */
async function changeAsTheOperatorMakesIt(
  scheduler: QuotaScheduler,
  clock: ManualClock,
  grants: Grant[],
  { sharer, object }: { sharer: string; object: string },
): Promise<void> {
  for (;;) {
    const chain = new CallChain();
    let retryAfterMs: number;
    try {
      for (let call = 0; call < 2; call++) {
        (await scheduler.acquire('user', undefined, { sharer, object, chain, deadlineMs: 1_000 })).release();
        grants.push({ sharer, priority: 'user', at: clock.now() });
      }
      return;
    } catch (error) {
      if (!(error instanceof QuotaDeferral)) throw error;
      retryAfterMs = error.retryAfterMs;
    } finally {
      chain.end();
    }
    await new Promise((resolve) => clock.setTimeout(() => resolve(undefined), retryAfterMs));
  }
}

/** Advances the clock in steps of 100 ms until `made` settles or the clock reads `untilMs`: its value, if any. */
async function advancedUntilMade<T>(
  clock: ManualClock,
  made: Promise<T>,
  untilMs: number,
): Promise<T | undefined> {
  let result: { value: T } | undefined;
  void made.then((value) => (result = { value }));
  while (!result && clock.now() < untilMs) await clock.advanceAndSettle(100);
  return result?.value;
}

describe('QuotaScheduler', () => {
  it('grants the whole budget at once, then makes the next call wait until the oldest slot returns', async () => {
    const { clock, scheduler } = scheduledOnManualClock();
    const { log } = acquireMany(scheduler, clock, 11);
    await settle();
    expect(log).toHaveLength(10);
    expect(scheduler.remaining()).toBe(0);

    await clock.advanceAndSettle(10_099);
    expect(log).toHaveLength(10);
    await clock.advanceAndSettle(1);
    expect(log).toHaveLength(11);
    expect(log[10]!.at).toBe(10_100);
  });

  it('never starts more than N requests in any window of W, whatever the arrival pattern', async () => {
    const { clock, scheduler } = scheduledOnManualClock();
    const grants: number[] = [];
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const all: Array<Promise<unknown>> = [];
    for (let i = 0; i < 200; i++) {
      all.push(
        scheduler.acquire(random() < 0.5 ? 'user' : 'poll').then((ticket) => {
          grants.push(clock.now());
          ticket.release();
        }),
      );
      await clock.advanceAndSettle(Math.floor(random() * 2_000));
    }
    await clock.advanceAndSettle(400_000);
    await Promise.all(all);
    expect(grants).toHaveLength(200);
    grants.sort((a, b) => a - b);
    for (let i = 0; i + limit.requests < grants.length; i++) {
      // The (i+N)th start is at least W + margin after the ith: ≤ N in every window of W.
      expect(grants[i + limit.requests]! - grants[i]!).toBeGreaterThanOrEqual(10_100);
    }
    // Hence every fixed window [k·W, (k+1)·W), whatever its offset, holds at most N starts.
    for (const offset of [0, 1_234, 5_000, 9_999]) {
      const perWindow = new Map<number, number>();
      for (const t of grants) {
        const w = Math.floor((t - offset) / 10_000);
        perWindow.set(w, (perWindow.get(w) ?? 0) + 1);
      }
      expect(Math.max(...perWindow.values())).toBeLessThanOrEqual(10);
    }
  });

  it('does not behave like a token bucket: a full budget spent at the end of one window does not refill early', async () => {
    const { clock, scheduler } = scheduledOnManualClock();
    await clock.advanceAndSettle(9_000);
    const first = acquireMany(scheduler, clock, 10);
    await first.done;
    // A bucket refilling 1/s would allow more at t = 10 000..19 000 (the next fixed window); this must not.
    const second = acquireMany(scheduler, clock, 10);
    await clock.advanceAndSettle(10_099);
    expect(second.log).toHaveLength(0);
    await clock.advanceAndSettle(1);
    expect(second.log).toHaveLength(10);
  });

  it('serves a waiting user call before poll calls that queued earlier', async () => {
    const { clock, scheduler } = scheduledOnManualClock();
    await acquireMany(scheduler, clock, 10).done; // drain
    const log: Array<{ label: string; at: number }> = [];
    acquireMany(scheduler, clock, 3, 'poll', 'poll', log);
    acquireMany(scheduler, clock, 2, 'user', 'user', log);
    await settle();
    expect(scheduler.pending()).toEqual({ user: 2, create: 0, poll: 3 });
    await clock.advanceAndSettle(30_000);
    expect(log.map((entry) => entry.label)).toEqual(['user0', 'user1', 'poll0', 'poll1', 'poll2']);
  });

  it('keeps first-come-first-served order within a priority', async () => {
    const { clock, scheduler } = scheduledOnManualClock({ requests: 1, windowMs: 1_000, safetyMarginMs: 0 });
    const log: Array<{ label: string; at: number }> = [];
    acquireMany(scheduler, clock, 5, 'poll', 'p', log);
    await clock.advanceAndSettle(10_000);
    expect(log).toEqual([
      { label: 'p0', at: 0 },
      { label: 'p1', at: 1_000 },
      { label: 'p2', at: 2_000 },
      { label: 'p3', at: 3_000 },
      { label: 'p4', at: 4_000 },
    ]);
  });

  it('reports how long a call waited and what was left', async () => {
    const { clock, scheduler } = scheduledOnManualClock({ requests: 2, windowMs: 1_000, safetyMarginMs: 50 });
    const first = await scheduler.acquire();
    expect(first).toMatchObject({ waitedMs: 0, remaining: 1 });
    const second = await scheduler.acquire();
    expect(second).toMatchObject({ waitedMs: 0, remaining: 0 });
    first.release();
    second.release();
    const third = scheduler.acquire();
    await clock.advanceAndSettle(1_050);
    // Both earlier slots came back at 1 050; the third call took one of them.
    const ticket = await third;
    expect(ticket).toMatchObject({ waitedMs: 1_050, remaining: 1 });
    ticket.release();
    await clock.advanceAndSettle(1_050);
    expect(scheduler.remaining()).toBe(2);
  });

  it('drops an aborted waiter from the queue and rejects it with the reason', async () => {
    const { clock, scheduler } = scheduledOnManualClock({ requests: 1, windowMs: 1_000, safetyMarginMs: 0 });
    (await scheduler.acquire()).release();
    const controller = new AbortController();
    const aborted = scheduler.acquire('user', controller.signal);
    const later = scheduler.acquire('poll');
    controller.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    expect(scheduler.pending()).toEqual({ user: 0, create: 0, poll: 1 });
    await clock.advanceAndSettle(1_000);
    await expect(later).resolves.toMatchObject({ waitedMs: 1_000 });
  });

  it('rejects at once when the signal is already aborted', async () => {
    const scheduler = new QuotaScheduler('k', limit, new ManualClock());
    await expect(scheduler.acquire('user', AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
    expect(scheduler.remaining()).toBe(10);
  });

  it('grants nothing while paused after a server 429', async () => {
    const { clock, scheduler } = scheduledOnManualClock();
    scheduler.pause(3_000);
    expect(scheduler.remaining()).toBe(0);
    const { log } = acquireMany(scheduler, clock, 2, 'user');
    await clock.advanceAndSettle(2_999);
    expect(log).toHaveLength(0);
    await clock.advanceAndSettle(1);
    expect(log).toHaveLength(2);
  });

  it('leaves no timer behind once the queue is empty', async () => {
    const { clock, scheduler } = scheduledOnManualClock({ requests: 1, windowMs: 100, safetyMarginMs: 0 });
    await acquireMany(scheduler, clock, 1).done;
    const waiting = acquireMany(scheduler, clock, 2);
    await clock.advanceAndSettle(500);
    await waiting.done;
    expect(clock.pendingTimers).toBe(0);
  });

  it('holds a slot for the window after the request FINISHED, so slow requests cannot bunch up at the server', async () => {
    const { clock, scheduler } = scheduledOnManualClock({ requests: 2, windowMs: 1_000, safetyMarginMs: 0 });
    const slow = await scheduler.acquire();
    const fast = await scheduler.acquire();
    fast.release();
    await clock.advanceAndSettle(800); // the slow request is still in flight (the server may count it only now)
    slow.release();
    const log: Array<{ label: string; at: number }> = [];
    acquireMany(scheduler, clock, 2, 'user', 'next', log);
    await clock.advanceAndSettle(3_000);
    // One slot came back 1 000 after the fast request ended, the other 1 000 after the slow one ended.
    expect(log).toEqual([
      { label: 'next0', at: 1_000 },
      { label: 'next1', at: 1_800 },
    ]);
  });

  it('makes waiters wait for a release when every slot is in flight', async () => {
    const { clock, scheduler } = scheduledOnManualClock({ requests: 1, windowMs: 100, safetyMarginMs: 0 });
    const inFlight = await scheduler.acquire();
    expect(scheduler.inFlight()).toBe(1);
    const { log } = acquireMany(scheduler, clock, 1);
    await clock.advanceAndSettle(10_000);
    expect(log).toHaveLength(0);
    expect(clock.pendingTimers).toBe(0);
    inFlight.release();
    inFlight.release(); // idempotent
    await clock.advanceAndSettle(99);
    expect(log).toHaveLength(0);
    await clock.advanceAndSettle(1);
    expect(log).toEqual([{ label: 'poll0', at: 10_100 }]);
  });

  it('hands a slot back at once when the request provably never left', async () => {
    const { clock, scheduler } = scheduledOnManualClock({ requests: 1, windowMs: 10_000 });
    const refused = await scheduler.acquire();
    const { log } = acquireMany(scheduler, clock, 1);
    refused.release(false);
    await settle();
    expect(log).toEqual([{ label: 'poll0', at: 0 }]);
  });

  it('refuses a nonsensical limit', () => {
    expect(() => new QuotaScheduler('k', { requests: 0, windowMs: 1_000 })).toThrow(RangeError);
    expect(() => new QuotaScheduler('k', { requests: 1, windowMs: 0 })).toThrow(RangeError);
  });
});

describe('QuotaRegistry', () => {
  it('hands every client of a key the same scheduler, so they share one budget', () => {
    const registry = new QuotaRegistry(new ManualClock());
    const key = quotaKey('management', 'http://127.0.0.1:8080/', { keyId: 'key-1', keySecret: 's1' });
    const a = registry.get(key, limit);
    const b = registry.get(key, { requests: 99, windowMs: 1 });
    expect(b).toBe(a);
    expect(b.limit.requests).toBe(10);
    expect(
      registry.get(
        quotaKey('management', 'http://127.0.0.1:8080', { keyId: 'key-2', keySecret: 's1' }),
        limit,
      ),
    ).not.toBe(a);
  });

  it('keys by origin, key id and a digest of the secret, and never by a readable secret or token', () => {
    const key = quotaKey('management', 'http://127.0.0.1:8080/base', { keyId: 'k1', keySecret: 'secret-1' });
    expect(key).toMatch(/^management http:\/\/127\.0\.0\.1:8080 k1 hmac:[0-9a-f]{16}$/);
    expect(key).not.toContain('secret-1');
    expect(quotaKey('management', 'http://127.0.0.1:8080', { keyId: 'k1', keySecret: 'secret-1' })).toBe(key);
    const tokenKey = quotaKey('alerting', 'http://127.0.0.1:8080', { token: 'super-secret-token' });
    expect(tokenKey).not.toContain('super-secret-token');
    expect(tokenKey).toBe(quotaKey('alerting', 'http://127.0.0.1:8080', { token: 'super-secret-token' }));
  });

  it("gives someone else's key id with a wrong secret a budget of its own", () => {
    const registry = new QuotaRegistry(new ManualClock());
    const real = registry.get(quotaKey('management', 'http://h', { keyId: 'k1', keySecret: 'right' }), limit);
    const impostor = registry.get(
      quotaKey('management', 'http://h', { keyId: 'k1', keySecret: 'wrong' }),
      limit,
    );
    expect(impostor).not.toBe(real);
    // Two fields joined could be split elsewhere: the digest tells ("k1", "2x") from ("k12", "x").
    expect(quotaKey('management', 'http://h', { keyId: 'k1', keySecret: '2x' }).split(' ')[3]).not.toBe(
      quotaKey('management', 'http://h', { keyId: 'k12', keySecret: 'x' }).split(' ')[3],
    );
  });

  it('asks how each key starts with the key, so a caller can tell the APIs apart', () => {
    const management = quotaKey('management', 'http://127.0.0.1:8080', { keyId: 'k1', keySecret: 's' });
    const alerting = quotaKey('alerting', 'http://127.0.0.1:8080', { token: 't' });
    const asked: string[] = [];
    const registry = new QuotaRegistry(new ManualClock(), (key) => {
      asked.push(apiOfQuotaKey(key));
      return {};
    });
    registry.get(management, limit);
    registry.get(alerting, limit);
    expect(asked).toEqual(['management', 'alerting']);
  });
});

describe('QuotaScheduler with a wait deadline', () => {
  const one = { requests: 1, windowMs: 10_000, safetyMarginMs: 100 };

  /** Spends the only slot at time 0. */
  async function drained(clock: ManualClock) {
    const scheduler = new QuotaScheduler('k', one, clock);
    (await scheduler.acquire('user')).release();
    return scheduler;
  }

  it('defers at once, spending nothing, a caller the budget cannot serve within its deadline', async () => {
    const clock = new ManualClock();
    const scheduler = await drained(clock);

    await expect(scheduler.acquire('poll', undefined, { deadlineMs: 1_000 })).rejects.toMatchObject({
      name: 'QuotaDeferral',
      retryAfterMs: 10_100,
    });
    expect(scheduler.pending()).toEqual({ user: 0, create: 0, poll: 0 });
    expect(clock.pendingTimers).toBe(0);
  });

  it('waits within the deadline when the slot comes back in time', async () => {
    const clock = new ManualClock();
    const scheduler = await drained(clock);
    await clock.advanceAndSettle(9_500);

    let granted = false;
    void scheduler.acquire('poll', undefined, { deadlineMs: 1_000 }).then(() => (granted = true));
    await clock.advanceAndSettle(600);

    expect(granted).toBe(true);
  });

  it('gives up at the deadline when the slot is still in flight, and estimates a full window from then', async () => {
    const clock = new ManualClock();
    const scheduler = new QuotaScheduler('k', one, clock);
    await scheduler.acquire('user'); // never released: in flight
    const waiting = scheduler.acquire('poll', undefined, { deadlineMs: 1_000 });
    const outcome = waiting.catch((error: unknown) => error);

    await clock.advanceAndSettle(1_000);

    expect(await outcome).toMatchObject({ name: 'QuotaDeferral', retryAfterMs: 10_100 });
    expect(scheduler.pending().poll).toBe(0);
  });

  it('keeps a deferred user call ahead of polls: polls come back later, and may not take its slot', async () => {
    const clock = new ManualClock();
    const scheduler = await drained(clock);
    const user = await scheduler.acquire('user', undefined, { deadlineMs: 100 }).catch((e: Error) => e);
    const poll = await scheduler.acquire('poll', undefined, { deadlineMs: 100 }).catch((e: Error) => e);
    expect(user).toMatchObject({ retryAfterMs: 10_100 });
    expect(poll).toMatchObject({ retryAfterMs: 20_200 });

    // The slot frees at 10 100; a poll that arrives before the deferred user call is back must wait.
    await clock.advanceAndSettle(10_100);
    let pollGranted = false;
    void scheduler.acquire('poll', undefined, { deadlineMs: 1_000 }).then(
      () => (pollGranted = true),
      () => {},
    );
    await settle();
    expect(pollGranted).toBe(false);
    const userTicket = await scheduler.acquire('user', undefined, { deadlineMs: 1_000 });
    expect(userTicket.waitedMs).toBe(0);
  });

  it('lets a poll have the slot once the deferred user call did not come back in time', async () => {
    const clock = new ManualClock();
    const scheduler = await drained(clock);
    await scheduler.acquire('user', undefined, { deadlineMs: 100 }).catch(() => {});
    await clock.advanceAndSettle(10_100);

    let grantedAt: number | undefined;
    void scheduler.acquire('poll').then(() => (grantedAt = clock.now()));
    await clock.advanceAndSettle(3_000);

    expect(grantedAt).toBe(12_100);
  });
});

describe('QuotaScheduler safety margin', () => {
  it('defaults to 100 ms for the real windows and to 1 % of a shorter one, so a scaled limit loses the same share', () => {
    const margin = (windowMs: number) =>
      new QuotaScheduler('k', { requests: 1, windowMs }).limit.safetyMarginMs;
    expect(margin(10_000)).toBe(100);
    expect(margin(60_000)).toBe(100);
    expect(margin(1_000)).toBe(10);
    expect(
      new QuotaScheduler('k', { requests: 1, windowMs: 1_000, safetyMarginMs: 50 }).limit.safetyMarginMs,
    ).toBe(50);
  });

  it('holds a slot for window + the default margin after release at a scaled window', async () => {
    const { clock, scheduler } = scheduledOnManualClock({ requests: 1, windowMs: 1_000 });
    const { log } = acquireMany(scheduler, clock, 2);
    await settle();
    clock.advance(1_009);
    await settle();
    expect(log).toHaveLength(1);
    clock.advance(1);
    await settle();
    expect(log.map((entry) => entry.at)).toEqual([0, 1_010]);
  });
});

describe('QuotaScheduler after a predecessor (restart, leadership hand-over)', () => {
  /** A scheduler made at `nowMs` on a clock the test moves, after a predecessor as `start` says. */
  async function startedAt(nowMs: number, start: { othersCalledUntil: number }) {
    const clock = new ManualClock();
    await clock.advanceAndSettle(nowMs);
    return { clock, scheduler: new QuotaScheduler('k', limit, clock, start) };
  }

  it('counts the whole budget as spent when the predecessor may last have called, so it waits one window from then', async () => {
    const { clock, scheduler } = await startedAt(3_000, { othersCalledUntil: 2_000 });
    expect(scheduler.remaining()).toBe(0);
    const { log } = acquireMany(scheduler, clock, 11);
    await settle();
    expect(log).toHaveLength(0);

    // Every slot returns a window + margin after the predecessor's last possible call, all at once.
    await clock.advanceAndSettle(2_000 + 10_100 - 3_000 - 1);
    expect(log).toHaveLength(0);
    await clock.advanceAndSettle(1);
    expect(log).toHaveLength(10);
    expect(log[0]!.at).toBe(12_100);
    // ... and from then on the budget is this process's own.
    await clock.advanceAndSettle(10_100);
    expect(log).toHaveLength(11);
  });

  it('waits nothing when the predecessor last called more than a window ago', async () => {
    const { clock, scheduler } = await startedAt(20_000, { othersCalledUntil: 9_900 });
    expect(scheduler.remaining()).toBe(10);
    const { log } = acquireMany(scheduler, clock, 10);
    await settle();
    expect(log).toHaveLength(10);
  });

  it('never waits longer than one window + margin, however busy the predecessor was', async () => {
    const clock = new ManualClock();
    const scheduler = new QuotaScheduler('k', limit, clock, { othersCalledUntil: clock.now() });
    const deferred = scheduler.acquire('user', undefined, { deadlineMs: 0 });
    await expect(deferred).rejects.toMatchObject({ name: 'QuotaDeferral', retryAfterMs: 10_100 });
  });

  it('asks the registry for the start of each key when that key is first used, not when the registry was made', async () => {
    const clock = new ManualClock();
    let startedAt = 0;
    const registry = new QuotaRegistry(clock, () => ({ othersCalledUntil: startedAt }));
    expect(registry.get('a', limit).remaining()).toBe(0);
    await clock.advanceAndSettle(10_100);
    expect(registry.get('a', limit).remaining()).toBe(10);
    startedAt = clock.now();
    expect(registry.get('b', limit).remaining()).toBe(0);
  });
});

describe('QuotaScheduler shared between namespaces', () => {
  const one = { requests: 1, windowMs: 1_000, safetyMarginMs: 0 };

  /** Queues `count` calls of `sharer`, logging each grant under `sharer` and releasing it at once. */
  function queue(
    scheduler: QuotaScheduler,
    sharer: string,
    count: number,
    log: string[],
    priority: Priority = 'user',
  ) {
    for (let i = 0; i < count; i++) {
      void scheduler.acquire(priority, undefined, { sharer }).then((ticket) => {
        log.push(sharer);
        ticket.release();
      });
    }
  }

  it('serves the namespaces waiting in one priority in turn: a namespace with many calls queued does not hold back another', async () => {
    const clock = new ManualClock();
    const scheduler = new QuotaScheduler('k', one, clock);
    const log: string[] = [];
    queue(scheduler, 'noisy', 6, log);
    queue(scheduler, 'quiet', 2, log);
    await clock.advanceAndSettle(20_000);
    expect(log).toEqual(['noisy', 'quiet', 'noisy', 'quiet', 'noisy', 'noisy', 'noisy', 'noisy']);
  });

  it('gives a namespace that starts asking the next slot, not a place behind what another namespace queued', async () => {
    const clock = new ManualClock();
    const scheduler = new QuotaScheduler('k', one, clock);
    const log: string[] = [];
    queue(scheduler, 'noisy', 10, log);
    await clock.advanceAndSettle(3_500);
    queue(scheduler, 'quiet', 1, log);
    await clock.advanceAndSettle(500);
    expect(log).toEqual(['noisy', 'noisy', 'noisy', 'noisy', 'quiet']);
  });

  it('keeps the order of priorities up to the floor: a namespace’s poll goes after another’s user calls until N − 1 of them went first', async () => {
    const clock = new ManualClock();
    const scheduler = new QuotaScheduler('k', { requests: 3, windowMs: 1_000, safetyMarginMs: 0 }, clock);
    queue(scheduler, 'noisy', 3, []); // drain
    await settle();
    const log: string[] = [];
    queue(scheduler, 'quiet', 1, log, 'poll');
    queue(scheduler, 'noisy', 4, log, 'user');
    await clock.advanceAndSettle(5_000);
    expect(log).toEqual(['noisy', 'noisy', 'quiet', 'noisy', 'noisy']);
  });

  it('defers a namespace’s call to its turn, not behind another namespace’s, and keeps that slot from the others', async () => {
    const { clock, scheduler } = scheduledOnManualClock({
      requests: 1,
      windowMs: 10_000,
      safetyMarginMs: 100,
    });
    (await scheduler.acquire('user', undefined, { sharer: 'noisy' })).release();
    const defer = (sharer: string) =>
      scheduler.acquire('user', undefined, { deadlineMs: 100, sharer }).catch((e: Error) => e);
    // The noisy namespace's next edit is deferred to the next slot; the quiet namespace's change shares it.
    expect(await defer('noisy')).toMatchObject({ retryAfterMs: 10_100 });
    expect(await defer('quiet')).toMatchObject({ retryAfterMs: 10_100 });

    // At the slot's time the noisy call that comes back first finds it promised to the quiet one.
    await clock.advanceAndSettle(10_100);
    let noisyGranted = false;
    void scheduler.acquire('user', undefined, { deadlineMs: 1_000, sharer: 'noisy' }).then(
      () => (noisyGranted = true),
      () => {},
    );
    await settle();
    expect(noisyGranted).toBe(false);
    const quiet = await scheduler.acquire('user', undefined, { deadlineMs: 1_000, sharer: 'quiet' });
    expect(quiet.waitedMs).toBe(0);
  });

  it('spends at most the budget in any window and gives each of two busy namespaces half of it, however many calls each keeps waiting', async () => {
    const { clock, scheduler } = scheduledOnManualClock();
    const grants: Array<{ sharer: string; at: number }> = [];
    // Each namespace keeps calls waiting: the noisy one 30 at a time, the quiet one 10.
    const keepBusy = (sharer: string, depth: number) => {
      const ask = () =>
        void scheduler.acquire('user', undefined, { sharer }).then((ticket) => {
          grants.push({ sharer, at: clock.now() });
          ticket.release();
          if (clock.now() < 60_000) ask();
        });
      for (let i = 0; i < depth; i++) ask();
    };
    keepBusy('noisy', 30);
    keepBusy('quiet', 10);
    await clock.advanceAndSettle(60_000);
    const inWindow = (from: number) => grants.filter((g) => g.at >= from && g.at < from + 10_000);
    for (let from = 0; from + 10_000 <= 60_000; from += 1_000) {
      const calls = inWindow(from);
      expect(calls.length).toBeLessThanOrEqual(10);
    }
    // The first window goes to the noisy namespace, which asked first while the budget was unspent.
    const quiet = grants.filter((g) => g.sharer === 'quiet' && g.at >= 10_000).length;
    const noisy = grants.filter((g) => g.sharer === 'noisy' && g.at >= 10_000).length;
    expect(quiet).toBeGreaterThanOrEqual(20);
    expect(quiet).toBe(noisy);
  });
});

describe("QuotaScheduler keeping a namespace's turn through a chain of calls", () => {
  /** A call of `sharer`, logged under its name when granted; the caller releases the ticket. */
  async function grantOf(scheduler: QuotaScheduler, sharer: string, log: string[]) {
    const ticket = await scheduler.acquire('user', undefined, { sharer });
    log.push(sharer);
    return ticket;
  }

  /** The noisy namespace spends the budget and keeps `backlog` calls waiting, each released at once. */
  async function noisyBacklog(scheduler: QuotaScheduler, backlog: number, log: string[]) {
    for (let i = 0; i < 10; i++) (await grantOf(scheduler, 'noisy', [])).release();
    for (let i = 0; i < backlog; i++) void grantOf(scheduler, 'noisy', log).then((t) => t.release());
  }

  it("serves a namespace's write right after its read when the slots free together, before another namespace's backlog", async () => {
    const { clock, scheduler } = scheduledOnManualClock();
    const log: string[] = [];
    await noisyBacklog(scheduler, 20, log);
    // The quiet namespace's change: a read; its write is asked 30 ms after the read's answer.
    const read = grantOf(scheduler, 'quiet', log);
    await clock.advanceAndSettle(10_100);
    const readTicket = await read;
    await clock.advanceAndSettle(50);
    readTicket.release();
    await clock.advanceAndSettle(30);
    (await grantOf(scheduler, 'quiet', log)).release();
    await clock.advanceAndSettle(2_000);
    // Without the kept turn: quiet, then nine noisy calls, and the write a window later.
    expect(log.slice(0, 3)).toEqual(['quiet', 'quiet', 'noisy']);
    expect(log.filter((sharer) => sharer === 'noisy')).toHaveLength(8);
  });

  it("gives the slots to the others once the namespace asks nothing within one slot's share of the window after its call", async () => {
    const { clock, scheduler } = scheduledOnManualClock();
    const log: string[] = [];
    await noisyBacklog(scheduler, 20, log);
    const read = grantOf(scheduler, 'quiet', log);
    await clock.advanceAndSettle(10_100);
    (await read).release();
    await clock.advanceAndSettle(1_009);
    expect(log).toEqual(['quiet']);
    await clock.advanceAndSettle(1);
    expect(log).toEqual(['quiet', ...Array(9).fill('noisy')]);
  });

  /**
   * The noisy namespace's backlog waits while the quiet namespace's read of `chain` is granted at the next
   * window and answered: the scheduler, its clock and the log of grants from then on.
   */
  async function readOfChainAnswered(chain: CallChain) {
    const { clock, scheduler } = scheduledOnManualClock();
    const log: string[] = [];
    await noisyBacklog(scheduler, 20, log);
    const read = grantOfChain(scheduler, chain, log);
    await clock.advanceAndSettle(10_100);
    (await read).release();
    return { clock, scheduler, log };
  }

  async function grantOfChain(scheduler: QuotaScheduler, chain: CallChain, log: string[]) {
    const ticket = await scheduler.acquire('user', undefined, { sharer: 'quiet', chain });
    log.push('quiet');
    return ticket;
  }

  it("keeps a reconcile's turn until its chain ends, however long it takes to act on the read's answer", async () => {
    const chain = new CallChain();
    const { clock, scheduler, log } = await readOfChainAnswered(chain);
    // A busy machine: the write is asked 3 s after the read's answer, three times the grace of a call of
    // no chain.
    await clock.advanceAndSettle(3_000);
    expect(log).toEqual(['quiet']);
    (await grantOfChain(scheduler, chain, log)).release();
    chain.end();
    await clock.advanceAndSettle(1);
    expect(log).toEqual(['quiet', 'quiet', ...Array(8).fill('noisy')]);
  });

  it('gives the slots a chain kept to the others as soon as the chain ends', async () => {
    const chain = new CallChain();
    const { clock, log } = await readOfChainAnswered(chain);
    await clock.advanceAndSettle(200);
    expect(log).toEqual(['quiet']);
    // The reconcile needed nothing more than the read.
    chain.end();
    await settle();
    expect(log).toEqual(['quiet', ...Array(9).fill('noisy')]);
    expect(clock.now()).toBe(10_300);
  });

  it('keeps a turn a window at most for a chain that never ends', async () => {
    const { clock, log } = await readOfChainAnswered(new CallChain());
    await clock.advanceAndSettle(10_099);
    expect(log).toEqual(['quiet']);
    await clock.advanceAndSettle(1);
    expect(log.length).toBeGreaterThan(1);
  });

  it('keeps no turn for a namespace nobody else shares the key with: its calls go as fast as the budget allows', async () => {
    const { clock, scheduler } = scheduledOnManualClock();
    const log: string[] = [];
    (await grantOf(scheduler, 'quiet', log)).release();
    void grantOf(scheduler, 'other', log).then((t) => t.release());
    await settle();
    expect(log).toEqual(['quiet', 'other']);
    expect(clock.now()).toBe(0);
  });

  it("serves a change's write in its turn after its read, however the slots free: a deferral would end the reconcile, whose retry spends its turn on the read again", async () => {
    const { clock, scheduler } = scheduledOnManualClock();
    const grants: Grant[] = [];
    keepAsking(scheduler, clock, grants, { sharer: 'noisy', priority: 'user', depth: 30, endMs: 90_000 });
    await clock.advanceAndSettle(25_000);

    const change = changeAsTheOperatorMakesIt(scheduler, clock, grants, {
      sharer: 'quiet',
      object: 'edited',
    });
    const made = await advancedUntilMade(
      clock,
      change.then(() => true),
      85_000,
    );
    // The noisy namespace's slots free together, a window apart: the read is granted with one of them, and a
    // write asked with the operator's 1 s deadline was deferred each time, the change never made.
    expect(made, 'the change made by 85 s').toBe(true);
    const quiet = grants.flatMap((grant, i) => (grant.sharer === 'quiet' ? [{ ...grant, i }] : []));
    const [read, write] = [quiet[0]!, quiet[1]!];
    expect(write.i - read.i - 1).toBe(0);
    expect(write.at - read.at).toBeLessThanOrEqual(10_100);
  });

  it('lets two namespaces that each keep a turn take their next calls without waiting on each other', async () => {
    const { clock, scheduler } = scheduledOnManualClock();
    const log: string[] = [];
    await noisyBacklog(scheduler, 20, log);
    const readA = grantOf(scheduler, 'a', log);
    const readB = grantOf(scheduler, 'b', log);
    await clock.advanceAndSettle(10_100);
    const [ticketA, ticketB] = [await readA, await readB];
    ticketA.release();
    ticketB.release();
    await clock.advanceAndSettle(20);
    const writeA = grantOf(scheduler, 'a', log);
    const writeB = grantOf(scheduler, 'b', log);
    await settle();
    (await writeA).release();
    (await writeB).release();
    expect(log.slice(0, 4)).toEqual(['a', 'b', 'a', 'b']);
    expect(clock.now()).toBe(10_120);
  });
});

describe('QuotaScheduler floor for background calls', () => {
  /** Keeps `depth` calls of `sharer` at `priority` waiting, each asking again once granted, until `endMs`. */
  it('grants polls one slot in N while user calls keep the key busy: never more than N − 1 user calls in a row', async () => {
    const { clock, scheduler } = scheduledOnManualClock();
    const grants: Grant[] = [];
    keepAsking(scheduler, clock, grants, { sharer: 'noisy', priority: 'user', depth: 30, endMs: 100_000 });
    keepAsking(scheduler, clock, grants, { sharer: 'quiet', priority: 'poll', depth: 5, endMs: 100_000 });
    await clock.advanceAndSettle(100_000);

    // The first window went to the user calls, which asked first while the budget was unspent.
    const contested = grants.filter((g) => g.at >= 10_100);
    let run = 0;
    let longest = 0;
    for (const { priority } of contested) {
      run = priority === 'user' ? run + 1 : 0;
      longest = Math.max(longest, run);
    }
    expect(longest).toBe(9);
    const polls = contested.filter((g) => g.priority === 'poll').length;
    // The floor, no more: user calls keep nine slots in ten.
    expect(polls).toBe(contested.length / 10);
    // Every window holds one poll.
    for (let from = 10_100; from + 10_100 <= 100_000; from += 10_100) {
      expect(
        grants.filter((g) => g.priority === 'poll' && g.at >= from && g.at < from + 10_100),
      ).toHaveLength(1);
    }
  });

  it('serves a poll within one window however many namespaces keep the key busy with user calls', async () => {
    const { clock, scheduler } = scheduledOnManualClock();
    const grants: Grant[] = [];
    for (const sharer of ['a', 'b', 'c', 'd', 'e']) {
      keepAsking(scheduler, clock, grants, { sharer, priority: 'user', depth: 20, endMs: 60_000 });
    }
    await clock.advanceAndSettle(25_000);
    let grantedAt: number | undefined;
    void scheduler.acquire('poll', undefined, { sharer: 'quiet' }).then((ticket) => {
      grantedAt = clock.now();
      ticket.release();
    });
    await clock.advanceAndSettle(35_000);
    expect(grantedAt).toBeDefined();
    expect(grantedAt! - 25_000).toBeLessThanOrEqual(10_100);
  });

  it('serves a poll that is deferred and asks again, as the operator does, within one window of its first ask', async () => {
    const { clock, scheduler } = scheduledOnManualClock();
    const grants: Grant[] = [];
    keepAsking(scheduler, clock, grants, { sharer: 'noisy', priority: 'user', depth: 30, endMs: 120_000 });
    await clock.advanceAndSettle(25_000);

    const ask = () =>
      askAsTheOperatorDoes(scheduler, clock, { sharer: 'quiet', priority: 'poll', deadlineMs: 1_000 });
    // Two polls, the second asked as soon as the first was granted.
    const granted: number[] = [];
    void ask()
      .then((at) => granted.push(at))
      .then(ask)
      .then((at) => granted.push(at));
    await clock.advanceAndSettle(60_000);
    expect(granted).toHaveLength(2);
    const [first, second] = granted as [number, number];
    expect(first - 25_000).toBeLessThanOrEqual(10_100);
    expect(second - first).toBeLessThanOrEqual(10_100);
  });

  it("serves a namespace's poll at the next floor slot though another namespace's objects were deferred polling and came back editing", async () => {
    const { clock, scheduler } = scheduledOnManualClock();
    const grants: Grant[] = [];
    keepAsking(scheduler, clock, grants, { sharer: 'noisy', priority: 'user', depth: 30, endMs: 120_000 });
    await clock.advanceAndSettle(25_000);
    // Each of the noisy namespace's objects looks at the cloud (a poll, deferred), and is back before that
    // look's time with its user's next edit.
    for (let i = 0; i < 4; i++) {
      const object = `QueryEndpoint noisy/endpoint-${i}`;
      await scheduler
        .acquire('poll', undefined, { sharer: 'noisy', object, deadlineMs: 1_000 })
        .catch(() => {});
      void scheduler.acquire('user', undefined, { sharer: 'noisy', object, deadlineMs: 1_000 }).then(
        (ticket) => ticket.release(),
        () => {},
      );
    }
    const granted = askAsTheOperatorDoes(scheduler, clock, {
      sharer: 'quiet',
      priority: 'poll',
      deadlineMs: 1_000,
    });
    const at = await advancedUntilMade(clock, granted, 85_000);
    // The floor's slot of the window: the looks the edits replaced hold none of it, nor count ahead of it.
    expect(at! - 25_000).toBeLessThanOrEqual(10_100);
  });

  it('counts towards the floor while a deferred poll comes back later than its claim waits (a loaded operator)', async () => {
    const { clock, scheduler } = scheduledOnManualClock();
    const grants: Grant[] = [];
    keepAsking(scheduler, clock, grants, { sharer: 'noisy', priority: 'user', depth: 30, endMs: 120_000 });
    await clock.advanceAndSettle(25_000);

    // Each time deferred, the poll is back 3 s after the slot it was promised: its claim lapsed 1 s before.
    const granted: number[] = [];
    void askAsTheOperatorDoes(scheduler, clock, {
      sharer: 'quiet',
      priority: 'poll',
      deadlineMs: 1_000,
      lateMs: 3_000,
    }).then((at) => granted.push(at));
    await clock.advanceAndSettle(60_000);
    expect(granted).toHaveLength(1);
    // A window of user calls, then the next slot after its late return.
    expect(granted[0]! - 25_000).toBeLessThanOrEqual(10_100 + 3_000 + 1_000);
  });

  it('estimates a deferred poll at its floor slot, not behind every user call waiting', async () => {
    const { clock, scheduler } = scheduledOnManualClock();
    await acquireMany(scheduler, clock, 10, 'user').done; // drain at 0
    acquireMany(scheduler, clock, 30, 'user'); // three windows of user calls waiting
    await settle();
    // Nine of the slots that free at 10 100 go to user calls, the tenth to the poll.
    await expect(scheduler.acquire('poll', undefined, { deadlineMs: 0 })).rejects.toMatchObject({
      name: 'QuotaDeferral',
      retryAfterMs: 10_100,
    });
  });

  it('keeps the slot the floor owes a deferred poll from user calls until it comes back', async () => {
    const { clock, scheduler } = scheduledOnManualClock({ requests: 2, windowMs: 1_000, safetyMarginMs: 0 });
    const grants: Grant[] = [];
    await acquireMany(scheduler, clock, 2, 'user').done; // drain at 0
    const deferral = await scheduler.acquire('poll', undefined, { deadlineMs: 0 }).catch((e: Error) => e);
    expect(deferral).toMatchObject({ retryAfterMs: 1_000 });
    keepAsking(scheduler, clock, grants, { sharer: 'noisy', priority: 'user', depth: 5, endMs: 10_000 });
    // At 1 000 one slot goes to a user call; the other is the poll's, though user calls wait and it is not back.
    await clock.advanceAndSettle(1_500);
    expect(grants.map((g) => g.at)).toEqual([1_000]);
    const poll = await scheduler.acquire('poll', undefined, { deadlineMs: 0 });
    expect(poll.waitedMs).toBe(0);
  });
});

describe('QuotaScheduler deferring the calls of several objects of one namespace', () => {
  const two = { requests: 2, windowMs: 10_000, safetyMarginMs: 100 };

  /** The object `name` of namespace `team` asks once, with a deadline the spent budget cannot meet. */
  const defer = (scheduler: QuotaScheduler, name: string, priority: Priority = 'user') =>
    scheduler
      .acquire(priority, undefined, { deadlineMs: 100, sharer: 'team', object: `Alert team/${name}` })
      .then(
        () => 0,
        (deferral: QuotaDeferral) => deferral.retryAfterMs,
      );

  it("tells each object of a namespace's backlog when its own turn comes: each deferred call's claim counts ahead of the next", async () => {
    const { scheduler } = scheduledOnManualClock(two);
    for (let i = 0; i < 2; i++) (await scheduler.acquire('user', undefined, { sharer: 'team' })).release();

    const returns: number[] = [];
    for (let i = 0; i < 5; i++) returns.push(await defer(scheduler, `alert-${i}`));

    // One namespace's claims did not add up: each deferral cancelled the previous object's, and all five
    // were told 10 100 ms, to come back as a herd for two slots.
    expect(returns).toEqual([10_100, 10_100, 20_200, 20_200, 30_300]);
  });

  it("redeems a deferred object's claim only when that object comes back, not when another object of its namespace asks", async () => {
    const { clock, scheduler } = scheduledOnManualClock(two);
    for (let i = 0; i < 2; i++) (await scheduler.acquire('user', undefined, { sharer: 'team' })).release();
    expect(await defer(scheduler, 'first')).toBe(10_100);
    expect(await defer(scheduler, 'second')).toBe(10_100);
    // A third object asks again and again before the slots free: it never takes the first two's places.
    expect(await defer(scheduler, 'third')).toBe(20_200);
    expect(await defer(scheduler, 'third')).toBe(20_200);

    await clock.advanceAndSettle(10_100);
    const back = (name: string) =>
      scheduler.acquire('user', undefined, { deadlineMs: 100, sharer: 'team', object: `Alert team/${name}` });
    expect((await back('first')).waitedMs).toBe(0);
    expect((await back('second')).waitedMs).toBe(0);
  });
});

describe('QuotaScheduler serving edits before creates', () => {
  /** Queues a call of `object` at `priority` for namespace `team`, logged under `object` and released at once. */
  function ask(scheduler: QuotaScheduler, priority: Priority, object: string, log: string[]) {
    void scheduler.acquire(priority, undefined, { sharer: 'team', object }).then((ticket) => {
      log.push(object);
      ticket.release();
    });
  }

  it('serves an edit of an existing object before the creates its namespace queued earlier, and creates before polls', async () => {
    const clock = new ManualClock();
    const scheduler = new QuotaScheduler('k', { requests: 5, windowMs: 1_000, safetyMarginMs: 0 }, clock);
    for (let i = 0; i < 5; i++) (await scheduler.acquire('user')).release();
    const log: string[] = [];
    ask(scheduler, 'poll', 'look', log);
    for (const name of ['new-1', 'new-2', 'new-3']) ask(scheduler, 'create', name, log);
    ask(scheduler, 'user', 'edit', log);
    await clock.advanceAndSettle(5_000);
    expect(log).toEqual(['edit', 'new-1', 'new-2', 'new-3', 'look']);
  });

  it('tells a deferred edit the first free slot, ahead of the creates deferred before it, and keeps that slot from them', async () => {
    const { clock, scheduler } = scheduledOnManualClock({
      requests: 2,
      windowMs: 10_000,
      safetyMarginMs: 100,
    });
    for (let i = 0; i < 2; i++) (await scheduler.acquire('user', undefined, { sharer: 'team' })).release();
    const defer = (priority: Priority, name: string) =>
      scheduler
        .acquire(priority, undefined, { deadlineMs: 100, sharer: 'team', object: `Alert team/${name}` })
        .catch((deferral: QuotaDeferral) => deferral);
    for (let i = 0; i < 4; i++) await defer('create', `new-${i}`);
    expect(await defer('user', 'edited')).toMatchObject({ retryAfterMs: 10_100 });

    // At the slots' time both creates told to come then are back first: one slot stays the edit's.
    await clock.advanceAndSettle(10_100);
    const granted: string[] = [];
    for (const name of ['new-0', 'new-1']) {
      void scheduler
        .acquire('create', undefined, { deadlineMs: 100, sharer: 'team', object: `Alert team/${name}` })
        .then(
          () => granted.push(name),
          () => {},
        );
    }
    await settle();
    expect(granted).toEqual(['new-0']);
    const edit = await scheduler.acquire('user', undefined, {
      deadlineMs: 100,
      sharer: 'team',
      object: 'Alert team/edited',
    });
    expect(edit.waitedMs).toBe(0);
  });

  it("serves an edit's write right after its read when the slots free together, before its namespace's creates", async () => {
    const { clock, scheduler } = scheduledOnManualClock();
    for (let i = 0; i < 10; i++) (await scheduler.acquire('create', undefined, { sharer: 'team' })).release();
    const log: string[] = [];
    for (let i = 0; i < 20; i++) ask(scheduler, 'create', `new-${i}`, log);
    const chain = new CallChain();
    const edit = () =>
      scheduler.acquire('user', undefined, { sharer: 'team', object: 'edited', chain }).then((ticket) => {
        log.push('edited');
        return ticket;
      });
    const read = edit();
    await clock.advanceAndSettle(10_100);
    (await read).release();
    // A busy operator acts on the read's answer 300 ms later.
    await clock.advanceAndSettle(300);
    void edit().then((ticket) => ticket.release());
    await settle();
    chain.end();
    await clock.advanceAndSettle(1);
    expect(log.slice(0, 3)).toEqual(['edited', 'edited', 'new-0']);
    expect(log.filter((name) => name.startsWith('new-'))).toHaveLength(8);
  });

  it("serves another namespace's create in its turn beside a namespace's edits: edits go first only within their namespace", async () => {
    const clock = new ManualClock();
    const scheduler = new QuotaScheduler('k', { requests: 1, windowMs: 1_000, safetyMarginMs: 0 }, clock);
    (await scheduler.acquire('user')).release();
    const log: string[] = [];
    const call = (priority: Priority, sharer: string) =>
      void scheduler.acquire(priority, undefined, { sharer }).then((ticket) => {
        log.push(`${sharer} ${priority}`);
        ticket.release();
      });
    for (let i = 0; i < 4; i++) call('user', 'noisy');
    call('create', 'quiet');
    await clock.advanceAndSettle(10_000);
    expect(log).toEqual(['noisy user', 'quiet create', 'noisy user', 'noisy user', 'noisy user']);
  });

  it('counts creates towards the floor: a waiting poll goes after at most N − 1 of them', async () => {
    const clock = new ManualClock();
    const scheduler = new QuotaScheduler('k', { requests: 3, windowMs: 1_000, safetyMarginMs: 0 }, clock);
    for (let i = 0; i < 3; i++) (await scheduler.acquire('user')).release();
    const log: string[] = [];
    ask(scheduler, 'poll', 'look', log);
    for (let i = 0; i < 4; i++) ask(scheduler, 'create', `new-${i}`, log);
    await clock.advanceAndSettle(5_000);
    expect(log).toEqual(['new-0', 'new-1', 'look', 'new-2', 'new-3']);
  });
});
