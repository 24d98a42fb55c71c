import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { describeFirstIssue, MANAGEMENT_ERROR_CODES } from '../cloud/schemas/index.ts';

/** Which surface a route belongs to: each API answers errors in its own shape. */
export type ApiKind = 'management' | 'alerting' | 'control';

/** An answer other than 200, thrown anywhere in a request's life and shaped by the error handler. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (message: string) => new ApiError(400, message);
export const notFound = (message: string) => new ApiError(404, message);
export const conflict = (message: string) => new ApiError(409, message);

/** A zod failure as the APIs phrase it: the first issue, starting with the offending field's path. */
export const invalid = (error: z.ZodError) => badRequest(describeFirstIssue(error));

/** `CODE` of `"<CODE>: <message>"`; statuses outside the documented list get their HTTP reason in that style. */
export function errorCode(status: number): string {
  const known = (MANAGEMENT_ERROR_CODES as Record<number, string>)[status];
  if (known) return known;
  const reason = STATUS_CODES[status];
  return reason ? reason.toUpperCase().replace(/[^A-Z0-9]+/g, '_') : 'ERROR';
}

export function managementErrorBody(status: number, message: string) {
  return { status, error: `${errorCode(status)}: ${message}`, requestId: randomUUID() };
}

/** Sends an error in the shape of the route's API. */
export function sendError(
  reply: FastifyReply,
  api: ApiKind,
  status: number,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): FastifyReply {
  reply.code(status).headers(headers);
  switch (api) {
    case 'management':
      return reply.type('application/json; charset=utf-8').send(managementErrorBody(status, message));
    case 'alerting':
      if (status === 401) return reply.type('text/plain; charset=utf-8').send('Unauthorized');
      return reply.type('application/json; charset=utf-8').send({ message });
    case 'control':
      return reply.type('application/json; charset=utf-8').send({ error: message });
  }
}
