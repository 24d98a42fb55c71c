/**
 * `baseMs · 2^exponent`, capped at `maxMs`: the one exponential step every backoff of sluice grows by (the
 * workqueue's per-key retries, the apiserver reconnects, the cloud client's retries). They differ only in the
 * jitter they draw around it, each for its reason.
 */
export function exponentialStep(baseMs: number, maxMs: number, exponent: number): number {
  // 2 ** 1100 is Infinity; Math.min keeps the result finite.
  return Math.min(baseMs * 2 ** Math.max(0, exponent), maxMs);
}

/**
 * Exponential backoff with jitter for reconnecting to the apiserver: each delay is drawn from the upper
 * half of the current step, so many reflectors restarted by one apiserver outage do not retry in lockstep.
 */
export class JitteredBackoff {
  private attempt = 0;

  constructor(
    private readonly initialMs = 200,
    private readonly maxMs = 30_000,
    private readonly random: () => number = Math.random,
  ) {}

  next(): number {
    const step = exponentialStep(this.initialMs, this.maxMs, this.attempt);
    if (step < this.maxMs) this.attempt++;
    return step / 2 + (this.random() * step) / 2;
  }

  reset(): void {
    this.attempt = 0;
  }
}
