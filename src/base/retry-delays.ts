import { timing } from './timings.ts';

/**
 * The least a failed reconcile waits before it tries again, by what the failure waits for. A failure that
 * repeats until someone acts gains nothing from the backoff's first, millisecond-sized retries: they only
 * burn the cloud quota and repeat the same Warning. One table, so the runtime and every kind agree; the
 * values are `REAL_TIMINGS.retry` at the process's time scale:
 *
 * - rejectedRequest (10 s): the cloud refused the request as invalid (a 4xx other than 429): the same request
 *   is refused again.
 * - credentials (10 s): the credentials Secret is missing, incomplete or names a host that is not allowed.
 * - secretConflict (10 s): the connection Secret exists but another owner controls it: the user renames or
 *   removes it.
 * - secretNotWritable (10 s): the connection Secret cannot be written (admission, quota, a namespace being
 *   deleted): checked by a dry run.
 * - secretMissing (30 s): a referenced Secret or key is missing; the Secret watch brings the resource back
 *   when it appears.
 * - deleteBlocked (30 s): the cloud refuses a delete while the service is stopped: the user starts it or
 *   orphans the object.
 * - userAction (60 s): only the user can resolve it: an invalid annotation or reference, a choice between
 *   look-alikes, an id to adopt that does not exist, a change the cloud cannot make in place. Look seldom.
 */
export const RETRY_DELAYS = timing.retry;
