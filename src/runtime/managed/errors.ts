/**
 * An error the reconciler reports in the Synced condition with its own reason. `retryAfterMs` sets a floor
 * under the backoff: a request the API refused (4xx) will be refused again, so retrying in milliseconds
 * would only burn the quota.
 */
export class ReconcileError extends Error {
  constructor(
    readonly reason: string,
    message: string,
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ReconcileError';
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

/** Minimum wait before retrying a request the cloud rejected as invalid. */
export const REJECTED_REQUEST_RETRY_MS = 10_000;

/** The condition reason for any error: ours carry one; cloud API errors are told apart from the rest. */
export function reasonOf(error: unknown): string {
  if (error instanceof ReconcileError) return error.reason;
  if (isCloudApiError(error))
    return error.status >= 400 && error.status < 500 ? 'CloudRequestRejected' : 'CloudApiError';
  return 'ReconcileError';
}

/** The retry floor for an error, if it has one. */
export function retryFloorOf(error: unknown): number | undefined {
  if (error instanceof ReconcileError) return error.retryAfterMs;
  // A server-advised wait (503 Retry-After) the client would not sleep through holding a worker.
  const advised = (error as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  if (isCloudApiError(error) && typeof advised === 'number') return advised;
  if (isCloudApiError(error) && error.status >= 400 && error.status < 500 && error.status !== 429) {
    return REJECTED_REQUEST_RETRY_MS;
  }
  return undefined;
}

/**
 * How long to wait before trying again when the error only says "not now": the cloud client did not send
 * the call because its budget (or the server's rate limit) would not allow it within the wait deadline.
 * That is no failure: the key is requeued for then, with no Warning, no Synced=False and no backoff.
 */
export function deferralOf(error: unknown): number | undefined {
  if (!(error instanceof Error) || error.name !== 'DeferredRequestError') return undefined;
  const { retryAfterMs } = error as { retryAfterMs?: unknown };
  return typeof retryAfterMs === 'number' ? Math.max(1, Math.ceil(retryAfterMs)) : undefined;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isCloudApiError(error: unknown): error is Error & { status: number } {
  return (
    error instanceof Error &&
    error.name === 'ApiError' &&
    typeof (error as { status?: unknown }).status === 'number'
  );
}
