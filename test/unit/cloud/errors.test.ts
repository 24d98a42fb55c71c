import { describe, expect, it } from 'vitest';
import { alertingDialect } from '../../../src/cloud/alerting-client.ts';
import {
  AmbiguousRequestError,
  ApiError,
  CloudError,
  codeForStatus,
  DeferredRequestError,
  isConflict,
  isNotFound,
  isRateLimited,
  isRetryable,
  isUnauthorized,
  mayHaveSucceeded,
  NetworkError,
  parseManagementErrorText,
} from '../../../src/cloud/errors.ts';
import { managementDialect } from '../../../src/cloud/management-client.ts';
import { failureOf } from '../../../src/base/failure.ts';
import { RETRY_DELAYS } from '../../../src/base/retry-delays.ts';

const site = {
  api: 'management' as const,
  method: 'GET',
  route: '/v1/organizations/:organizationId/services/:serviceId',
  path: '/v1/organizations/o/services/s',
  attempts: 1,
};

describe('management error bodies', () => {
  it('split "<CODE>: <message>" into code and message', () => {
    expect(parseManagementErrorText('BAD_REQUEST: maxReplicaMemoryGb must be a multiple of 4')).toEqual({
      code: 'BAD_REQUEST',
      message: 'maxReplicaMemoryGb must be a multiple of 4',
    });
    expect(parseManagementErrorText("CONFLICT: cannot delete. Current state: 'running'")).toEqual({
      code: 'CONFLICT',
      message: "cannot delete. Current state: 'running'",
    });
    expect(parseManagementErrorText('no code here')).toBeUndefined();
  });

  it('are described with code, message and request id', () => {
    const body = JSON.stringify({
      status: 404,
      error: 'NOT_FOUND: service 5f1c not found',
      requestId: '9a3e4c52-7a1b-4b8e-9a51-0d7c3f6a2b10',
    });
    expect(managementDialect.describeError(404, body)).toEqual({
      code: 'NOT_FOUND',
      message: 'service 5f1c not found',
      requestId: '9a3e4c52-7a1b-4b8e-9a51-0d7c3f6a2b10',
    });
  });

  it('fall back to the status when the body is not the API error shape', () => {
    expect(managementDialect.describeError(502, '<html>Bad gateway</html>')).toEqual({
      code: 'BAD_GATEWAY',
      message: '<html>Bad gateway</html>',
    });
    expect(managementDialect.describeError(500, '')).toEqual({ code: 'INTERNAL_ERROR', message: 'HTTP 500' });
    expect(managementDialect.describeError(409, JSON.stringify({ status: 409, error: 'busy' }))).toEqual({
      code: 'CONFLICT',
      message: 'busy',
    });
  });

  it('unwraps the {status, requestId, result} envelope', () => {
    expect(managementDialect.unwrap({ status: 200, requestId: 'r', result: { id: 'x' } })).toEqual({
      ok: true,
      value: { id: 'x' },
      requestId: 'r',
    });
    expect(managementDialect.unwrap({ id: 'x' })).toMatchObject({ ok: false });
  });
});

describe('alerting error bodies', () => {
  it('take the code from the status and the message from {message} or the plain text', () => {
    expect(
      alertingDialect.describeError(400, JSON.stringify({ message: 'interval must be one of 1m, 5m' })),
    ).toEqual({
      code: 'BAD_REQUEST',
      message: 'interval must be one of 1m, 5m',
    });
    expect(alertingDialect.describeError(401, 'Unauthorized')).toEqual({
      code: 'UNAUTHORIZED',
      message: 'Unauthorized',
    });
    expect(alertingDialect.describeError(404, JSON.stringify({ message: 'alert not found' })).code).toBe(
      'NOT_FOUND',
    );
  });

  it('unwraps {data}', () => {
    expect(alertingDialect.unwrap({ data: [1] })).toEqual({ ok: true, value: [1] });
    expect(alertingDialect.unwrap({})).toMatchObject({ ok: false });
  });
});

describe('codeForStatus', () => {
  it('names the statuses the management API uses and the usual gateway ones', () => {
    expect([400, 401, 403, 404, 409, 424, 429, 500].map(codeForStatus)).toEqual([
      'BAD_REQUEST',
      'UNAUTHORIZED',
      'FORBIDDEN',
      'NOT_FOUND',
      'CONFLICT',
      'FAILED_DEPENDENCY',
      'TOO_MANY_REQUESTS',
      'INTERNAL_ERROR',
    ]);
    expect(codeForStatus(503)).toBe('SERVICE_UNAVAILABLE');
    expect(codeForStatus(502)).toBe('BAD_GATEWAY');
    expect(codeForStatus(499)).toBe('HTTP_499');
  });
});

describe('ApiError', () => {
  /** The management API's 404 for a service, as answered to the request `requestId`. */
  const serviceNotFound = (requestId: string) =>
    new ApiError({
      ...site,
      status: 404,
      code: 'NOT_FOUND',
      apiMessage: 'service not found',
      requestId,
      retryable: false,
      mayHaveSucceeded: false,
    });
  const notFound = serviceNotFound('req-1');

  it('carries status, code, message, request id and the route it came from', () => {
    expect(notFound).toBeInstanceOf(CloudError);
    expect(notFound).toBeInstanceOf(Error);
    expect(notFound.name).toBe('ApiError');
    expect(notFound.message).toBe(
      'GET /v1/organizations/:organizationId/services/:serviceId failed: 404 NOT_FOUND: service not found',
    );
    expect(notFound).toMatchObject({ status: 404, code: 'NOT_FOUND', requestId: 'req-1', method: 'GET' });
  });

  it('words the same failure the same way whatever its request id, so a retry repeats no Event', () => {
    const again = serviceNotFound('req-2');
    expect(again.message).toBe(notFound.message);
    expect(again.message).not.toContain('req-');
  });

  it('has helpers as methods and as functions that accept anything', () => {
    expect(notFound.isNotFound()).toBe(true);
    expect(notFound.isConflict()).toBe(false);
    expect(isNotFound(notFound)).toBe(true);
    expect(isNotFound(new Error('404'))).toBe(false);
    expect(isNotFound(undefined)).toBe(false);
    expect(isConflict(notFound)).toBe(false);
    expect(isRateLimited(notFound)).toBe(false);
    expect(isUnauthorized(notFound)).toBe(false);
    expect(isRetryable(notFound)).toBe(false);
  });
});

/** A request the server never received: its connection was refused. */
const connectionRefused = (causeMessage: string) =>
  new NetworkError({
    ...site,
    retryable: true,
    mayHaveSucceeded: false,
    sent: false,
    failure: 'connection-refused',
    code: 'ECONNREFUSED',
    causeMessage,
  });

describe('network errors', () => {
  it('say whether the request was sent', () => {
    const refused = connectionRefused('connect ECONNREFUSED 127.0.0.1:9');
    expect(refused.message).toContain('the server never received it');
    expect(refused.sent).toBe(false);
    expect(mayHaveSucceeded(refused)).toBe(false);
  });

  it('flag an ambiguous create as possibly successful', () => {
    const ambiguous = new AmbiguousRequestError({
      ...site,
      method: 'POST',
      retryable: true,
      failure: 'connection-reset',
      code: 'UND_ERR_SOCKET',
      causeMessage: 'other side closed',
    });
    expect(ambiguous).toBeInstanceOf(NetworkError);
    expect(ambiguous.mayHaveSucceeded).toBe(true);
    expect(ambiguous.sent).toBe(true);
    expect(ambiguous.message).toMatch(/may have succeeded/);
    expect(mayHaveSucceeded(ambiguous)).toBe(true);
  });
});

describe('what a cloud error tells the reconciler', () => {
  const apiError = (status: number, retryAfterMs?: number) =>
    new ApiError({
      ...site,
      status,
      code: codeForStatus(status),
      apiMessage: 'x',
      retryAfterMs,
      retryable: status === 429 || status >= 500,
      mayHaveSucceeded: false,
    });

  it('a request refused as invalid is terminal: reported as rejected, retried after the table’s delay', () => {
    for (const status of [400, 403, 404, 409, 424]) {
      expect(failureOf(apiError(status))).toEqual({
        kind: 'terminal',
        reason: 'CloudRequestRejected',
        retryAfterMs: RETRY_DELAYS.rejectedRequest,
      });
    }
  });

  it('a rate limit or server error is worth retrying, no sooner than the server advised', () => {
    expect(failureOf(apiError(429, 2_000))).toEqual({
      kind: 'retry-after',
      reason: 'CloudRequestRejected',
      retryAfterMs: 2_000,
    });
    expect(failureOf(apiError(429))).toEqual({ kind: 'retry-after', reason: 'CloudRequestRejected' });
    expect(failureOf(apiError(503, 5_000))).toEqual({
      kind: 'retry-after',
      reason: 'CloudApiError',
      retryAfterMs: 5_000,
    });
    expect(failureOf(apiError(500))).toEqual({ kind: 'retry-after', reason: 'CloudApiError' });
  });

  it('a call not sent for its quota is a deferral, not a failure; a network error says nothing', () => {
    const deferred = new DeferredRequestError({ ...site, retryAfterMs: 7_500, reason: 'quota' });
    expect(failureOf(deferred)).toEqual({ kind: 'deferral', retryAfterMs: 7_500 });
    const network = connectionRefused('refused');
    expect(failureOf(network)).toBeUndefined();
  });
});
