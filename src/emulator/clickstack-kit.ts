/**
 * The alerting API is reached two ways, and every one of its routes is served on both, over one store:
 *
 *   self-hosted  `/api/v2/<path>`, `Authorization: Bearer <token>`, answers `{data}`, errors `{message}`
 *   cloud        `/v1/organizations/{org}/services/{serviceId}/clickstack/<path>`, the management key (Basic),
 *                answers `{status, requestId, result}`, errors `{status, error, requestId}`; the service must exist
 *
 * Both count against the alerting quota (100 per 60 s): per token on the self-hosted path, per key on the cloud one.
 */
import type { FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { z } from 'zod';
import type { App, EmulatorContext } from './context.ts';
import { ok, requireService, SERVICE, ServiceParams } from './route-kit.ts';

export const SELF_HOSTED_PREFIX = '/api/v2';
export const CLOUD_PREFIX = `${SERVICE}/clickstack`;

/**
 * How a handler's result is answered: inside the envelope (`meta`, a list's paging, on the self-hosted path only),
 * bare on the self-hosted path and in the envelope on the cloud one (the validate call), or empty (a delete).
 */
export type Answer = { data: unknown; meta?: unknown } | { bare: unknown } | { empty: true };

export type ClickstackHandler = (request: FastifyRequest) => Answer;

interface Transport {
  prefix: string;
  config: NonNullable<RouteShorthandOptions['config']>;
  before(ctx: EmulatorContext, request: FastifyRequest): void;
  send(answer: Answer): unknown;
}

const TRANSPORTS: readonly Transport[] = [
  {
    prefix: SELF_HOSTED_PREFIX,
    config: { api: 'alerting' },
    before: () => {},
    send: (answer) => ('data' in answer ? answer : 'bare' in answer ? answer.bare : {}),
  },
  {
    prefix: CLOUD_PREFIX,
    config: { api: 'management', params: ServiceParams, quota: 'alerting' },
    before: (ctx, request) => void requireService(ctx, (request.params as { serviceId: string }).serviceId),
    send: (answer) => ok('data' in answer ? answer.data : 'bare' in answer ? answer.bare : {}),
  },
];

type Method = 'get' | 'post' | 'put' | 'delete';

/** Registers `handler` for `method path` on both transports; `body` validates the request body. */
export function serveBoth(
  app: App,
  ctx: EmulatorContext,
  method: Method,
  path: string,
  handler: ClickstackHandler,
  body?: z.ZodType,
  transports: readonly Transport[] = TRANSPORTS,
): void {
  for (const transport of transports) {
    const options = { config: transport.config, ...(body ? { schema: { body } } : {}) };
    app[method](`${transport.prefix}${path}`, options, (request) => {
      transport.before(ctx, request);
      return transport.send(handler(request));
    });
  }
}

/** The same, on the self-hosted path alone (what the cloud path does not serve). */
export const serveSelfHosted = (
  app: App,
  ctx: EmulatorContext,
  method: Method,
  path: string,
  handler: ClickstackHandler,
  body?: z.ZodType,
) => serveBoth(app, ctx, method, path, handler, body, [TRANSPORTS[0]!]);

/** The cloud path alone. */
export const serveCloud = (
  app: App,
  ctx: EmulatorContext,
  method: Method,
  path: string,
  handler: ClickstackHandler,
  body?: z.ZodType,
) => serveBoth(app, ctx, method, path, handler, body, [TRANSPORTS[1]!]);

export const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;
