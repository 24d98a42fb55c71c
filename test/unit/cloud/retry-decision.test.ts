import { describe, expect, it } from 'vitest';
import { decideRetry, DEFAULT_RETRY_POLICY, type RetryLimits } from '../../../src/cloud/retry.ts';

const limits: RetryLimits = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 5_000 };
const read = { idempotent: true };
const create = { idempotent: false };
/** The top of every jitter range: delays are the ceilings, so they can be asserted exactly. */
const top = () => 0.999;

describe('decideRetry without an answer', () => {
  it('retries a create that provably never left, after a full-jitter backoff that doubles', () => {
    const unsent = { kind: 'network', sent: false } as const;
    expect(decideRetry(unsent, 1, create, limits, top)).toEqual({ action: 'retry', delayMs: 99 });
    expect(decideRetry(unsent, 2, create, limits, top)).toEqual({ action: 'retry', delayMs: 199 });
  });

  it('never resends a create that may have reached the server, even on the first attempt', () => {
    expect(decideRetry({ kind: 'network', sent: true }, 1, create, limits, top)).toEqual({
      action: 'ambiguous',
    });
  });

  it('retries a read that may have reached the server, until the attempts are spent', () => {
    const sent = { kind: 'network', sent: true } as const;
    expect(decideRetry(sent, 2, read, limits, top)).toMatchObject({ action: 'retry' });
    expect(decideRetry(sent, 3, read, limits, top)).toEqual({ action: 'give-up' });
  });
});

describe('decideRetry with an error status', () => {
  it('retries 429 even for a create (the server refused it), but a 5xx only when idempotent', () => {
    expect(decideRetry({ kind: 'status', status: 429 }, 1, create, limits, top)).toMatchObject({
      action: 'retry',
    });
    expect(decideRetry({ kind: 'status', status: 500 }, 1, create, limits, top)).toEqual({
      action: 'give-up',
    });
    expect(decideRetry({ kind: 'status', status: 503 }, 1, read, limits, top)).toEqual({
      action: 'retry',
      delayMs: 99,
    });
  });

  it('gives up at once on a 4xx other than 429, and on anything at the last attempt', () => {
    for (const status of [400, 401, 404, 409, 424]) {
      expect(decideRetry({ kind: 'status', status }, 1, read, limits, top)).toEqual({ action: 'give-up' });
    }
    expect(decideRetry({ kind: 'status', status: 500 }, 3, read, limits, top)).toEqual({ action: 'give-up' });
  });

  it('waits at least the server-advised time, plus jitter below the base delay', () => {
    const advised = { kind: 'status', status: 429, retryAfterMs: 2_000 } as const;
    expect(decideRetry(advised, 1, read, limits, top)).toEqual({ action: 'retry', delayMs: 2_099 });
    expect(decideRetry(advised, 1, read, limits, () => 0)).toEqual({ action: 'retry', delayMs: 2_000 });
  });

  it('defers a 429 whose advised wait is longer than the call may wait; reports a 503 then', () => {
    const bounded = { ...limits, maxWaitMs: 1_000 };
    expect(
      decideRetry({ kind: 'status', status: 429, retryAfterMs: 2_000 }, 1, create, bounded, top),
    ).toEqual({ action: 'defer', retryAfterMs: 2_000 });
    expect(decideRetry({ kind: 'status', status: 503, retryAfterMs: 2_000 }, 1, read, bounded, top)).toEqual({
      action: 'give-up',
    });
  });

  it('does not sleep through an advised wait longer than maxRetryAfterMs when no deadline defers it', () => {
    expect(decideRetry({ kind: 'status', status: 429, retryAfterMs: 6_000 }, 1, read, limits, top)).toEqual({
      action: 'give-up',
    });
  });

  it('makes 5 attempts by default', () => {
    const failed = { kind: 'status', status: 500 } as const;
    expect(decideRetry(failed, 4, read, DEFAULT_RETRY_POLICY, top)).toMatchObject({ action: 'retry' });
    expect(decideRetry(failed, 5, read, DEFAULT_RETRY_POLICY, top)).toEqual({ action: 'give-up' });
  });
});
