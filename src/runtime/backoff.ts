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
    const step = Math.min(this.initialMs * 2 ** this.attempt, this.maxMs);
    if (step < this.maxMs) this.attempt++;
    return step / 2 + (this.random() * step) / 2;
  }

  reset(): void {
    this.attempt = 0;
  }
}
