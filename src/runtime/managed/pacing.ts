import { objectKey } from '../cache.ts';
import { DURATION_BOUNDS, formatDuration, parseDurationMs } from '../duration.ts';
import { ExponentialFailureRateLimiter } from '../rate-limiter.ts';
import { ANNOTATIONS } from './annotations.ts';
import { messageOf } from './errors.ts';
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
  /** First wait while the cloud is still moving; doubles up to `maxPollIntervalMs` to spare the quota. */
  pollIntervalMs: number;
  maxPollIntervalMs?: number;
  events: EventRecorder;
  now: () => Date;
}

/** When a resource is looked at again: soon while the cloud moves, after its sync interval once in sync. */
export class Pacing {
  /** The growing wait per key while the cloud is still moving: poll interval, doubled, capped. */
  private readonly polls: ExponentialFailureRateLimiter;

  constructor(private readonly options: PacingOptions) {
    this.polls = new ExponentialFailureRateLimiter(
      options.pollIntervalMs,
      options.maxPollIntervalMs ?? 30_000,
    );
  }

  /** The next wait for a resource the cloud is still moving: each one longer, up to the cap. */
  nextPoll(resource: ManagedObject): number {
    return this.polls.when(objectKey(resource));
  }

  /** The cloud stopped moving for `key` (or it is gone): its next wait starts from the poll interval. */
  forget(key: string): void {
    this.polls.forget(key);
  }

  /** The resource's drift-check interval: its annotation, within bounds, else `--sync-interval`. */
  syncInterval(resource: ManagedObject): number {
    const { syncIntervalMs, events } = this.options;
    const text = resource.metadata.annotations?.[ANNOTATIONS.syncInterval];
    if (text === undefined) return syncIntervalMs;
    try {
      return parseDurationMs(text, `annotation ${ANNOTATIONS.syncInterval}`, DURATION_BOUNDS.syncInterval);
    } catch (error) {
      const fallback = `using ${formatDuration(syncIntervalMs)}`;
      events.record(resource, 'Warning', 'InvalidAnnotation', `${messageOf(error)}; ${fallback}`);
      return syncIntervalMs;
    }
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
