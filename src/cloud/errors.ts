import { STATUS_CODES } from 'node:http';
import { MANAGEMENT_ERROR_CODES } from './schemas/common.ts';
import { FAILURE, type ClassifiedError, type Failure } from '../base/failure.ts';
import { RETRY_DELAYS } from '../base/retry-delays.ts';
import { REASON } from '../base/reasons.ts';

/** Which of the two cloud APIs a call went to. */
export type ApiName = 'management' | 'alerting';

/** Where a failed call was going: enough to log it and to label a metric, never a body or a header. */
export interface CallSite {
  api: ApiName;
  method: string;
  /** Route pattern, e.g. `/v1/organizations/:organizationId/services/:serviceId` (low cardinality). */
  route: string;
  /** The concrete path that was requested (ids only, no query secrets exist in either API). */
  path: string;
}

export interface CloudErrorDetails extends CallSite {
  /** Attempts made before giving up (1 = the first try failed and was not retried). */
  attempts: number;
  /** The same request may succeed if sent again later (429, 5xx, network trouble). */
  retryable: boolean;
  /**
   * The request may have been applied by the server even though no success answer arrived. For a
   * non-idempotent create this means: look (list/search) before creating again.
   */
  mayHaveSucceeded: boolean;
}

/** Base of every error the cloud clients throw; `instanceof CloudError` catches them all. */
export abstract class CloudError extends Error implements CloudErrorDetails {
  readonly api: ApiName;
  readonly method: string;
  readonly route: string;
  readonly path: string;
  readonly attempts: number;
  readonly retryable: boolean;
  readonly mayHaveSucceeded: boolean;
  /** A short machine-readable code: the API's error code (`NOT_FOUND`) or the network error code. */
  abstract readonly code: string;

  protected constructor(message: string, details: CloudErrorDetails) {
    super(message);
    this.name = new.target.name;
    this.api = details.api;
    this.method = details.method;
    this.route = details.route;
    this.path = details.path;
    this.attempts = details.attempts;
    this.retryable = details.retryable;
    this.mayHaveSucceeded = details.mayHaveSucceeded;
  }
}

export interface ApiErrorDetails extends CloudErrorDetails {
  status: number;
  code: string;
  /** The API's own message, without the `CODE: ` prefix. */
  apiMessage: string;
  requestId?: string | undefined;
  /** Server-advised wait (from `Retry-After` / `X-RateLimit-Reset`), in ms. */
  retryAfterMs?: number | undefined;
}

/** The API answered with an error status. */
export class ApiError extends CloudError implements ClassifiedError {
  readonly status: number;
  readonly code: string;
  readonly apiMessage: string;
  readonly requestId: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(details: ApiErrorDetails) {
    // No request id in the message: it differs per attempt, and the message becomes a condition and an
    // Event, which must stay the same while the cause does (the id is logged, and kept in `requestId`).
    super(
      `${details.method} ${details.route} failed: ${details.status} ${details.code}: ${details.apiMessage}`,
      details,
    );
    this.status = details.status;
    this.code = details.code;
    this.apiMessage = details.apiMessage;
    this.requestId = details.requestId;
    this.retryAfterMs = details.retryAfterMs;
  }

  /**
   * A request the API refused (4xx) is reported as such; one it refused as invalid (not a 429) is refused
   * again until the spec changes, so it is retried calmly. A server-advised wait comes first.
   */
  get [FAILURE](): Failure {
    const rejected = this.status >= 400 && this.status < 500;
    const reason = rejected ? REASON.CloudRequestRejected : REASON.CloudApiError;
    if (this.retryAfterMs !== undefined)
      return { kind: 'retry-after', reason, retryAfterMs: this.retryAfterMs };
    if (rejected && this.status !== 429) {
      return { kind: 'terminal', reason, retryAfterMs: RETRY_DELAYS.rejectedRequest };
    }
    return { kind: 'retry-after', reason };
  }

  isBadRequest(): boolean {
    return this.status === 400;
  }
  isUnauthorized(): boolean {
    return this.status === 401;
  }
  isForbidden(): boolean {
    return this.status === 403;
  }
  isNotFound(): boolean {
    return this.status === 404;
  }
  isConflict(): boolean {
    return this.status === 409;
  }
  isFailedDependency(): boolean {
    return this.status === 424;
  }
  isRateLimited(): boolean {
    return this.status === 429;
  }
  isServerError(): boolean {
    return this.status >= 500;
  }
}

/** What went wrong below HTTP. */
export type NetworkFailure =
  | 'connection-refused'
  | 'dns'
  | 'unreachable'
  | 'connect-timeout'
  | 'headers-timeout'
  | 'body-timeout'
  | 'connection-reset'
  | 'aborted'
  | 'other';

export interface NetworkErrorDetails extends CloudErrorDetails {
  failure: NetworkFailure;
  /** The low-level error code (`ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`, ...). */
  code: string;
  /** Whether any byte of the request may have been written to a socket. */
  sent: boolean;
  causeMessage: string;
}

/** No HTTP answer: the connection failed, timed out or was reset. */
export class NetworkError extends CloudError {
  readonly failure: NetworkFailure;
  readonly code: string;
  readonly sent: boolean;

  constructor(details: NetworkErrorDetails, prefix = '') {
    const where = details.sent
      ? 'after the request was sent'
      : 'before the request was sent (the server never received it)';
    super(
      `${prefix}${details.method} ${details.route} failed ${where}: ${details.failure} (${details.code}: ${details.causeMessage})`,
      details,
    );
    this.failure = details.failure;
    this.code = details.code;
    this.sent = details.sent;
    // A plain cause with the code only: the original error object is not kept, so nothing from the
    // request can leak through it.
    this.cause = { code: details.code, message: details.causeMessage };
  }
}

/**
 * A non-idempotent request (a create) was sent, but no answer arrived: the server may or may not have
 * created the resource. It is never retried automatically; look for the resource before creating again.
 */
export class AmbiguousRequestError extends NetworkError {
  constructor(details: Omit<NetworkErrorDetails, 'mayHaveSucceeded' | 'sent'>) {
    super(
      { ...details, sent: true, mayHaveSucceeded: true },
      'the request may have succeeded; look before retrying: ',
    );
  }
}

/** The caller's AbortSignal fired. */
export class RequestAbortedError extends CloudError {
  readonly code = 'ABORTED';
  readonly sent: boolean;

  constructor(details: CloudErrorDetails & { sent: boolean }) {
    super(
      `${details.method} ${details.route} aborted by the caller${details.mayHaveSucceeded ? ' after it was sent; it may have succeeded' : ''}`,
      details,
    );
    this.sent = details.sent;
  }
}

/**
 * The call was not sent because it would have waited longer than its deadline: for the request budget,
 * or for a 429's `Retry-After`. Nothing of it reached the server (a create is safe to send again); the
 * caller should come back after `retryAfterMs` instead of holding a worker meanwhile.
 */
export class DeferredRequestError extends CloudError implements ClassifiedError {
  readonly code = 'DEFERRED';
  readonly retryAfterMs: number;

  constructor(
    details: CallSite & { attempts: number; retryAfterMs: number; reason: 'quota' | 'rate-limited' },
  ) {
    const why = details.reason === 'quota' ? 'the request budget' : 'the server’s rate limit';
    super(
      `${details.method} ${details.route} deferred: ${why} allows it in about ${Math.ceil(details.retryAfterMs)} ms`,
      { ...details, retryable: true, mayHaveSucceeded: false },
    );
    this.retryAfterMs = details.retryAfterMs;
  }

  get [FAILURE](): Failure {
    return { kind: 'deferral', retryAfterMs: this.retryAfterMs };
  }
}

/** A success answer whose body is not what the schema promises (not JSON, or the wrong shape). */
export class ResponseValidationError extends CloudError {
  readonly code = 'INVALID_RESPONSE';
  readonly status: number;
  readonly requestId: string | undefined;

  constructor(
    details: CloudErrorDetails & { status: number; problem: string; requestId?: string | undefined },
  ) {
    super(`${details.method} ${details.route}: unexpected response body: ${details.problem}`, details);
    this.status = details.status;
    this.requestId = details.requestId;
  }
}

/** `CODE: message` as the management API writes it; anything else yields undefined. */
export function parseManagementErrorText(text: string): { code: string; message: string } | undefined {
  const match = /^([A-Z][A-Z0-9_]*):\s?([\s\S]*)$/.exec(text);
  if (!match) return undefined;
  return { code: match[1]!, message: match[2]! };
}

/**
 * The code an HTTP status stands for: the management API's names, else the HTTP reason in the same style
 * (`503` → `SERVICE_UNAVAILABLE`), else `HTTP_<status>`.
 */
export function codeForStatus(status: number): string {
  const known = (MANAGEMENT_ERROR_CODES as Record<number, string>)[status];
  if (known) return known;
  const reason = STATUS_CODES[status];
  return reason ? reason.toUpperCase().replace(/[^A-Z0-9]+/g, '_') : `HTTP_${status}`;
}

const apiStatus = (err: unknown): number | undefined => (err instanceof ApiError ? err.status : undefined);

export const isNotFound = (err: unknown): boolean => apiStatus(err) === 404;
export const isConflict = (err: unknown): boolean => apiStatus(err) === 409;
export const isBadRequest = (err: unknown): boolean => apiStatus(err) === 400;
export const isFailedDependency = (err: unknown): boolean => apiStatus(err) === 424;
export const isRateLimited = (err: unknown): boolean => apiStatus(err) === 429;
export const isUnauthorized = (err: unknown): boolean => {
  const status = apiStatus(err);
  return status === 401 || status === 403;
};
/** Transient trouble: worth trying again later (for creates: after looking, see `mayHaveSucceeded`). */
export const isRetryable = (err: unknown): boolean => err instanceof CloudError && err.retryable;
/** A create that may have happened although it reported failure. */
export const mayHaveSucceeded = (err: unknown): boolean => err instanceof CloudError && err.mayHaveSucceeded;
