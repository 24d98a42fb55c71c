import { createHmac, randomBytes } from 'node:crypto';
import { armableDelay, systemClock, type Clock } from '../clock.ts';

import type { CallChain } from '../base/call-chain.ts';
import { PRIORITIES, type Priority } from '../base/priority.ts';

export { PRIORITIES, type Priority };

/** The time source of the scheduler (structurally the runtime's `Clock`; tests pass a manual one). */
export interface QuotaLimit {
  /** At most this many requests start ... */
  requests: number;
  /** ... in any window of this length. */
  windowMs: number;
  /**
   * Extra time a spent slot stays spent, covering clock skew between this process and the server's counters.
   * Default 100 ms, or 1 % of a window shorter than 10 s, so a scaled-down limit (tests, benchmarks) loses the
   * same share of its budget to the margin as the real one.
   */
  safetyMarginMs?: number;
}

/** The management API's limit: 10 requests per 10 s per key. */
export const MANAGEMENT_QUOTA: QuotaLimit = { requests: 10, windowMs: 10_000, safetyMarginMs: 100 };
/** The alerting API's limit: 100 requests per minute per token. */
export const ALERTING_QUOTA: QuotaLimit = { requests: 100, windowMs: 60_000, safetyMarginMs: 100 };

/** The limit as a scheduler spends it: with the default safety margin unless one is given. */
export function withDefaultMargin(limit: QuotaLimit): Required<QuotaLimit> {
  return { safetyMarginMs: Math.min(100, limit.windowMs / 100), ...limit };
}

/** How a scheduler starts, beyond its limit. */
export interface QuotaStart {
  /**
   * Until this moment (clock time) another process may have spent this key's budget: a predecessor that was
   * restarted or handed over leadership, whose requests the server's window still counts. The scheduler starts
   * with every slot spent at that moment, so its first request waits until a window (+ margin) after it: at
   * most one window, and nothing once that lies in the past. Omitted: the budget starts unspent.
   */
  othersCalledUntil?: number;
}

/** A granted slot. Call `release()` once the request is over (answered, failed or abandoned). */
export interface QuotaTicket {
  /** How long the caller waited for its slot, in ms (0 when one was free). */
  waitedMs: number;
  /** Slots left right after this grant. */
  remaining: number;
  /**
   * The request is over. The slot stays spent for `windowMs + safetyMarginMs` from now, because the server
   * counted it at some moment before now. `sent: false` (the request provably never left, e.g. connection
   * refused) hands the slot back at once. Idempotent.
   */
  release(sent?: boolean): void;
}

interface Waiter {
  priority: Priority;
  sharer: string;
  object?: string | undefined;
  chain?: CallChain | undefined;
  /** It came back for the slot kept for it (see `Claim.anticipated`): others' anticipation does not hold it. */
  anticipated: boolean;
  enqueuedAt: number;
  resolve: (ticket: QuotaTicket) => void;
  detach: () => void;
}

/**
 * The budget would not allow the call within its deadline: nothing was spent or sent. The caller should
 * come back after `retryAfterMs`, when the budget allows it (an estimate; in-flight requests count as
 * finishing now).
 */
export class QuotaDeferral extends Error {
  constructor(
    readonly key: string,
    readonly retryAfterMs: number,
  ) {
    super(`the request budget of ${key} allows no request for about ${Math.ceil(retryAfterMs)} ms`);
    this.name = 'QuotaDeferral';
  }
}

/**
 * A deferred caller's place: while it is due, callers of a lower priority may not take the slot it was
 * promised, so `user` stays ahead of `poll` although the deferred caller holds no place in a queue.
 */
interface Claim {
  priority: Priority;
  sharer: string;
  /** The object whose call it was: only that object's return redeems the claim. */
  object?: string | undefined;
  /** When the budget was estimated to allow the call. */
  at: number;
  /** Unredeemed until then, the claim lapses (the caller went away). */
  until: number;
  /**
   * Kept for the sharer's next call while its last one is in flight and briefly after (see
   * `QuotaScheduler.anticipate`): until then no other sharer it goes before is granted a slot.
   */
  anticipated?: boolean;
}

/** Who asks for a slot: the call's priority, the sharer (namespace) and the object it is made for. */
interface Caller {
  priority: Priority;
  sharer: string;
  /**
   * The object the call is made for (its kind and `namespace/name`): its deferral's claim is its own, so the
   * claims of a namespace's objects add up instead of each cancelling the last.
   */
  object?: string | undefined;
  /** The call redeemed a slot kept for it (see `Claim.anticipated`). */
  anticipated?: boolean;
  /** The reconcile's chain of calls it belongs to: its turn is kept until the chain ends. */
  chain?: CallChain | undefined;
}

const countBySharer = (calls: readonly { sharer: string }[]): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const { sharer } of calls) counts.set(sharer, (counts.get(sharer) ?? 0) + 1);
  return counts;
};

/**
 * Whose turn it is among the sharers of one priority: start-time fair queueing with one unit per call. Each
 * sharer's next call starts at the later of its previous call's finish and the start of the last call
 * served; the waiting sharer whose call starts first is served (the earlier caller on a tie). A sharer with
 * many calls waiting is thus served once per round, as one with a single call, and a sharer that was away
 * starts at the current round, with no credit for the time it asked nothing.
 */
export class FairTurns {
  /** The start of the call served last. */
  private now = 0;
  /** Per sharer, the finish of its last call served; only those still after `now` (others start at `now`). */
  private readonly finishes = new Map<string, number>();

  /** When the sharer's next call starts. */
  start(sharer: string): number {
    return Math.max(this.now, this.finishes.get(sharer) ?? 0);
  }

  /** Of the sharers of the waiting calls (in arrival order), the one to serve next. */
  next(waiting: readonly string[]): string | undefined {
    let best: string | undefined;
    for (const sharer of waiting)
      if (best === undefined || this.start(sharer) < this.start(best)) best = sharer;
    return best;
  }

  /** One call of the sharer was served. */
  served(sharer: string): void {
    this.now = this.start(sharer);
    this.finishes.set(sharer, this.now + 1);
    for (const [other, finish] of this.finishes) if (finish <= this.now) this.finishes.delete(other);
  }

  /**
   * How many of the waiting calls (`waiting`: count per sharer) go before one more call of `sharer`: its own
   * sharer's, and of each other sharer those that start no later than it does.
   */
  ahead(sharer: string, waiting: ReadonlyMap<string, number>): number {
    const own = waiting.get(sharer) ?? 0;
    const mine = this.start(sharer) + own;
    let ahead = own;
    for (const [other, count] of waiting) {
      if (other !== sharer) ahead += Math.min(count, Math.max(0, mine - this.start(other) + 1));
    }
    return ahead;
  }
}

/** How long a change's claim waits for its caller to come back after the estimated time (a poll's: see `claimGraceMs`). */
const CLAIM_GRACE_MS = 2_000;
/**
 * The queues waiting calls are served from, in order: `change` (the `user` and `create` calls, fair between
 * sharers, and within a sharer its `user` calls first) and `poll` (with a floor).
 */
const LANES = ['change', 'poll'] as const;
type Lane = (typeof LANES)[number];
const laneOf = (priority: Priority): Lane => (priority === 'poll' ? 'poll' : 'change');
/** Within a sharer's calls of one lane, the lower goes first: its edits (`user`) before its creates. */
const rankOf = (priority: Priority): number => PRIORITIES.indexOf(priority);
/** The background lane: the one that has a floor. */
const BACKGROUND: Lane = 'poll';
/** The order lanes are served in when the background's floor is owed: it goes first, once. */
const FLOOR_ORDER: readonly Lane[] = [BACKGROUND, ...LANES.filter((lane) => lane !== BACKGROUND)];

/** A spent slot: in flight until `releasedAt` is set, then held for the window after that. */
interface Slot {
  releasedAt: number | undefined;
}

/**
 * Spends one API key's request budget so that a well-behaved process never earns a 429.
 *
 * The server counts requests in FIXED windows (a window opens with the first request and admits N until it
 * ends). A token bucket (capacity N, refill N/W) can start 2N−1 requests inside one such window, so this is a
 * sliding-window scheme instead: there are N slots; a request holds one from the moment it is granted until
 * `windowMs + safetyMarginMs` after it FINISHED. The server saw the request at some moment between grant and
 * finish, so two requests using the same slot reach the server at least W apart, and any interval of length
 * W — in particular every fixed window, whatever its alignment — sees at most N of them. Holding from the
 * finish rather than from the start makes this hold whatever the latency (a cold connection that delays one
 * request by a second cannot squeeze two batches into one server window).
 *
 * Waiting callers are served by lane (changes: `user` and `create`, then `poll`) and, within a lane,
 * fairly between the sharers they call for (the namespaces whose objects make the calls; see `FairTurns`): a
 * sharer with many calls waiting gets its turn as often as one with a single call, never all the slots.
 * Calls of one sharer keep their order within a priority, and in its turn a sharer's edits (`user`) go
 * before its creates: an edit made while a namespace's creates queue goes out with the namespace's next
 * turn, yet a namespace's creates are not held behind another namespace's edits. One scheduler exists per
 * key (see `QuotaRegistry`) and is shared by every client of that key.
 *
 * Background calls have a floor: while a `poll` call asks (waits, or holds a claim after a deferral), at most
 * `userRunLimit` = N − 1 (at least 1) changes (`user`, `create`) are granted in a row; the next slot then
 * goes to the `poll` whose turn it is. So changes go first as a rule, yet polls get at least one slot in N
 * whatever the load of changes: a key kept busy grants N calls per window (+ the latency of the requests in
 * flight), so the poll whose turn it is waits at most about one window, and a sharer's poll one window per
 * poll turn ahead of it.
 *
 * A change is a chain of dependent calls (read, then write), and a sharer asks for the next only once the
 * previous is answered. Slots granted together free together, so without more, the other sharers' backlog
 * would take the rest of a freed burst while the chain's read is in flight, and its write would wait a whole
 * window behind them. So a change granted while another sharer of its lane asks (or, for an edit's read, its
 * own sharer's creates), whose sharer asks nothing more of its priority, keeps the sharer's turn (see
 * `anticipate`): the callers it goes before are not granted until its call is over and the reconcile that
 * made it has ended (its `CallChain`; a window at most), or, for a call of no chain, one slot's share of the
 * window (`holdMs / N`) after. This idles the budget at most that long when the chain ends there; no slot is
 * lost, and the sharer's write follows its read in turn however long the reconcile takes to act on the
 * read's answer, and however long the next slot takes to free: a caller back for its kept turn waits for it
 * (a window at most) rather than be deferred (see `deadlineOf`).
 */
export class QuotaScheduler {
  readonly key: string;
  readonly limit: Required<QuotaLimit>;
  private readonly clock: Clock;
  private slots: Slot[] = [];
  private readonly queues: Record<Lane, Waiter[]> = { change: [], poll: [] };
  private readonly turns: Record<Lane, FairTurns> = { change: new FairTurns(), poll: new FairTurns() };
  private claims: Claim[] = [];
  /** Changes granted since a `poll` was last granted, counted while polls ask (0 when none does). */
  private userRun = 0;
  private pausedUntil = -Infinity;
  private timer: unknown;
  private timerAt = Infinity;

  constructor(key: string, limit: QuotaLimit, clock: Clock = systemClock, start: QuotaStart = {}) {
    if (!(limit.requests >= 1) || !Number.isInteger(limit.requests)) {
      throw new RangeError(`quota requests must be a positive integer, got ${limit.requests}`);
    }
    if (!(limit.windowMs > 0)) throw new RangeError(`quota windowMs must be positive, got ${limit.windowMs}`);
    this.key = key;
    this.limit = withDefaultMargin(limit);
    this.clock = clock;
    const { othersCalledUntil } = start;
    // The server may count up to N requests of the predecessor in a window that ends a window after its last
    // one, whatever that window's alignment: N slots released then hold exactly that long.
    if (othersCalledUntil !== undefined && othersCalledUntil + this.holdMs() > clock.now()) {
      this.slots = Array.from({ length: this.limit.requests }, () => ({ releasedAt: othersCalledUntil }));
    }
  }

  /**
   * Resolves when the caller may start one request; the ticket must be released when it is over. Rejects
   * with the signal's reason if the signal aborts first. With `deadlineMs`, a caller the budget will not
   * serve within that time is not kept waiting: it is rejected with a `QuotaDeferral` saying when to come
   * back (at once when that is already known to be too late, else when the deadline passes). `sharer`
   * names who the call is for (a namespace): the callers of one lane are served fairly between sharers.
   * `object` names the object it is made for: a deferred call's claim is redeemed by that object's return
   * only (without one, by the next call of its priority and sharer that names none).
   */
  acquire(
    priority: Priority = 'user',
    signal?: AbortSignal,
    options: { deadlineMs?: number; sharer?: string; object?: string; chain?: CallChain } = {},
  ): Promise<QuotaTicket> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const { sharer = '', object, chain } = options;
    const now = this.clock.now();
    this.prune(now);
    const asker: Caller = { priority, sharer, object, chain };
    const caller: Caller = { ...asker, anticipated: this.redeemClaim(asker) };
    const deadlineMs = this.deadlineOf(caller, options.deadlineMs);
    // A caller back for its kept turn goes before the waiting calls of the sharers it kept it from.
    const first = this.waiting() === 0 || caller.anticipated;
    if (first && this.canGrant(now, caller)) return Promise.resolve(this.grant(caller, 0));
    if (deadlineMs !== undefined && this.estimate(caller, now) - now > deadlineMs) {
      return Promise.reject(this.defer(caller, now));
    }
    return new Promise<QuotaTicket>((resolve, reject) => {
      const detachers: Array<() => void> = [];
      const waiter: Waiter = {
        priority,
        sharer,
        object,
        chain,
        anticipated: caller.anticipated === true,
        enqueuedAt: now,
        resolve,
        detach: () => detachers.forEach((detach) => detach()),
      };
      const leaveQueue = () => {
        const queue = this.queues[laneOf(priority)];
        const index = queue.indexOf(waiter);
        if (index >= 0) queue.splice(index, 1);
      };
      const leave = (reason: unknown) => {
        waiter.detach();
        leaveQueue();
        reject(reason);
        this.schedule();
      };
      if (signal) {
        const onAbort = () => leave(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        detachers.push(() => signal.removeEventListener('abort', onAbort));
      }
      if (deadlineMs !== undefined) {
        const timer = this.clock.setTimeout(() => {
          leaveQueue(); // first, so the estimate does not count the caller as ahead of itself
          leave(this.defer(caller, this.clock.now()));
        }, deadlineMs);
        detachers.push(() => this.clock.clearTimeout(timer));
      }
      this.queues[laneOf(priority)].push(waiter);
      this.pump();
    });
  }

  /**
   * How long `caller` may wait before it is deferred. A caller back for its kept turn (a reconcile's write
   * after its read) waits for the next slot, a window at most, whatever its deadline: a deferral would end its
   * reconcile, whose retry spends the slot kept for it on the read again while the others' backlog takes the
   * slots in between; where slots free together, a window apart, its write would never be made.
   */
  private deadlineOf(caller: Caller, deadlineMs: number | undefined): number | undefined {
    if (deadlineMs === undefined || !caller.anticipated) return deadlineMs;
    return Math.max(deadlineMs, this.holdMs());
  }

  /** Slots that could be granted right now. */
  remaining(): number {
    const now = this.clock.now();
    this.prune(now);
    if (now < this.pausedUntil) return 0;
    return Math.max(0, this.limit.requests - this.slots.length);
  }

  /**
   * Nothing spent counts any more and nobody waits or holds a claim: a new scheduler for the key would
   * behave exactly as this one, so it can be dropped.
   */
  idle(): boolean {
    const now = this.clock.now();
    this.prune(now);
    return (
      this.slots.length === 0 && this.waiting() === 0 && this.claims.length === 0 && now >= this.pausedUntil
    );
  }

  /** Requests granted and not yet released. */
  inFlight(): number {
    return this.slots.filter((slot) => slot.releasedAt === undefined).length;
  }

  /** Callers waiting, per priority. */
  pending(): Record<Priority, number> {
    const count = (p: Priority) => this.queues[laneOf(p)].filter((waiter) => waiter.priority === p).length;
    return Object.fromEntries(PRIORITIES.map((p) => [p, count(p)])) as Record<Priority, number>;
  }

  /**
   * The server said 429 anyway (another process uses the same key, or the limit is lower than configured):
   * grant nothing for `delayMs`.
   */
  pause(delayMs: number): void {
    const until = this.clock.now() + Math.max(0, delayMs);
    if (until <= this.pausedUntil) return;
    this.pausedUntil = until;
    this.schedule();
  }

  /**
   * When the budget could serve one more call of `caller`: every slot frees `windowMs + margin` after it was
   * released (in-flight ones are taken as finishing now), and the calls waiting or claimed ahead of it go
   * first: all of a higher priority, and of its own those whose sharers' turns come first.
   */
  private estimate(caller: Caller, now: number): number {
    const hold = this.holdMs();
    const free = this.slots.map((slot) => (slot.releasedAt ?? now) + hold);
    while (free.length < this.limit.requests) free.push(now);
    free.sort((a, b) => a - b);
    const ahead = this.ahead(caller);
    const round = Math.floor(ahead / this.limit.requests);
    return Math.max(this.pausedUntil, free[ahead % this.limit.requests]! + round * hold);
  }

  /**
   * How many waiting or claimed calls go before one more call of `caller`. Of its own lane, those whose
   * sharers' turns come first (of its own sharer, those of its priority or before: an edit does not count
   * its namespace's creates); of the other, what the floor lets through first: changes until the run reaches
   * its limit before each poll, and a poll after each full run of changes.
   */
  private ahead({ priority, sharer }: Caller): number {
    const lane = laneOf(priority);
    const before = this.asking(lane).filter(
      (call) => call.sharer !== sharer || rankOf(call.priority) <= rankOf(priority),
    );
    const ownTurns = this.turns[lane].ahead(sharer, countBySharer(before));
    const limit = this.userRunLimit();
    const untilFloor = Math.max(0, limit - this.userRun);
    if (lane === BACKGROUND) {
      const changes = LANES.filter((l) => l !== BACKGROUND).reduce((n, l) => n + this.asking(l).length, 0);
      return ownTurns + Math.min(changes, untilFloor + ownTurns * limit);
    }
    const polls = this.asking(BACKGROUND).length;
    const floors = ownTurns < untilFloor ? 0 : 1 + Math.floor((ownTurns - untilFloor) / limit);
    return ownTurns + Math.min(polls, floors);
  }

  /** The calls of a lane that wait or hold a claim. */
  private asking(lane: Lane): Array<{ priority: Priority; sharer: string }> {
    return [...this.queues[lane], ...this.claims.filter((claim) => laneOf(claim.priority) === lane)];
  }

  /**
   * How long a claim waits for its caller: a user call's a short grace (once lapsed, it still goes first), a
   * poll's a window, as a slot the floor keeps for it would otherwise go back to user calls whenever a busy
   * process brings the poll back late, and with the slots freeing together, the poll would never find one.
   */
  private claimGraceMs(priority: Priority): number {
    return laneOf(priority) === BACKGROUND ? this.holdMs() : CLAIM_GRACE_MS;
  }

  /** Changes granted in a row while polls ask, before a poll goes first: N − 1, at least 1. */
  private userRunLimit(): number {
    return Math.max(1, this.limit.requests - 1);
  }

  /** A poll asks: one waits or holds a claim. */
  private pollsAsk(): boolean {
    return this.asking(BACKGROUND).length > 0;
  }

  /** The order lanes are served in now: changes first, unless the floor owes the background a slot. */
  private order(): readonly Lane[] {
    return this.userRun >= this.userRunLimit() ? FLOOR_ORDER : LANES;
  }

  private defer(caller: Caller, now: number): QuotaDeferral {
    const at = Math.max(now, this.estimate(caller, now));
    const { priority, sharer, object } = caller;
    this.claims.push({ priority, sharer, object, at, until: at + this.claimGraceMs(priority) });
    this.schedule();
    return new QuotaDeferral(this.key, at - now);
  }

  /**
   * A deferred or anticipated caller of this priority, sharer and object is back: its claim has done its job.
   * True when the claim was a slot kept by anticipation. A named object back at another priority (a poll
   * deferred, then the user's edit) drops the claims it was deferred with: nobody would redeem them, yet each
   * would count ahead of the others of its lane, and a poll's hold the floor's slot, for a whole window.
   */
  private redeemClaim({ priority, sharer, object }: Caller): boolean {
    const index = this.claims.findIndex(
      (claim) => claim.priority === priority && claim.sharer === sharer && claim.object === object,
    );
    const claim = index < 0 ? undefined : this.claims.splice(index, 1)[0];
    if (object !== undefined) {
      this.claims = this.claims.filter(
        (other) =>
          other.anticipated ||
          other.priority === priority ||
          other.sharer !== sharer ||
          other.object !== object,
      );
    }
    return claim?.anticipated === true;
  }

  /**
   * Keeps the sharer's turn for its next call when it asks nothing more of its priority or before, and
   * another sharer of its lane asks, or its own calls of a later priority do (an edit's write then goes
   * before the creates its read was granted ahead of): a claim that holds the slots from the callers it goes
   * before while the call is in flight (returned `settle`, called on release, starts the grace). A call of a
   * chain keeps the turn until the chain ends, a window at most: the reconcile asks for its write once it has
   * acted on the read's answer, which on a busy machine takes longer than any fixed grace. A call of no chain
   * keeps it one slot's share of the window.
   */
  private anticipate({ priority, sharer, object, chain }: Caller): ((now: number) => void) | undefined {
    if (laneOf(priority) === BACKGROUND) return undefined;
    const asking = this.asking(laneOf(priority));
    const own = asking.filter((other) => other.sharer === sharer);
    if (own.some((other) => rankOf(other.priority) <= rankOf(priority))) return undefined;
    if (own.length === 0 && !asking.some((other) => other.sharer !== sharer)) return undefined;
    const claim: Claim = {
      priority,
      sharer,
      object,
      at: this.clock.now(),
      until: Infinity,
      anticipated: true,
    };
    this.claims.push(claim);
    let released = false;
    chain?.onEnd(() => {
      // The chain asks nothing more: the turn it kept goes to the others at once.
      if (released && this.claims.includes(claim)) {
        claim.until = this.clock.now();
        this.prune(claim.until);
        this.pump();
      }
    });
    return (now) => {
      released = true;
      if (!chain) claim.until = now + this.holdMs() / this.limit.requests;
      else claim.until = chain.ended ? now : now + this.holdMs();
    };
  }

  private grant(caller: Caller, waitedMs: number): QuotaTicket {
    this.turns[laneOf(caller.priority)].served(caller.sharer);
    this.userRun = laneOf(caller.priority) !== BACKGROUND && this.pollsAsk() ? this.userRun + 1 : 0;
    const slot: Slot = { releasedAt: undefined };
    this.slots.push(slot);
    const anticipation = this.anticipate(caller);
    let released = false;
    return {
      waitedMs,
      remaining: Math.max(0, this.limit.requests - this.slots.length),
      release: (sent = true) => {
        if (released) return;
        released = true;
        const now = this.clock.now();
        if (sent) slot.releasedAt = now;
        else this.slots = this.slots.filter((s) => s !== slot);
        anticipation?.(now);
        this.pump();
      },
    };
  }

  private waiting(): number {
    return LANES.reduce((n, lane) => n + this.queues[lane].length, 0);
  }

  private holdMs(): number {
    return this.limit.windowMs + this.limit.safetyMarginMs;
  }

  private prune(now: number): void {
    if (this.claims.some((claim) => claim.until <= now)) {
      this.claims = this.claims.filter((claim) => claim.until > now);
    }
    const hold = this.holdMs();
    if (this.slots.some((slot) => slot.releasedAt !== undefined && slot.releasedAt + hold <= now)) {
      this.slots = this.slots.filter((slot) => slot.releasedAt === undefined || slot.releasedAt + hold > now);
    }
  }

  /**
   * A slot is free for `caller`, counting those promised to due claims that go before it as taken, and none
   * while another sharer that goes before it keeps its turn (unless the caller came back for a kept turn too).
   */
  private canGrant(now: number, caller: Caller): boolean {
    const before = this.claims.filter((claim) => claim.at <= now && this.goesBefore(claim, caller));
    if (!caller.anticipated && before.some((claim) => claim.anticipated)) return false;
    return now >= this.pausedUntil && this.slots.length + before.length < this.limit.requests;
  }

  /**
   * A claim keeps its slot from callers of a lane served after its own (see `order`), of its own from sharers
   * whose turn is later, and of its own sharer from calls of a later priority (an edit's from its creates).
   */
  private goesBefore(claim: Claim, caller: Caller): boolean {
    const lane = laneOf(caller.priority);
    if (laneOf(claim.priority) !== lane) {
      const order = this.order();
      return order.indexOf(laneOf(claim.priority)) < order.indexOf(lane);
    }
    if (claim.sharer === caller.sharer) return rankOf(claim.priority) < rankOf(caller.priority);
    const turns = this.turns[lane];
    // A kept turn was just served: the sharer's next call starts with, not after, the others' next.
    if (claim.anticipated) return turns.start(claim.sharer) <= turns.start(caller.sharer);
    return turns.start(claim.sharer) < turns.start(caller.sharer);
  }

  /**
   * The waiter to serve next: of the first lane waiting (see `order`), one back for its kept turn, else of
   * the sharer whose turn it is the first of its first priority (its edits before its creates).
   */
  private nextWaiter(): Waiter | undefined {
    const lane = this.order().find((l) => this.queues[l].length > 0);
    if (!lane) return undefined;
    const queue = this.queues[lane];
    const kept = queue.find((waiter) => waiter.anticipated);
    if (kept) return kept;
    const sharer = this.turns[lane].next(queue.map((waiter) => waiter.sharer));
    let next: Waiter | undefined;
    for (const waiter of queue) {
      if (waiter.sharer !== sharer) continue;
      if (!next || rankOf(waiter.priority) < rankOf(next.priority)) next = waiter;
    }
    return next;
  }

  private pump(): void {
    const now = this.clock.now();
    this.prune(now);
    for (let waiter = this.nextWaiter(); waiter && this.canGrant(now, waiter); waiter = this.nextWaiter()) {
      const queue = this.queues[laneOf(waiter.priority)];
      queue.splice(queue.indexOf(waiter), 1);
      waiter.detach();
      waiter.resolve(this.grant(waiter, now - waiter.enqueuedAt));
    }
    this.schedule();
  }

  /**
   * One timer, set for the moment the next waiter can be served: when a pause ends, a released slot's hold
   * runs out or a claim in its way lapses. None while every slot is in flight: a release() will pump.
   */
  private schedule(): void {
    const waiter = this.nextWaiter();
    if (!waiter) {
      this.clearTimer();
      return;
    }
    const now = this.clock.now();
    let at = Infinity;
    if (now < this.pausedUntil) at = this.pausedUntil;
    else if (this.canGrant(now, waiter)) at = now;
    else {
      for (const slot of this.slots) {
        if (slot.releasedAt !== undefined) at = Math.min(at, slot.releasedAt + this.holdMs());
      }
      for (const claim of this.claims) {
        if (claim.at <= now && this.goesBefore(claim, waiter)) at = Math.min(at, claim.until);
      }
    }
    if (at === Infinity) {
      this.clearTimer();
      return;
    }
    at = Math.max(at, now);
    if (this.timer !== undefined && this.timerAt === at) return;
    this.clearTimer();
    this.timerAt = at;
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Infinity;
        this.pump();
      },
      armableDelay(at - now),
    );
  }

  private clearTimer(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }
}

/**
 * One scheduler per key, shared by every client of that key in the process (several controllers spend one
 * budget). The first registration of a key fixes its limit.
 */
export class QuotaRegistry {
  private readonly schedulers = new Map<string, QuotaScheduler>();

  /**
   * `start(key)` is asked when a key's scheduler is created (a key first used an hour after the process
   * started inherits nothing from a predecessor any more).
   */
  constructor(
    private readonly clock: Clock = systemClock,
    private readonly start: (key: string) => QuotaStart = () => ({}),
  ) {}

  get(key: string, limit: QuotaLimit): QuotaScheduler {
    let scheduler = this.schedulers.get(key);
    if (!scheduler) {
      scheduler = new QuotaScheduler(key, limit, this.clock, this.start(key));
      this.schedulers.set(key, scheduler);
    }
    return scheduler;
  }

  keys(): string[] {
    return [...this.schedulers.keys()];
  }

  /**
   * Drops the key's scheduler if it is idle (see `QuotaScheduler.idle`); true when it is gone. A busy one is
   * kept: what it spent still counts in the server's window, and a fresh scheduler would not know it.
   */
  dropIfIdle(key: string): boolean {
    const scheduler = this.schedulers.get(key);
    if (scheduler && !scheduler.idle()) return false;
    this.schedulers.delete(key);
    return true;
  }

  clear(): void {
    this.schedulers.clear();
  }
}

/**
 * The scheduler a client spends: none for `false`, the one given, else its key's in `registry` (created with
 * the given limit, or the API's `published` one).
 */
export function schedulerFor(
  choice: QuotaLimit | QuotaScheduler | false | undefined,
  registry: QuotaRegistry,
  key: string,
  published: QuotaLimit,
): QuotaScheduler | undefined {
  if (choice === false) return undefined;
  if (choice instanceof QuotaScheduler) return choice;
  return registry.get(key, choice ?? published);
}

/** The process-wide registry clients use unless given another. */
export const defaultQuotaRegistry = new QuotaRegistry();

/** The API a key made by `quotaKey` budgets (`management`, `alerting`). */
export const apiOfQuotaKey = (key: string): string => key.slice(0, key.indexOf(' '));

/** Keys the digests in budget keys: random per process, so a digest in a metric or log reveals nothing. */
const BUDGET_DIGEST_KEY = randomBytes(32);
const digestOf = (...parts: string[]) =>
  createHmac('sha256', BUDGET_DIGEST_KEY).update(JSON.stringify(parts)).digest('hex').slice(0, 16);

/**
 * How a command's budgets start when it may share a key with a busy operator, whose requests of the last
 * window the server still counts: the management budget as spent now (its first request waits one window at
 * most), so no 429 is earned. The alerting budget (100 a minute) is rarely spent, and its minute not worth
 * waiting out.
 */
export const managementSpentNow = (key: string): QuotaStart =>
  apiOfQuotaKey(key) === 'management' ? { othersCalledUntil: performance.now() } : {};

/**
 * The registry key of a budget: the API, its base URL and the credentials the calls are made with. A key id
 * is no secret (it is the Basic user name), so the budget follows a keyed digest of id AND secret: a Secret
 * with someone else's key id and a wrong secret gets a budget of its own and can never spend theirs. Bearer
 * tokens are digested too (keys end up in metrics labels and logs).
 */
export function quotaKey(
  api: string,
  baseUrl: string,
  identity: { keyId: string; keySecret: string } | { token: string },
): string {
  const who =
    'keyId' in identity
      ? `${identity.keyId} hmac:${digestOf(identity.keyId, identity.keySecret)}`
      : `token-hmac:${digestOf(identity.token)}`;
  return `${api} ${new URL(baseUrl).origin} ${who}`;
}
