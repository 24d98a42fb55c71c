import { systemClock, type Clock } from '../clock.ts';
import { exponentialStep } from '../base/backoff.ts';

/** Decides how long a key waits before its next retry (client-go's workqueue.RateLimiter). */
export interface RateLimiter {
  /** Delay in ms before `key` may be retried; each call counts as one more failure. */
  when(key: string): number;
  /** The key succeeded: its failure history is dropped. */
  forget(key: string): void;
  numRequeues(key: string): number;
}

/** Per-key exponential backoff: base, 2·base, 4·base, … capped at max. */
export class ExponentialFailureRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly baseDelayMs = 5,
    private readonly maxDelayMs = 5 * 60_000,
  ) {}

  when(key: string): number {
    const exponent = this.failures.get(key) ?? 0;
    this.failures.set(key, exponent + 1);
    return exponentialStep(this.baseDelayMs, this.maxDelayMs, exponent);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/**
 * Token bucket shared by all keys (golang.org/x/time/rate semantics): a reservation always succeeds, and
 * the tokens it overdraws become a wait. Bounds the overall retry rate when many keys fail together.
 */
export class BucketRateLimiter implements RateLimiter {
  private tokens: number;
  private lastRefill: number;

  constructor(
    private readonly qps = 10,
    private readonly burst = 100,
    private readonly clock: Clock = systemClock,
  ) {
    this.tokens = burst;
    this.lastRefill = clock.now();
  }

  when(): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.lastRefill) / 1000) * this.qps);
    this.lastRefill = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  forget(): void {}

  numRequeues(): number {
    return 0;
  }
}

/** The longest delay any of its limiters asks for (all are consulted, since each records the failure). */
export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }

  when(key: string): number {
    return Math.max(0, ...this.limiters.map((limiter) => limiter.when(key)));
  }

  forget(key: string): void {
    for (const limiter of this.limiters) limiter.forget(key);
  }

  numRequeues(key: string): number {
    return Math.max(0, ...this.limiters.map((limiter) => limiter.numRequeues(key)));
  }
}

/** client-go's default controller rate limiter, with the per-key cap at 5 minutes. */
export function defaultControllerRateLimiter(clock: Clock = systemClock): RateLimiter {
  return new MaxOfRateLimiter(
    new ExponentialFailureRateLimiter(5, 5 * 60_000),
    new BucketRateLimiter(10, 100, clock),
  );
}
