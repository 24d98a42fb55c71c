import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  classifyNetworkError,
  DEFAULT_RETRY_POLICY,
  isNeverSentCode,
  isRetryableStatus,
  parseRetryAfter,
} from '../../../src/cloud/retry.ts';

const policy = { baseDelayMs: 200, maxDelayMs: 10_000 };

describe('backoffDelay (exponential, full jitter)', () => {
  it('draws from [0, base·2^(n-1)): the ceiling doubles per retry', () => {
    const justBelowOne = () => 0.999_999;
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, policy, justBelowOne))).toEqual([
      199, 399, 799, 1_599, 3_199, 6_399,
    ]);
  });

  it('is capped at the maximum, even for absurd retry counts', () => {
    expect(backoffDelay(7, policy, () => 0.999_999)).toBe(9_999);
    expect(backoffDelay(5_000, policy, () => 0.999_999)).toBe(9_999);
  });

  it('can be zero (full jitter spreads callers over the whole range)', () => {
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
    const draws = Array.from({ length: 1_000 }, () => backoffDelay(3, policy));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(800);
    expect(new Set(draws).size).toBeGreaterThan(100);
  });

  it('has the documented defaults', () => {
    expect(DEFAULT_RETRY_POLICY).toMatchObject({ baseDelayMs: 200, maxDelayMs: 10_000, maxAttempts: 5 });
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads delta seconds', () => {
    expect(parseRetryAfter({ 'retry-after': '1' }, now)).toBe(1_000);
    expect(parseRetryAfter({ 'Retry-After': '7' }, now)).toBe(7_000);
    expect(parseRetryAfter({ 'retry-after': '0.5' }, now)).toBe(500);
  });

  it('reads an HTTP date', () => {
    expect(parseRetryAfter({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }, now)).toBe(3_000);
    expect(parseRetryAfter({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }, now)).toBe(0);
  });

  it('reads X-RateLimit-Reset as seconds until the reset, or as an epoch when it looks like one', () => {
    expect(parseRetryAfter({ 'x-ratelimit-reset': '4' }, now)).toBe(4_000);
    expect(parseRetryAfter({ 'x-ratelimit-reset': String(now / 1000 + 6) }, now)).toBe(6_000);
  });

  it('takes the longer wait when both headers are present', () => {
    expect(parseRetryAfter({ 'retry-after': '2', 'x-ratelimit-reset': '5' }, now)).toBe(5_000);
    expect(parseRetryAfter({ 'retry-after': '9', 'x-ratelimit-reset': '5' }, now)).toBe(9_000);
  });

  it('ignores missing, empty and garbage values', () => {
    expect(parseRetryAfter({}, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': '' }, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': '-3' }, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': ['3', '9'] }, now)).toBe(3_000);
  });
});

describe('retry classification', () => {
  it('retries 429 and 5xx only', () => {
    expect([400, 401, 403, 404, 409, 424].some(isRetryableStatus)).toBe(false);
    expect([429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
  });

  it('knows which low-level failures prove the request was never sent', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(classifyNetworkError(refused)).toMatchObject({
      failure: 'connection-refused',
      code: 'ECONNREFUSED',
    });
    expect(isNeverSentCode('ECONNREFUSED')).toBe(true);
    expect(isNeverSentCode('UND_ERR_CONNECT_TIMEOUT')).toBe(true);
    expect(isNeverSentCode('ENOTFOUND')).toBe(true);
    expect(isNeverSentCode('ECONNRESET')).toBe(false);
    expect(isNeverSentCode('UND_ERR_SOCKET')).toBe(false);
    expect(isNeverSentCode('UND_ERR_HEADERS_TIMEOUT')).toBe(false);
  });

  it('classifies timeouts, resets and aborts', () => {
    const withCode = (code: string) => Object.assign(new Error(code), { code });
    expect(classifyNetworkError(withCode('UND_ERR_HEADERS_TIMEOUT')).failure).toBe('headers-timeout');
    expect(classifyNetworkError(withCode('UND_ERR_BODY_TIMEOUT')).failure).toBe('body-timeout');
    expect(classifyNetworkError(withCode('UND_ERR_SOCKET')).failure).toBe('connection-reset');
    expect(classifyNetworkError(withCode('ECONNRESET')).failure).toBe('connection-reset');
    expect(classifyNetworkError(new DOMException('aborted', 'AbortError')).failure).toBe('aborted');
    expect(classifyNetworkError('weird').code).toBe('UNKNOWN');
  });

  it('finds the code inside an AggregateError (happy eyeballs) or a cause chain', () => {
    const inner = Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
    expect(classifyNetworkError(new AggregateError([inner], 'all failed')).code).toBe('ECONNREFUSED');
    expect(classifyNetworkError(new Error('wrapped', { cause: inner })).code).toBe('ECONNREFUSED');
  });
});
