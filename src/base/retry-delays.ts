/**
 * The least a failed reconcile waits before it tries again, by what the failure waits for. A failure that
 * repeats until someone acts gains nothing from the backoff's first, millisecond-sized retries: they only
 * burn the cloud quota and repeat the same Warning. One table, so the runtime and every kind agree.
 */
export const RETRY_DELAYS = {
  /** The cloud refused the request as invalid (a 4xx other than 429): the same request is refused again. */
  rejectedRequest: 10_000,
  /** The credentials Secret is missing, incomplete or names a host that is not allowed. */
  credentials: 10_000,
  /** The connection Secret exists but another owner controls it: the user renames or removes it. */
  secretConflict: 10_000,
  /** The connection Secret cannot be written (admission, quota, a namespace being deleted): checked by a dry run. */
  secretNotWritable: 10_000,
  /** A referenced Secret or key is missing; the Secret watch brings the resource back when it appears. */
  secretMissing: 30_000,
  /** The cloud refuses a delete while the service is stopped: the user starts it or orphans the object. */
  deleteBlocked: 30_000,
  /**
   * Only the user can resolve it: an invalid annotation or reference, a choice between look-alikes, an id to
   * adopt that does not exist, a change the cloud cannot make in place. Look seldom.
   */
  userAction: 60_000,
} as const;
