import { FAILURE, failureOf, type ClassifiedError, type Failure } from '../base/failure.ts';

export { retryFloorOf } from '../base/failure.ts';

/**
 * An error the reconciler reports in the Synced condition with its own reason. `retryAfterMs` sets a floor
 * under the backoff (a delay from `RETRY_DELAYS`): what waits for the user to act is not retried in
 * milliseconds.
 */
export class ReconcileError extends Error implements ClassifiedError {
  constructor(
    readonly reason: string,
    message: string,
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ReconcileError';
  }

  get [FAILURE](): Failure {
    const { reason, retryAfterMs } = this;
    if (retryAfterMs === undefined) return { kind: 'retry-after', reason };
    // A cloud failure wrapped to carry its floor (a server's Retry-After) stays one worth retrying.
    if (failureOf(this.cause)?.kind === 'retry-after') return { kind: 'retry-after', reason, retryAfterMs };
    return { kind: 'terminal', reason, retryAfterMs };
  }
}

/**
 * Not a failure: something the resource needs is not ready yet (a service still provisioning, or stopped).
 * The reconciler reports it in `Ready` with `reason`, keeps `Synced=True`, records no Warning and polls.
 */
export class Waiting extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'Waiting';
  }
}

/** The condition reason for any error: a classified failure names its own; any other error is a `ReconcileError`. */
export function reasonOf(error: unknown): string {
  const failure = failureOf(error);
  return failure && failure.kind !== 'deferral' ? failure.reason : 'ReconcileError';
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
