import { FAILURE, failureOf, type ClassifiedError, type Failure } from '../base/failure.ts';
import { REASON, type ConditionReason } from '../base/reasons.ts';

export { retryFloorOf } from '../base/failure.ts';

/**
 * An error the reconciler reports in the Synced condition with its own reason (one of `REASONS`, or the
 * kind's own). Made by name: `ReconcileError.terminal` for what fails the same way until a person acts,
 * `ReconcileError.retry` for what trying again may end.
 */
export class ReconcileError extends Error implements ClassifiedError {
  /**
   * Fails the same way until a person acts (the spec, a Secret, the cloud): Stalled, reported once, and
   * tried again no sooner than `retryAfterMs` (a delay from `RETRY_DELAYS`), never in milliseconds.
   */
  static terminal(
    reason: ConditionReason,
    message: string,
    retryAfterMs: number,
    options?: { cause?: unknown },
  ): ReconcileError {
    return new ReconcileError(reason, message, retryAfterMs, { ...options, end: 'terminal' });
  }

  /** Trying again may end it: the workers' backoff, with `retryAfterMs` as a floor when it is known. */
  static retry(
    reason: ConditionReason,
    message: string,
    options?: { retryAfterMs?: number; cause?: unknown },
  ): ReconcileError {
    return new ReconcileError(reason, message, options?.retryAfterMs, { ...options, end: 'retry' });
  }

  private readonly end: 'retry' | 'terminal' | undefined;

  /**
   * Prefer `terminal` or `retry`. Without `end`, a failure with `retryAfterMs` is terminal unless it wraps
   * one worth retrying (a cloud failure carrying its server's Retry-After).
   */
  constructor(
    readonly reason: ConditionReason,
    message: string,
    readonly retryAfterMs?: number,
    options?: { cause?: unknown; end?: 'retry' | 'terminal' },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ReconcileError';
    this.end = options?.end;
  }

  get [FAILURE](): Failure {
    const { reason, retryAfterMs } = this;
    if (this.end === 'terminal' && retryAfterMs !== undefined)
      return { kind: 'terminal', reason, retryAfterMs };
    if (this.end === 'retry' || retryAfterMs === undefined)
      return { kind: 'retry-after', reason, retryAfterMs };
    // A cloud failure wrapped to carry its floor (a server's Retry-After) stays one worth retrying.
    if (failureOf(this.cause)?.kind === 'retry-after') return { kind: 'retry-after', reason, retryAfterMs };
    return { kind: 'terminal', reason, retryAfterMs };
  }
}

/**
 * Not a failure: something the resource needs is not ready yet (a service still provisioning, or stopped).
 * A value, returned, never thrown: the step that meets it returns it, and the reconciler reports it in
 * `Ready` with `reason`, keeps `Synced=True`, records no Warning and polls.
 */
export class Waiting {
  constructor(
    readonly reason: ConditionReason,
    readonly message: string,
  ) {}
}

/** The condition reason for any error: a classified failure names its own; any other error is a `ReconcileError`. */
export function reasonOf(error: unknown): ConditionReason {
  const failure = failureOf(error);
  return failure && failure.kind !== 'deferral' ? failure.reason : REASON.ReconcileError;
}

/**
 * How long to wait before trying again when the error only says "not now": the cloud client did not send
 * the call because its budget (or the server's rate limit) would not allow it within the wait deadline.
 * That is no failure: the key is requeued for then, with no Warning, no Synced=False and no backoff.
 */
export function deferralOf(error: unknown): number | undefined {
  const failure = failureOf(error);
  return failure?.kind === 'deferral' ? Math.max(1, Math.ceil(failure.retryAfterMs)) : undefined;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
