import { exponentialStep } from '../base/backoff.ts';
import { objectKey } from '../kube/cache.ts';
import { DURATION_BOUNDS, durationProblem, formatDuration, tryParseDurationMs } from '../base/duration.ts';
import { ANNOTATIONS } from './annotations.ts';
import type { EventNote } from './events.ts';
import { SettleEstimate } from './settle-estimate.ts';
import { timing } from '../base/timings.ts';
import { recordedAnnotation } from './status-bounds.ts';
import { credentialsKeyOf } from './managed-object.ts';
import type { ManagedObject } from './types.ts';
import { REASON } from '../base/reasons.ts';

/**
 * The earliest first look of a wait for the cloud, however fast the cloud settled before: a look sooner
 * than this mostly finds the cloud where the write left it.
 */
export const FIRST_LOOK_FLOOR_MS = 250;

/** The clock of a missing reference: how long it has been missing, and may still be on its way. */
export interface MissingClock {
  /** How long it may still be on its way (`Pacing.arrivalGraceLeft`). */
  arrivalGraceMs: number;
  /** Since when this process has seen it missing (undefined: not before this look). */
  missingSince: number | undefined;
  /** Now (ms), on the clock pacing measures by. */
  nowMs: number;
}

export interface PacingOptions {
  /** Drift-check interval for resources that are in sync (`--sync-interval`). */
  syncIntervalMs: number;
  /** The shortest interval a resource may be drift-checked at (its namespace's share of a shared key). */
  driftFloorMs?(resource: ManagedObject): number;
  /**
   * The wait between looks while the cloud is still moving, doubled by each look, up to the max. The first
   * look of a wait starts here and then follows how long the cloud took to settle (`SettleEstimate`).
   */
  pollIntervalMs: number;
  maxPollIntervalMs?: number;
  now: () => Date;
}

/**
 * An interval read for a resource, in ms, with the Warning its `sluice.dev/sync-interval` annotation gets
 * when it was set aside: the reconcile's executor records it.
 */
export interface Paced {
  ms: number;
  warning?: EventNote;
}

/**
 * A resource's drift-check interval: its `sluice.dev/sync-interval` annotation within bounds, else
 * `fallbackMs` (`--sync-interval`), with the problem when an annotation was set aside.
 */
export function syncIntervalOf(
  resource: ManagedObject,
  fallbackMs: number,
): { ms: number; problem?: string } {
  const text = resource.metadata.annotations?.[ANNOTATIONS.syncInterval];
  if (text === undefined) return { ms: fallbackMs };
  const problem = durationProblem(text, DURATION_BOUNDS.syncInterval);
  if (problem !== undefined)
    return { ms: fallbackMs, problem: `annotation ${ANNOTATIONS.syncInterval} ${problem}` };
  return { ms: tryParseDurationMs(text)! };
}

/** One wait for the cloud, from the write (or look) that started it: what the settle estimate learns from. */
interface CloudWait {
  startedAt: number;
  /** Looks so far, the one that started the wait included: every later one found the cloud still moving. */
  looks: number;
  /** When the wait last looked at (or wrote to) the cloud: a look after it needs a list started since. */
  lookedAt: number;
  /** What the wait teaches: the settle estimate of the credentials it was made with. */
  settle: SettleEstimate;
}

/** When a resource is looked at again: soon while the cloud moves, after its sync interval once in sync. */
export class Pacing {
  private readonly cloudWaits = new Map<string, CloudWait>();
  /** key → when the first of its reconciles whose call the quota deferred began (none sent since). */
  private readonly deferrals = new Map<string, number>();
  /** Since when (this process's clock) each resource's reference has found no object. */
  private readonly referencesMissing = new Map<string, number>();
  /**
   * key → the reconcile request (`recordedAnnotation`) this process has read afresh for: its status may not
   * show it handled (an admission rule refused the write), and every later reconcile must not read afresh again.
   */
  private readonly requestsRead = new Map<string, string>();
  /** Per credentials (`credentialsKeyOf`): how long their cloud lately took to settle. */
  private readonly settles = new Map<string, SettleEstimate>();
  private readonly maxPollIntervalMs: number;

  constructor(private readonly options: PacingOptions) {
    this.maxPollIntervalMs = options.maxPollIntervalMs ?? timing.maxPollIntervalMs;
  }

  private settleFor(resource: ManagedObject): SettleEstimate {
    // One tenant's slow cloud must not move another's first look.
    const credentials = credentialsKeyOf(resource);
    let settle = this.settles.get(credentials);
    if (!settle) {
      const { pollIntervalMs } = this.options;
      const floorMs = Math.min(FIRST_LOOK_FLOOR_MS, pollIntervalMs);
      settle = new SettleEstimate(pollIntervalMs, floorMs, this.maxPollIntervalMs);
      this.settles.set(credentials, settle);
    }
    return settle;
  }

  /**
   * The next look at a resource the cloud is moving for. The first look of a wait goes out when the cloud
   * has lately taken to settle (the poll interval until a wait has ended); each later one after the poll
   * interval, doubled by each look so far, up to the cap (2, 4, 8, 16, 30 s with a 2 s poll interval). Its
   * reads share snapshots, but a service's pipes or endpoints are one list per service and a query endpoint
   * one GET: a fixed interval would spend a call per poll on each of them for as long as the cloud moves. A
   * wake between polls (a list or a referenced object changed) is a look too: it read the cloud, so the next
   * poll moves out.
   */
  waitForCloud(resource: ManagedObject): number {
    const now = this.nowMs();
    const key = objectKey(resource);
    const wait = this.cloudWaits.get(key);
    if (!wait) {
      const settle = this.settleFor(resource);
      this.cloudWaits.set(key, { startedAt: now, looks: 1, lookedAt: now, settle });
      return settle.firstLookMs();
    }
    const step = exponentialStep(this.options.pollIntervalMs, this.maxPollIntervalMs, wait.looks);
    wait.looks += 1;
    wait.lookedAt = now;
    return step;
  }

  /**
   * The wait for the cloud is over for `key` (in sync, waiting on something else, or gone); `settled`: the
   * cloud was seen settled and in sync, so the wait tells how long the cloud took.
   */
  endCloudWait(key: string, settled = false): void {
    const wait = this.cloudWaits.get(key);
    if (!wait) return;
    this.cloudWaits.delete(key);
    if (!settled) return;
    // The last look before this one found the cloud still moving, unless the only one was the wait's start.
    const movingAt = wait.looks > 1 ? wait.lookedAt - wait.startedAt : undefined;
    wait.settle.learn(this.nowMs() - wait.startedAt, movingAt);
  }

  /**
   * How old a cloud snapshot may be to observe the resource, by what it is doing: a drift check (Ready, spec
   * acted on) accepts one as old as its sync interval; a spec its user just changed the poll interval (the
   * operator's own writes replace snapshot entries, so an older snapshot never makes it send a change
   * again); a wait for the cloud only one taken since its last look, and at most the poll interval old (an
   * older one would show what that look saw); a reconcile its user asked for, none: a fresh read. A deletion
   * acts on what it reads (a stop, a DELETE): its first look reads afresh, its waits like any other wait.
   * A drift check's comes with the Warning its sync interval's annotation gets (`syncInterval`).
   */
  freshness(resource: ManagedObject, key = objectKey(resource)): Paced {
    const { ms, warning } = this.freshnessOf(resource, key);
    // Back for a call the quota deferred: what the deferred reconcile read is still good enough. Reading it
    // again would spend the budget the call waits for; under contention no call would ever go out. It read
    // a snapshot up to `ms` old when it began, older now by the time since: a list taken before it began
    // still counts, or a change would wait for a new list (a poll's call, queued behind others' creates).
    const deferredAt = this.deferrals.get(key);
    const paced = deferredAt === undefined ? ms : Math.max(1, ms + this.nowMs() - deferredAt);
    return { ms: paced, ...(warning ? { warning } : {}) };
  }

  /** A reconcile that began at `lookedAt` had a call deferred by the quota; a chain keeps its first. */
  deferred(key: string, lookedAt: number): void {
    if (!this.deferrals.has(key)) this.deferrals.set(key, lookedAt);
  }

  /** The clock of the resource's missing reference, read at once (`key`: the resource's). */
  missingClock(resource: ManagedObject, key: string): MissingClock {
    return {
      arrivalGraceMs: this.arrivalGraceLeft(resource),
      missingSince: this.referencesMissing.get(key),
      nowMs: this.nowMs(),
    };
  }

  /** The resource's reference found no object at `at` (ms), its first look that did: later ones measure from it. */
  referenceMissing(key: string, at: number): void {
    if (!this.referencesMissing.has(key)) this.referencesMissing.set(key, at);
  }

  referenceFound(key: string): void {
    this.referencesMissing.delete(key);
  }

  /** A reconcile of `key` ended otherwise than deferred: its next one reads as fresh as it needs again. */
  endDeferral(key: string): void {
    this.deferrals.delete(key);
  }

  /** `freshness` before a deferral: `key` is the resource's. */
  private freshnessOf(resource: ManagedObject, key: string): Paced {
    // A reconcile the user asked for (a new sluice.dev/reconcile-requested-at) reads the cloud afresh.
    if (this.freshReadRequested(resource, key)) return { ms: 0 };
    const wait = this.cloudWaits.get(key);
    if (resource.metadata.deletionTimestamp) return { ms: wait ? this.sinceLastLook(wait) : 0 };
    const ready = resource.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    const acted = resource.metadata.generation === resource.status?.observedGeneration;
    if (ready && acted) return this.syncInterval(resource);
    const { pollIntervalMs } = this.options;
    if (!acted) return { ms: pollIntervalMs };
    return { ms: wait ? this.sinceLastLook(wait) : pollIntervalMs };
  }

  /**
   * A reconcile request (`sluice.dev/reconcile-requested-at`) neither status shows handled nor this process
   * has read afresh for; true once, so a request whose handling status cannot record is honoured once too.
   */
  private freshReadRequested(resource: ManagedObject, key: string): boolean {
    const requested = resource.metadata.annotations?.[ANNOTATIONS.reconcileRequestedAt];
    const recorded = requested === undefined ? undefined : recordedAnnotation(requested);
    if (recorded === undefined || recorded === resource.status?.lastHandledReconcileAt) {
      this.requestsRead.delete(key);
      return false;
    }
    if (this.requestsRead.get(key) === recorded) return false;
    this.requestsRead.set(key, recorded);
    return true;
  }

  /**
   * A waiting object's snapshot age: one taken since its last look, at most the poll interval old. At least
   * 1 ms: an age of 0 asks for a fresh GET, which a wait for the cloud never needs.
   */
  private sinceLastLook(wait: CloudWait): number {
    return Math.max(1, Math.min(this.options.pollIntervalMs, this.nowMs() - wait.lookedAt));
  }

  private nowMs(): number {
    return this.options.now().getTime();
  }

  /**
   * The resource's drift-check interval (`syncIntervalOf`), no shorter than the floor its namespace is paced
   * to; an annotation set aside comes with the Warning Event that says so, for the reconcile to record.
   */
  syncInterval(resource: ManagedObject): Paced {
    const { syncIntervalMs, driftFloorMs } = this.options;
    const { ms, problem } = syncIntervalOf(resource, syncIntervalMs);
    const floored = Math.max(ms, driftFloorMs?.(resource) ?? 0);
    if (problem === undefined) return { ms: floored };
    const message = `${problem}; using ${formatDuration(syncIntervalMs)}`;
    return { ms: floored, warning: { type: 'Warning', reason: REASON.InvalidAnnotation, message } };
  }

  /**
   * How much longer a new object (no condition reported yet) waits before it reports a referenced object
   * that is not there: up to `timing.referenceArrivalGraceMs` (objects applied together arrive through separate watches
   * within about a second) from its creation.
   */
  private arrivalGraceLeft(resource: ManagedObject): number {
    if (resource.status?.conditions?.length) return 0;
    const created = Date.parse(resource.metadata.creationTimestamp ?? '');
    if (Number.isNaN(created)) return 0;
    const graceMs = timing.referenceArrivalGraceMs;
    const left = created + graceMs - this.options.now().getTime();
    // A clock behind the apiserver's must not stretch the grace.
    return Math.min(Math.max(0, left), graceMs);
  }
}
