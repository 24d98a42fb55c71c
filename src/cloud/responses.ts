import type { Logger } from 'pino';
import type { z } from 'zod';
import { ApiError, type ApiName, type CallSite, ResponseValidationError } from './errors.ts';
import { redactSecrets, scrub } from './redaction.ts';
import { boundServerWait, isRetryableStatus, parseRetryAfter } from './retry.ts';
import type { AttemptOutcome } from './transport.ts';

/** How one API wraps successes and words errors. */
export interface Dialect {
  api: ApiName;
  /** The payload inside a success body, or a description of why the body is not a valid envelope. */
  unwrap(body: unknown): { ok: true; value: unknown; requestId?: string } | { ok: false; problem: string };
  /** Code, message and request id of an error answer (`body` is the raw text, maybe not JSON). */
  describeError(status: number, body: string): { code: string; message: string; requestId?: string };
}

/** The JSON value of a response body, or undefined when it is not JSON (e.g. a plain-text 401). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

type Answer = Extract<AttemptOutcome, { kind: 'response' }>;

/** Where an answer came from, to word its errors; `secrets` are scrubbed from every text they keep. */
export interface AnswerContext {
  dialect: Dialect;
  site: CallSite;
  attempt: number;
  secrets: ReadonlySet<string>;
  logger: Logger;
}

/** The payload of a success answer, checked against `schema`; a `ResponseValidationError` otherwise. */
export function decodeSuccess<T>(
  answer: Answer,
  expected: { schema: z.ZodType<T>; envelope: boolean },
  { dialect, site, attempt, secrets, logger }: AnswerContext,
): { value: T; requestId?: string } {
  const fail = (problem: string, requestId?: string) =>
    new ResponseValidationError({
      ...site,
      attempts: attempt,
      retryable: false,
      // The server said 200: whatever was asked for happened.
      mayHaveSucceeded: site.method !== 'GET',
      status: answer.status,
      problem: scrub(problem, secrets),
      requestId,
    });
  let json: unknown;
  try {
    json = answer.text === '' ? {} : JSON.parse(answer.text);
  } catch {
    throw fail('not JSON');
  }
  if (logger.isLevelEnabled('trace')) {
    logger.trace({ ...site, body: redactSecrets(json) }, 'cloud response body');
  }
  let payload: unknown = json;
  let requestId: string | undefined;
  if (expected.envelope) {
    const unwrapped = dialect.unwrap(json);
    if (!unwrapped.ok) throw fail(unwrapped.problem);
    payload = unwrapped.value;
    requestId = unwrapped.requestId;
  }
  const parsed = expected.schema.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : '(root)';
    throw fail(`${where}: ${issue?.message ?? 'invalid'}`, requestId);
  }
  return requestId === undefined ? { value: parsed.data } : { value: parsed.data, requestId };
}

/** The `ApiError` an error answer stands for, with the server's advised wait (bounded) for a 429 or 503. */
export function decodeError(
  answer: Answer,
  { dialect, site, attempt, secrets, logger }: AnswerContext,
): ApiError {
  const { status } = answer;
  const described = dialect.describeError(status, answer.text);
  const advisedMs = status === 429 || status === 503 ? parseRetryAfter(answer.headers) : undefined;
  const retryAfterMs = advisedMs === undefined ? undefined : boundServerWait(advisedMs);
  if (advisedMs !== retryAfterMs) {
    logger.warn(
      { ...site, status, advisedMs, retryAfterMs },
      'Retry-After / X-RateLimit-Reset asks for a longer wait than sluice honours; waiting the longest it does',
    );
  }
  return new ApiError({
    ...site,
    attempts: attempt,
    status,
    code: described.code,
    apiMessage: scrub(described.message, secrets),
    requestId: described.requestId,
    retryAfterMs,
    retryable: isRetryableStatus(status),
    // A 5xx to a write may come after the write was applied.
    mayHaveSucceeded: status >= 500 && site.method !== 'GET',
  });
}
