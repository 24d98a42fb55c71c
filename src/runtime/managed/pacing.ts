import { exponentialStep } from '../backoff.ts';
import { DURATION_BOUNDS, durationProblem, formatDuration, tryParseDurationMs } from '../duration.ts';
import { ANNOTATIONS } from './annotations.ts';
import type { EventRecorder } from './events.ts';
import type { ManagedObject } from './types.ts';

/**
 * How long a new object's reference to an object not in the cache goes unreported: objects applied together
 * (one manifest, one Argo CD sync) arrive through separate watches within about a second.
 */
export const REFERENCE_ARRIVAL_GRACE_MS = 5_000;

export interface PacingOptions {
  /** Drift-check interval for resources that are in sync (`--sync-interval`). */
  syncIntervalMs: number;
  /** First wait while the cloud is still moving; each later look of the wait doubles it, up to the max. */
  pollIntervalMs: number;
  maxPollIntervalMs?: number;
  events: EventRecorder;
  now: () => Date;
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

/** When a resource is looked at again: soon while the cloud moves, after its sync interval once in sync. */
export class Pacing {
  /** How many times each key waiting for the cloud has been looked at in its current wait. */
  private readonly cloudWaitLooks = new Map<string, number>();

  constructor(private readonly options: PacingOptions) {}

  /**
   * The next look at a resource the cloud is moving for: the poll interval, doubled by each look of the
   * wait so far, up to the cap (2, 4, 8, 16, 30 s with a 2 s poll interval). Its reads share snapshots, but
   * a service's pipes or endpoints are one list per service and a query endpoint one GET: a fixed interval
   * would spend a call per poll on each of them for as long as the cloud moves. A wake between polls (a
   * list or a referenced object changed) is a look too: it read the cloud, so the next poll moves out.
   */
  waitForCloud(key: string): number {
    const looks = this.cloudWaitLooks.get(key) ?? 0;
    this.cloudWaitLooks.set(key, looks + 1);
    const { pollIntervalMs, maxPollIntervalMs = 30_000 } = this.options;
    return exponentialStep(pollIntervalMs, maxPollIntervalMs, looks);
  }

  /** The wait for the cloud is over for `key` (in sync, waiting on something else, or gone). */
  endCloudWait(key: string): void {
    this.cloudWaitLooks.delete(key);
  }

  /**
   * How old a cloud snapshot may be to observe the resource, by what it is doing: a drift check (Ready, spec
   * acted on) accepts one as old as its sync interval; a wait for the cloud, or a spec its user just
   * changed, the poll interval (the operator's own writes replace snapshot entries, so an older snapshot
   * never makes it send a change again); a reconcile its user asked for, none: a fresh read.
   */
  freshness(resource: ManagedObject): number {
    // A reconcile the user asked for (a new sluice.dev/reconcile-requested-at) reads the cloud afresh.
    const requested = resource.metadata.annotations?.[ANNOTATIONS.reconcileRequestedAt];
    if (requested !== undefined && requested !== resource.status?.lastHandledReconcileAt) return 0;
    const ready = resource.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    const acted = resource.metadata.generation === resource.status?.observedGeneration;
    return ready && acted ? this.syncInterval(resource) : this.options.pollIntervalMs;
  }

  /** The resource's drift-check interval (`syncIntervalOf`); an annotation set aside is a Warning Event. */
  syncInterval(resource: ManagedObject): number {
    const { syncIntervalMs, events } = this.options;
    const { ms, problem } = syncIntervalOf(resource, syncIntervalMs);
    if (problem !== undefined) {
      const fallback = `using ${formatDuration(syncIntervalMs)}`;
      events.record(resource, 'Warning', 'InvalidAnnotation', `${problem}; ${fallback}`);
    }
    return ms;
  }

  /**
   * How much longer a new object (no condition reported yet) waits before it reports a referenced object
   * that is not there: up to `REFERENCE_ARRIVAL_GRACE_MS` from its creation.
   */
  arrivalGraceLeft(resource: ManagedObject): number {
    if (resource.status?.conditions?.length) return 0;
    const created = Date.parse(resource.metadata.creationTimestamp ?? '');
    if (Number.isNaN(created)) return 0;
    const left = created + REFERENCE_ARRIVAL_GRACE_MS - this.options.now().getTime();
    // A clock behind the apiserver's must not stretch the grace.
    return Math.min(Math.max(0, left), REFERENCE_ARRIVAL_GRACE_MS);
  }
}
