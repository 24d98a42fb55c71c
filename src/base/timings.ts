/**
 * Every duration sluice waits on, at its production value, and the one factor that compresses them all.
 * `--time-scale N` (`sluice run`, `sluice emulator`) divides each by N, so a test runs the real algorithm,
 * quota windows, retries and thresholds together on shorter time; production runs at 1. A duration given
 * explicitly (a flag, an annotation, an option) is taken as given: only the built-in ones scale.
 *
 * Not scaled, on purpose: clock tolerances (they bound the skew between real clocks), HTTP and watch
 * timeouts (they bound real networks and apiservers) and the graceful-shutdown timeout.
 */
export const REAL_TIMINGS = {
  /** The management API's quota: requests per key in any window of this length. */
  managementQuotaWindowMs: 10_000,
  /** The alerting API's quota window. */
  alertingQuotaWindowMs: 60_000,
  /** `--poll-interval`: the first wait between looks while the cloud moves. */
  pollIntervalMs: 2_000,
  /** The longest wait between looks while the cloud moves. */
  maxPollIntervalMs: 30_000,
  /** `--sync-interval`: the drift check of an object in sync. */
  syncIntervalMs: 10 * 60_000,
  /** How often the drift planner plans again (object counts change with applies and deletes, not faster). */
  driftPlanEveryMs: 5_000,
  /** How long a new object's reference to an object not in the cache goes unreported. */
  referenceArrivalGraceMs: 5_000,
  /**
   * How old a list the owner check of a plain id may read a service's record from: a record changes only when
   * an object adopts or releases the service (this cluster's own holders are judged from status at once), and
   * a fresh GET on every reconcile of a user's change put one more call ahead of its write in the key's queue.
   */
  ownerRecordMaxAgeMs: 60_000,
  /** How long a reference to an object that does not exist stays a quiet wait before it is reported. */
  referenceMissingReportMs: 60_000,
  /** The least a failed reconcile waits, by what it waits for (`RETRY_DELAYS`). */
  retry: {
    rejectedRequest: 10_000,
    credentials: 10_000,
    secretConflict: 10_000,
    secretNotWritable: 10_000,
    secretMissing: 30_000,
    deleteBlocked: 30_000,
    userAction: 60_000,
  },
  /** Leader election: others wait this long after the last renewal they saw. */
  leaseDurationMs: 15_000,
  /** The leader gives up if it cannot renew for this long. */
  renewDeadlineMs: 10_000,
  /** Between attempts to acquire or renew the lease. */
  leaseRetryPeriodMs: 2_000,
  /**
   * How long an ApiKey's previous key keeps working once its Secret holds the rotated one (the default of
   * `spec.rotation.gracePeriod`): a Secret mounted in a pod reaches it within about two minutes.
   */
  apiKeyRotationGraceMs: 10 * 60_000,
  /** The emulator: how long each state-machine step of a cloud object takes. */
  transitionMs: 2_000,
} as const;

/** The range `--time-scale` accepts: 1 (real time) up to 100 times faster. */
export const TIME_SCALE_BOUNDS = { min: 1, max: 100 } as const;

/** Why `factor` is no time scale (a sentence to follow the flag's name), or undefined. */
export function timeScaleProblem(factor: number, text = String(factor)): string | undefined {
  return Number.isFinite(factor) && factor >= TIME_SCALE_BOUNDS.min && factor <= TIME_SCALE_BOUNDS.max
    ? undefined
    : `must be a number from ${TIME_SCALE_BOUNDS.min} (real time) to ${TIME_SCALE_BOUNDS.max} (got "${text}")`;
}

/** `ms` of real time at `factor`: never below 1 ms, so no timer turns into a loop. */
export function scaleMs(ms: number, factor: number): number {
  return Math.max(1, Math.round(ms / factor));
}

let processScale = 1;

/**
 * Sets the factor of this process's built-in waits (`sluice run --time-scale`). One factor per process: the
 * operator sets it when it starts, and what reads `timing` afterwards sees it.
 */
export function setTimeScale(factor: number): void {
  const problem = timeScaleProblem(factor);
  if (problem !== undefined) throw new RangeError(`time scale ${problem}`);
  processScale = factor;
}

export function timeScale(): number {
  return processScale;
}

type Durations = { readonly [name: string]: number | Durations };
type Scaled<T> = { readonly [K in keyof T]: T[K] extends number ? number : Scaled<T[K]> };

/** A read-only view of `durations` at the process's time scale, read when used (so a later scale shows). */
function scaledView<T extends Durations>(durations: T): Scaled<T> {
  const view = {};
  for (const [name, value] of Object.entries(durations)) {
    const get =
      typeof value === 'number'
        ? () => scaleMs(value, processScale)
        : (
            (nested) => () =>
              nested
          )(scaledView(value));
    Object.defineProperty(view, name, { enumerable: true, get });
  }
  return view as Scaled<T>;
}

/** Every duration of `REAL_TIMINGS`, at this process's time scale. */
export const timing = scaledView(REAL_TIMINGS);
