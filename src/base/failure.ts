/**
 * What the runtime needs to know about a failure, whoever raised it (the runtime, a kind, a cloud client): is
 * it a failure at all, under which reason is it reported, and how soon may it be tried again. An error says so
 * by its `[FAILURE]` property, so the runtime recognises a cloud error without knowing its class.
 */
import type { ConditionReason } from './reasons.ts';

export const FAILURE: unique symbol = Symbol.for('sluice.failure');

/**
 * Not a failure: the call was not sent, because its request budget (or the server's rate limit) would have
 * kept it waiting longer than a worker may wait. Come back after `retryAfterMs`; there is nothing to report.
 */
export interface Deferral {
  kind: 'deferral';
  retryAfterMs: number;
}

/**
 * Trying again may succeed (a server error, a rate limit): not sooner than `retryAfterMs` when the failure
 * knows that much (a server's `Retry-After`), else after the usual backoff.
 */
export interface RetryAfter {
  kind: 'retry-after';
  /** The condition and Event reason it is reported under. */
  reason: ConditionReason;
  retryAfterMs?: number | undefined;
}

/**
 * Fails the same way until the user acts (fixes the spec, a Secret, the cloud): reported, and tried again no
 * sooner than `retryAfterMs`, a delay from `RETRY_DELAYS`.
 */
export interface Terminal {
  kind: 'terminal';
  reason: ConditionReason;
  retryAfterMs: number;
}

export type Failure = Deferral | RetryAfter | Terminal;

/** An error that says which kind of failure it is. */
export interface ClassifiedError extends Error {
  readonly [FAILURE]: Failure;
}

/** What `error` says about itself, or undefined for an error that says nothing (any other exception). */
export function failureOf(error: unknown): Failure | undefined {
  return error instanceof Error && FAILURE in error ? (error as ClassifiedError)[FAILURE] : undefined;
}

/** The floor under the backoff a failure asks for; none for a deferral (not a failure) or an unknown error. */
export function retryFloorOf(error: unknown): number | undefined {
  const failure = failureOf(error);
  return failure?.kind === 'deferral' ? undefined : failure?.retryAfterMs;
}
