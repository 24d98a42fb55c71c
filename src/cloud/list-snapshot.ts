import { shareStrings } from '../base/shared-strings.ts';
import { nextSlice, overSlice } from '../base/slices.ts';
import type { CallOptions } from './request-types.ts';

/** The clock a snapshot ages by: milliseconds, only differences matter. */
export interface SnapshotClock {
  now(): number;
}

/**
 * What a snapshot shares with the other snapshots of its key: one object for all of them, so a key with a
 * pipes and an endpoints list per service holds no per-snapshot copy of these (thousands of services).
 */
export interface SnapshotHooks {
  clock: SnapshotClock;
  /** Called after a list with the ids whose entry was added, changed or removed since it was last known. */
  onChange?(ids: string[]): void;
}

/**
 * What the cloud was last seen to hold for one id, and when that was known: for a listed entry when the
 * list STARTED (anything that changed later may be missing from it), for a written one when the write's
 * answer came. `value` undefined: written, but the answer was not the whole object (a stale entry), or,
 * with `gone`, a GET found nothing.
 */
interface Entry<T> {
  value: T | undefined;
  knownAt: number;
  gone?: true;
}

/**
 * The last result of one cloud list, shared by every object read from it: an object is observed from
 * here when the snapshot is fresh enough for what it is doing, and every reader that needs a newer one
 * while a list is in flight shares that one call. A write is never undone by a list that started before it.
 */
export class CloudSnapshot<T extends { id: string }> {
  private readonly entries = new Map<string, Entry<T>>();
  /** When the last completed list started; undefined before the first. */
  private takenAt: number | undefined;
  /** The list in flight, and whether it is a user's change's own call (`read` with a `user` reader). */
  private inflight: { startedAt: number; done: Promise<void>; forChange: boolean } | undefined;

  /**
   * `list`: one call that lists every entry (the organization's services, one service's pipes, …), sent as
   * `call`: a user's change's own read, or the shared background list (`BACKGROUND_LIST`).
   */
  constructor(
    private readonly list: (call: CallOptions) => Promise<T[]>,
    private readonly hooks: SnapshotHooks,
  ) {}

  /** How old the last completed list is (ms), or undefined before the first. */
  ageMs(): number | undefined {
    return this.takenAt === undefined ? undefined : this.hooks.clock.now() - this.takenAt;
  }

  /** Whether the last list (or a write or GET since) showed `id` existing. */
  knows(id: string): boolean {
    return this.entries.get(id)?.value !== undefined;
  }

  /**
   * The entry for `id` as known no longer than `maxAgeMs` ago, listing again when it is not. An id a fresh
   * list lacks (or one written since without a whole answer) is decided by `confirm`, one GET: a list and a
   * write race, so a missing entry is no proof the object is gone. Undefined when the GET finds nothing.
   * `maxAgeMs` 0 accepts no snapshot at all: one GET. `reader`: the reader's client; a user's change that
   * needs a newer list sends it as its own read, at its priority, rather than wait for a background list
   * queued behind every other change (a namespace's creates).
   */
  async read(
    id: string,
    maxAgeMs: number,
    confirm: () => Promise<T | undefined>,
    reader?: ListReader,
  ): Promise<T | undefined> {
    // No age accepted (a reconcile the user asked for): a fresh read of this object, never a listed one.
    if (maxAgeMs <= 0) return this.confirmed(id, confirm);
    if (!this.listedSince(this.oldestAccepted(maxAgeMs))) {
      const entry = this.entries.get(id);
      if ((entry?.value || entry?.gone) && entry.knownAt >= this.oldestAccepted(maxAgeMs)) return entry.value;
      await this.refresh(maxAgeMs, changeReadOf(reader));
    }
    const entry = this.entries.get(id);
    // Listed, written with a whole answer, or confirmed gone since the list: no GET needed.
    if (entry?.value || entry?.gone) return entry.value;
    return this.confirmed(id, confirm);
  }

  /** One GET of `id`, kept as what is known of it from when the GET started. */
  private async confirmed(id: string, confirm: () => Promise<T | undefined>): Promise<T | undefined> {
    const startedAt = this.hooks.clock.now();
    const found = await confirm();
    this.record(id, found, startedAt);
    return found;
  }

  /**
   * Every object the snapshot knows, from a list that started no earlier than `maxAgeMs` ago (listing again
   * when there is none), with the whole answers of writes since: what a crash-safe create searches.
   */
  async all(maxAgeMs: number): Promise<T[]> {
    await this.refresh(maxAgeMs);
    return [...this.entries.values()].flatMap((entry) => (entry.value ? [entry.value] : []));
  }

  /**
   * A write to `id` was answered (or failed: it may still have been applied): the entry becomes the answer
   * when that is the whole object, else stale until a list that starts after now.
   */
  written(id: string, answer?: T): void {
    this.entries.set(id, {
      value: answer?.id === id ? shareStrings(answer) : undefined,
      knownAt: this.hooks.clock.now(),
    });
  }

  /**
   * Lists again unless a list that started no earlier than `maxAgeMs` ago is done or in flight. `change`:
   * a user's change's own call, which joins only another change's list in flight (a background one may
   * wait behind every change queued for the budget) and waits for none that started too early.
   */
  async refresh(maxAgeMs: number, change?: CallOptions): Promise<void> {
    const oldest = this.oldestAccepted(maxAgeMs);
    // A list in flight that started too early would miss what this reader needs: let it end first.
    while (!change && this.inflight && this.inflight.startedAt < oldest) {
      await this.inflight.done.catch(() => undefined);
    }
    if (this.listedSince(oldest)) return;
    const inflight = this.inflight;
    if (inflight && inflight.startedAt >= oldest && (!change || inflight.forChange)) return inflight.done;
    const startedAt = this.hooks.clock.now();
    const done = this.list(change ?? BACKGROUND_LIST)
      .then((listed) => this.apply(listed, startedAt))
      .finally(() => {
        if (this.inflight?.done === done) this.inflight = undefined;
      });
    this.inflight = { startedAt, done, forChange: change !== undefined };
    return done;
  }

  private oldestAccepted(maxAgeMs: number): number {
    return this.hooks.clock.now() - maxAgeMs;
  }

  private listedSince(time: number): boolean {
    return this.takenAt !== undefined && this.takenAt >= time;
  }

  /** A GET's answer (undefined: not found) for `id`, unless a write or list since told more. */
  private record(id: string, value: T | undefined, startedAt: number): void {
    const entry = this.entries.get(id);
    if (entry && entry.knownAt > startedAt) return;
    this.entries.set(
      id,
      value ? { value: shareStrings(value), knownAt: startedAt } : { value, knownAt: startedAt, gone: true },
    );
  }

  /**
   * A list's answer, compared entry by entry with what is known; a thousand entries take their turns with
   * the rest of the event loop (readers wait for the whole, as for the list itself: `inflight`).
   */
  private async apply(listed: readonly T[], startedAt: number): Promise<void> {
    const first = this.takenAt === undefined;
    const changed: string[] = [];
    const seen = new Set<string>();
    for (const value of listed) {
      seen.add(value.id);
      const entry = this.entries.get(value.id);
      // Written after this list started: the write's answer is newer than anything the list says.
      if (entry && entry.knownAt > startedAt) continue;
      // The first list reports only what was known before it; every later one reports additions too.
      const news = entry && !entry.gone ? !entry.value || !sameValue(entry.value, value) : !first;
      if (news) changed.push(value.id);
      // An unchanged entry keeps the value it holds, only known later: the listed copy dies young, so a
      // key listed every few seconds does not churn thousands of long-lived objects through the old heap.
      if (entry?.value && !news) entry.knownAt = startedAt;
      else this.entries.set(value.id, { value: shareStrings(value), knownAt: startedAt });
      if (overSlice()) await nextSlice();
    }
    for (const [id, entry] of this.entries) {
      if (seen.has(id) || entry.knownAt > startedAt) continue;
      this.entries.delete(id);
      if (!entry.gone) changed.push(id);
    }
    this.takenAt = Math.max(this.takenAt ?? startedAt, startedAt);
    if (changed.length > 0) this.hooks.onChange?.(changed);
  }
}

/**
 * How a list goes unless a user's change needs it: shared by many objects, it is a background read, behind
 * people's changes.
 */
const BACKGROUND_LIST: CallOptions = { priority: 'poll' };

/** How a reader's own reads are made (`CloudClient.readCall`): asked only when it needs a new list. */
export interface ListReader {
  readCall(): CallOptions;
}

/** The reader's read when it is a user's change's (`user` priority); else none: it shares the background list. */
function changeReadOf(reader: ListReader | undefined): CallOptions | undefined {
  const call = reader?.readCall();
  return call?.priority === 'user' ? call : undefined;
}

/** Equal as data, whatever the order of object keys. */
export function sameValue(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}
