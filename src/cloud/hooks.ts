import type { Logger } from 'pino';
import type { ApiName } from './errors.ts';
import type { Priority } from './quota.ts';

/** One HTTP attempt finished (success, error status or network failure). */
export interface RequestEvent {
  api: ApiName;
  method: string;
  /** Route pattern (`/v1/organizations/:organizationId/services`), safe as a metric label. */
  route: string;
  /** HTTP status as a string (`"200"`, `"429"`) or, without an answer, the error code (`"ECONNREFUSED"`). */
  code: string;
  /** 1 for the first try. */
  attempt: number;
  durationMs: number;
  priority: Priority;
  /** The credentials Secret (`namespace/name`) whose client made the call, when the caller named one. */
  credentials?: string;
}

/** A call waited for the quota scheduler before it could start. Emitted for every attempt, also waits of 0. */
export interface QuotaWaitEvent {
  api: ApiName;
  /** The scheduler's key (`management http://host keyId hmac:<digest of id and secret>`). */
  key: string;
  priority: Priority;
  waitMs: number;
  /** Slots left in the budget right after this call took one. */
  remaining: number;
  /** The credentials Secret (`namespace/name`) whose client made the call, when the caller named one. */
  credentials?: string;
}

/** A failed attempt will be retried after `delayMs`. */
export interface RetryEvent {
  api: ApiName;
  method: string;
  route: string;
  code: string;
  attempt: number;
  delayMs: number;
}

/**
 * Observation points for metrics (the operator maps them to `sluice_cloud_requests_total{api,method,route,code}`,
 * `sluice_cloud_quota_wait_seconds`, `sluice_cloud_quota_remaining{credentials,api}`). Hooks must not throw; if one does, the
 * error is logged and ignored.
 */
export interface CloudHooks {
  onRequest?(event: RequestEvent): void;
  onQuotaWait?(event: QuotaWaitEvent): void;
  onRetry?(event: RetryEvent): void;
}

/** Calls hook `name` if set; a hook that throws is logged and otherwise ignored (metrics never fail a call). */
export function notify<K extends keyof CloudHooks>(
  hooks: CloudHooks,
  logger: Logger,
  name: K,
  event: Parameters<NonNullable<CloudHooks[K]>>[0],
): void {
  const hook = hooks[name] as ((e: typeof event) => void) | undefined;
  if (!hook) return;
  try {
    hook.call(hooks, event);
  } catch (err) {
    logger.warn({ hook: name, err: err instanceof Error ? err.message : String(err) }, 'cloud hook threw');
  }
}
