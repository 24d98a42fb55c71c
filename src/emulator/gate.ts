/**
 * What every API call passes before its handler, in this order (one onRequest hook, before the body is read):
 *
 *   0. faults     an installed fault matching the route may delay, fail, drop or hang the call
 *   1. auth       401 (management: Basic keyId:keySecret of the configured key or an enabled, unexpired created
 *                 one; alerting: Bearer token) — counts against no budget
 *   2. org        403 when the path names another (well-formed) organization id
 *   2b. roles     403 when the key's roles do not allow the route, or its IP access list the caller's address
 *   3. rate limit 429 per management key (each created key its own window) / alerts token, fixed window; the
 *                 alerting API's cloud path counts its management key against the alerting limit
 *   4. path ids   400 naming the parameter that is not a uuid
 *
 * then fastify reads the body (malformed JSON → 400) and validates it with the shared schema (400 naming the
 * field), and the handler checks existence (404) and state (409/424). Control routes only check that the
 * caller is on loopback.
 */
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { redactSecrets } from '../cloud/redaction.ts';
import { Uuid } from '../cloud/schemas/common.ts';
import { authenticate, rolesAllow } from './api-keys.ts';
import type { CallLog } from './call-log.ts';
import type { App, EmulatorContext } from './context.ts';
import { ApiError, invalid, sendError } from './errors.ts';
import type { ApiKind } from './errors.ts';
import type { Fault, FaultTable } from './faults.ts';
import type { FixedWindowRateLimiter } from './rate-limit.ts';
import type { EmulatorCredentials } from './state-file.ts';

export interface GateOptions {
  credentials: EmulatorCredentials;
  /** The created keys live in its store; expiry is judged by its clock. */
  ctx: EmulatorContext;
  managementLimiter: FixedWindowRateLimiter;
  alertsLimiter: FixedWindowRateLimiter;
  faults: FaultTable;
  calls: CallLog;
  /** Sockets of calls a fault left hanging, and timers of delayed calls: both end with the emulator. */
  hung: Set<Socket>;
  delays: Set<ReturnType<typeof setTimeout>>;
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

export function installGate(app: App, options: GateOptions): void {
  const { credentials, ctx, managementLimiter, alertsLimiter, faults, calls, hung, delays } = options;
  const organizationId = credentials.organizationId.toLowerCase();

  /** The key id and secret a Basic header presents (right or wrong); null when it presents none. */
  function readBasic(header: string | undefined): { keyId: string | null; keySecret: string | null } {
    const match = header === undefined ? null : /^basic\s+(\S+)\s*$/i.exec(header);
    if (!match) return { keyId: null, keySecret: null };
    const pair = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = pair.indexOf(':');
    if (colon < 0) return { keyId: null, keySecret: null };
    return { keyId: pair.slice(0, colon), keySecret: pair.slice(colon + 1) };
  }

  function bearerValid(header: string | undefined): boolean {
    const match = header === undefined ? null : /^bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1] === credentials.alertsToken;
  }

  function record(request: FastifyRequest, status: number): void {
    const url = request.url;
    const query = url.indexOf('?');
    calls.record({
      method: request.method,
      path: query < 0 ? url : url.slice(0, query),
      route: request.routeOptions.url ?? url,
      status,
      key: request.callKey,
      at: request.arrivedAt,
      // What a write asked for, so tests can assert the exact change; secrets never enter the log.
      ...(request.method !== 'GET' && request.body !== undefined
        ? { body: redactSecrets(request.body) }
        : {}),
    });
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        delays.delete(timer);
        resolve();
      }, ms);
      delays.add(timer);
    });
  }

  /** Ends a call without an answer: the socket is destroyed (drop) or left open until the emulator stops. */
  function swallow(fault: Fault, request: FastifyRequest): void {
    record(request, 0);
    request.recorded = true;
    endWithoutAnswer(fault, request);
  }

  function endWithoutAnswer(fault: Fault, request: FastifyRequest): void {
    const socket = request.raw.socket;
    if (fault.drop) socket.destroy();
    else {
      hung.add(socket);
      socket.once('close', () => hung.delete(socket));
    }
  }

  /** Applies a fault; true when it answered (or swallowed) the call, so nothing else may happen. */
  async function applyFault(fault: Fault, request: FastifyRequest, reply: FastifyReply, api: ApiKind) {
    if (fault.phase === 'response') {
      request.responseFault = fault;
      return false;
    }
    if (fault.latencyMs) await sleep(fault.latencyMs);
    if (fault.drop || fault.hang) {
      reply.hijack();
      swallow(fault, request);
      return true;
    }
    if (fault.status !== undefined) {
      const headers: Record<string, string> = {};
      if (fault.retryAfter !== undefined) {
        headers['retry-after'] = String(fault.retryAfter);
        if (api === 'management') headers['x-ratelimit-reset'] = String(fault.retryAfter);
      }
      sendError(reply, api, fault.status, `injected fault (${fault.id})`, headers);
      return true;
    }
    return false;
  }

  app.decorateRequest('callKey', null);
  app.decorateRequest('caller', null);
  app.decorateRequest('arrivedAt', 0);
  app.decorateRequest('responseFault', null);
  app.decorateRequest('recorded', false);

  // Response-phase faults: the handler has run (a create has created); now the answer is held back or lost.
  app.addHook('onSend', async (request, reply, payload) => {
    const fault = request.responseFault;
    if (!fault) return payload;
    // The call was handled: it is logged with the handler's status, whatever happens to the answer now.
    record(request, reply.statusCode);
    request.recorded = true;
    if (fault.latencyMs) await sleep(fault.latencyMs);
    if (fault.drop || fault.hang) {
      endWithoutAnswer(fault, request);
      return new Promise<never>(() => {});
    }
    return payload;
  });

  app.addHook('onRequest', async (request, reply) => {
    const { api, params, quota } = request.routeOptions.config;
    if (api === undefined) return;
    if (api === 'control') {
      if (!isLoopback(request.socket.remoteAddress)) {
        throw new ApiError(403, 'control routes answer loopback callers only');
      }
      return;
    }
    request.arrivedAt = Date.now();
    const header = request.headers.authorization;
    const basic = api === 'management' ? readBasic(header) : undefined;
    request.callKey = basic ? basic.keyId : 'alerts';

    if (!faults.empty) {
      const fault = faults.take(request.method, request.routeOptions.url ?? '');
      if (fault && (await applyFault(fault, request, reply, api))) return reply;
    }

    if (basic) {
      if (basic.keyId === null || basic.keySecret === null) {
        throw new ApiError(401, 'invalid or missing API key (HTTP Basic keyId:keySecret)');
      }
      const caller = authenticate(
        ctx,
        credentials,
        { keyId: basic.keyId, keySecret: basic.keySecret },
        request.socket.remoteAddress,
      );
      request.caller = caller;
      const org = (request.params as { organizationId?: string }).organizationId;
      if (org !== undefined && org.toLowerCase() !== organizationId && Uuid.safeParse(org).success) {
        throw new ApiError(403, `the API key has no access to organization ${org}`);
      }
      const route = request.routeOptions.url ?? '';
      if (!rolesAllow(caller.roles, request.method, route)) {
        throw new ApiError(
          403,
          `the API key's roles (${caller.roles.join(', ')}) do not allow ${request.method} ${route}`,
        );
      }
      const limiter = quota === 'alerting' ? alertsLimiter : managementLimiter;
      const decision = limiter.take(caller.quotaKey);
      if (!decision.allowed) {
        const seconds = String(decision.retryAfterSeconds);
        throw new ApiError(429, `rate limit of ${describeLimit(limiter)} per API key exceeded`, {
          'retry-after': seconds,
          'x-ratelimit-reset': seconds,
        });
      }
    } else {
      if (!bearerValid(header)) throw new ApiError(401, 'Unauthorized');
      const decision = alertsLimiter.take(credentials.alertsToken);
      if (!decision.allowed) {
        throw new ApiError(429, `rate limit of ${describeLimit(alertsLimiter)} per token exceeded`, {
          'retry-after': String(decision.retryAfterSeconds),
        });
      }
    }

    if (params) {
      const parsed = params.safeParse(request.params);
      if (!parsed.success) throw invalid(parsed.error);
    }
    return undefined;
  });

  app.addHook('onResponse', (request, reply, done) => {
    const { api } = request.routeOptions.config;
    if ((api === 'management' || api === 'alerting') && !request.recorded) record(request, reply.statusCode);
    done();
  });
}

function describeLimit(limiter: FixedWindowRateLimiter): string {
  const limit = limiter.limit;
  return limit === 'off' ? 'none' : `${limit.requests} requests per ${limit.windowSeconds} s`;
}
