import type { NetworkFailure } from './errors.ts';
import { exponentialStep } from '../base/backoff.ts';

/** How a client retries transient failures. */
export interface RetryPolicy {
  /** Total attempts including the first; 1 disables retries. */
  maxAttempts: number;
  /** Backoff base: the first retry waits up to this long. */
  baseDelayMs: number;
  /** Backoff cap: no computed backoff exceeds this. */
  maxDelayMs: number;
  /**
   * A server-advised wait (429 `Retry-After`) longer than this is not slept through: the 429 surfaces so the
   * caller can requeue instead of holding a worker.
   */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
};

/**
 * Exponential backoff with full jitter (AWS architecture blog): a uniform draw from
 * `[0, min(cap, base · 2^(retry-1)))`. `retry` counts retries, starting at 1.
 */
export function backoffDelay(
  retry: number,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number = Math.random,
): number {
  return Math.floor(random() * exponentialStep(policy.baseDelayMs, policy.maxDelayMs, retry - 1));
}

/** An attempt that did not succeed, as far as the retry decision needs to know it. */
export type FailedAttempt =
  /** The server answered with an error status; `retryAfterMs` is its advised wait, already bounded. */
  | { kind: 'status'; status: number; retryAfterMs?: number | undefined }
  /** No answer; `sent`: the request may have reached the server (it left, and its error does not prove otherwise). */
  | { kind: 'network'; sent: boolean };

export interface RetryLimits extends RetryPolicy {
  /** The longest a call may wait (here: for a server-advised wait) before it is deferred. */
  maxWaitMs?: number | undefined;
}

export type RetryDecision =
  /** Send again after `delayMs`. */
  | { action: 'retry'; delayMs: number }
  /** Report the failure as it is. */
  | { action: 'give-up' }
  /** A request that is not safe to send twice may have been applied: report that, never resend it. */
  | { action: 'ambiguous' }
  /** The server refused it (429) for longer than the call may wait: nothing was applied, come back later. */
  | { action: 'defer'; retryAfterMs: number };

/**
 * Whether and when to send a failed request again, from what happened to `attempt` (1 for the first try) and
 * whether the request is safe to send twice. Pure: `random` (uniform in [0, 1)) is the only source of jitter.
 */
export function decideRetry(
  failed: FailedAttempt,
  attempt: number,
  request: { idempotent: boolean },
  limits: RetryLimits,
  random: () => number = Math.random,
): RetryDecision {
  const lastAttempt = attempt >= limits.maxAttempts;
  if (failed.kind === 'network') {
    if (failed.sent && !request.idempotent) return { action: 'ambiguous' };
    if (lastAttempt) return { action: 'give-up' };
    return { action: 'retry', delayMs: backoffDelay(attempt, limits, random) };
  }
  const { status } = failed;
  // A 429 refused the request, so even a create is safe to send again; other failures only if idempotent.
  const retryable = isRetryableStatus(status) && (status === 429 || request.idempotent);
  if (!retryable || lastAttempt) return { action: 'give-up' };
  // Too long to hold a worker: let the caller requeue. A 429 refused the request, so it was not applied
  // and waiting out the limit is no failure; a 503's wait stays an error the caller reports.
  const advisedMs = failed.retryAfterMs ?? 0;
  if (advisedMs > (limits.maxWaitMs ?? Infinity)) {
    return status === 429 ? { action: 'defer', retryAfterMs: advisedMs } : { action: 'give-up' };
  }
  if (advisedMs > limits.maxRetryAfterMs) return { action: 'give-up' };
  const jitter = backoffDelay(attempt, limits, random);
  // A server-advised wait is a floor: wait at least that long, plus a little jitter so that callers
  // released together do not arrive together.
  const delayMs =
    failed.retryAfterMs !== undefined
      ? failed.retryAfterMs + Math.floor(random() * limits.baseDelayMs)
      : jitter;
  return { action: 'retry', delayMs };
}

/**
 * The longest server-advised wait sluice honours. A `Retry-After` of days (a misconfigured proxy, a hostile
 * host) would pause a whole key's quota and park resources past Node's timer limit; asking again after this
 * long costs one request.
 */
export const MAX_SERVER_WAIT_MS = 5 * 60_000;

/** A server-advised wait within [0, MAX_SERVER_WAIT_MS]. */
export const boundServerWait = (ms: number): number => Math.min(Math.max(0, ms), MAX_SERVER_WAIT_MS);

/**
 * The wait a 429 or 503 asks for, in ms (not yet bounded, see `boundServerWait`): the larger of `Retry-After` (delta seconds or an HTTP date) and
 * `X-RateLimit-Reset` (seconds until the window resets). Undefined when neither header is usable.
 */
export function parseRetryAfter(
  headers: Record<string, string | string[] | undefined>,
  nowEpochMs: number = Date.now(),
): number | undefined {
  const candidates: number[] = [];
  const retryAfter = firstHeader(headers, 'retry-after');
  if (retryAfter !== undefined) {
    const ms = parseDeltaOrDate(retryAfter, nowEpochMs);
    if (ms !== undefined) candidates.push(ms);
  }
  const reset = firstHeader(headers, 'x-ratelimit-reset');
  if (reset !== undefined) {
    const ms = parseResetSeconds(reset, nowEpochMs);
    if (ms !== undefined) candidates.push(ms);
  }
  return candidates.length ? Math.max(...candidates) : undefined;
}

function firstHeader(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined && first.trim() !== '') return first.trim();
  }
  return undefined;
}

function parseDeltaOrDate(value: string, nowEpochMs: number): number | undefined {
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  // An HTTP date names a weekday and a month; bare numbers (e.g. '-3') are not dates, whatever Date.parse says.
  if (!/[A-Za-z]{3}/.test(value)) return undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowEpochMs);
}

/** Delta seconds; a value that looks like a Unix epoch (> 1e9) is read as an absolute time. */
function parseResetSeconds(value: string, nowEpochMs: number): number | undefined {
  if (!/^\d+(\.\d+)?$/.test(value)) return undefined;
  const seconds = Number(value);
  if (seconds > 1e9) return Math.max(0, Math.ceil(seconds * 1000 - nowEpochMs));
  return Math.ceil(seconds * 1000);
}

/** Statuses that are worth a retry (the server refused or failed, the request itself is fine). */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** Error codes that can only happen before a connection existed: the request was certainly never sent. */
const NEVER_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Sort a low-level error into a failure kind. */
export function classifyNetworkError(err: unknown): {
  failure: NetworkFailure;
  code: string;
  message: string;
} {
  const code = errorCode(err);
  const message = err instanceof Error ? err.message : String(err);
  const failure = ((): NetworkFailure => {
    switch (code) {
      case 'ECONNREFUSED':
        return 'connection-refused';
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return 'dns';
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
      case 'EHOSTDOWN':
      case 'ENETDOWN':
        return 'unreachable';
      case 'UND_ERR_CONNECT_TIMEOUT':
        return 'connect-timeout';
      case 'UND_ERR_HEADERS_TIMEOUT':
        return 'headers-timeout';
      case 'UND_ERR_BODY_TIMEOUT':
        return 'body-timeout';
      case 'ECONNRESET':
      case 'EPIPE':
      case 'UND_ERR_SOCKET':
      case 'UND_ERR_CLOSED':
      case 'ECONNABORTED':
        return 'connection-reset';
      case 'UND_ERR_ABORTED':
      case 'ABORT_ERR':
        return 'aborted';
      default:
        return 'other';
    }
  })();
  return { failure, code, message };
}

/** True when the error code alone proves the request never left this process. */
export function isNeverSentCode(code: string): boolean {
  return NEVER_SENT_CODES.has(code);
}

function errorCode(err: unknown): string {
  // Node wraps some connect failures (e.g. happy-eyeballs) in an AggregateError whose code is on the parts.
  if (err instanceof AggregateError && err.errors.length) {
    const inner = err.errors.map(errorCode).find((code) => code !== 'UNKNOWN');
    if (inner) return inner;
  }
  if (typeof err === 'object' && err !== null) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code) return code;
    if ((err as { name?: unknown }).name === 'AbortError') return 'ABORT_ERR';
    const cause = (err as { cause?: unknown }).cause;
    if (cause && cause !== err) return errorCode(cause);
  }
  return 'UNKNOWN';
}
