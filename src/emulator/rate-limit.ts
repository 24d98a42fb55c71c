/** `'off'`, or at most `requests` per fixed window of `windowSeconds`. */
export type RateLimitOption = 'off' | { requests: number; windowSeconds: number };

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Fixed-window limiter per key, like the real APIs: a window opens with a key's first request and allows
 * `requests` calls until it ends; calls beyond that are refused until then. O(1) per call.
 */
export class FixedWindowRateLimiter {
  private readonly windows = new Map<string, { endsAt: number; count: number }>();
  private readonly windowMs: number;

  constructor(
    readonly limit: RateLimitOption,
    private readonly now: () => number = Date.now,
  ) {
    this.windowMs = limit === 'off' ? 0 : limit.windowSeconds * 1000;
  }

  take(key: string): RateDecision {
    if (this.limit === 'off') return { allowed: true };
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || now >= window.endsAt) {
      window = { endsAt: now + this.windowMs, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    if (window.count <= this.limit.requests) return { allowed: true };
    // Whole seconds, rounded up and at least 1: a client that waits this long is inside the next window.
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((window.endsAt - now) / 1000)) };
  }

  reset(): void {
    this.windows.clear();
  }
}

/** Parses the CLI form `<n>/<s>s` (e.g. `10/10s`) or `off`; throws with a sentence naming what is wrong. */
export function parseRateLimit(text: string): RateLimitOption {
  if (text === 'off') return 'off';
  const match = /^(\d+)\/(\d+)s$/.exec(text);
  const requests = Number(match?.[1]);
  const windowSeconds = Number(match?.[2]);
  if (!match || requests < 1 || windowSeconds < 1) {
    throw new Error(
      `must be "off" or <requests>/<seconds>s with both at least 1, e.g. 10/10s (got "${text}")`,
    );
  }
  return { requests, windowSeconds };
}
