import parseDuration from 'parse-duration';

export const DURATION_HINT = 'must be a positive duration with a unit, like 30s, 10m or 1h';

/** The range a duration setting accepts, in ms. */
export interface DurationBounds {
  minMs: number;
  maxMs: number;
}

/**
 * Each setting's range. Floors keep a timer from firing in a loop; ceilings stay below Node's timer limit
 * (2^31−1 ms, about 24.8 days, past which Node fires after 1 ms) and keep every wait in a useful range.
 */
export const DURATION_BOUNDS = {
  /** `--sync-interval` and the `sluice.dev/sync-interval` annotation. */
  syncInterval: { minMs: 100, maxMs: 24 * 3_600_000 },
  /** `--poll-interval`: the first wait doubles up to 30 s, so a longer one would never be used. */
  pollInterval: { minMs: 100, maxMs: 30_000 },
  /** `--max-cloud-wait`: how long a worker may be held for quota or a Retry-After. */
  maxCloudWait: { minMs: 10, maxMs: 60_000 },
  /** `--graceful-shutdown-timeout`. */
  gracefulShutdownTimeout: { minMs: 100, maxMs: 10 * 60_000 },
  /** `--stall-timeout`: how long no progress means stuck (liveness); below a second is no proof of anything. */
  stallTimeout: { minMs: 1_000, maxMs: 60 * 60_000 },
  /** The window of `--management-quota` and `--alerting-quota`. */
  quotaWindow: { minMs: 100, maxMs: 3_600_000 },
} as const satisfies Record<string, DurationBounds>;

/** `90s`, `10m`, `1h30m` in milliseconds, or undefined; a unit is required so `30` is never read as 30 ms. */
export function tryParseDurationMs(text: string): number | undefined {
  const ms = /[a-z]\s*$/i.test(text) ? parseDuration(text) : null;
  return typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/** Why `text` is no duration within `bounds` (a sentence to follow the setting's name), or undefined. */
export function durationProblem(text: string, bounds: DurationBounds): string | undefined {
  const ms = tryParseDurationMs(text);
  if (ms === undefined) return `${DURATION_HINT} (got "${text}")`;
  if (ms < bounds.minMs || ms > bounds.maxMs) {
    return `must be between ${formatDuration(bounds.minMs)} and ${formatDuration(bounds.maxMs)} (got "${text}")`;
  }
  return undefined;
}

/** Parses `text` or throws an error naming `what` (a flag, an annotation) and the accepted range. */
export function parseDurationMs(text: string, what: string, bounds?: DurationBounds): number {
  const problem = durationProblem(text, bounds ?? { minMs: 0, maxMs: Infinity });
  if (problem !== undefined) throw new Error(`${what} ${problem}`);
  return tryParseDurationMs(text)!;
}

/** `86400000` → `24h`, `90000` → `1m30s`, `250` → `250ms`: the shortest exact form. */
export function formatDuration(ms: number): string {
  const units: [string, number][] = [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
    ['ms', 1],
  ];
  let rest = Math.round(ms);
  let out = '';
  for (const [unit, size] of units) {
    const count = Math.floor(rest / size);
    if (count > 0) out += `${count}${unit}`;
    rest -= count * size;
  }
  return out || '0ms';
}
