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
  if (isCloudApiError(error) && error.status >= 400 && error.status < 500 && error.status !== 429) {
    return REJECTED_REQUEST_RETRY_MS;
  }
  return undefined;
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
