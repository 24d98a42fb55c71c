/**
 * `startEmulator()`: both cloud APIs and the control routes on one port (see docs/emulator.md).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo, Socket } from 'node:net';
import Fastify, { LogController } from 'fastify';
import type { FastifyBaseLogger } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { registerAlertingRoutes } from './alerting-routes.ts';
import { registerApiKeyRoutes } from './api-keys.ts';
import { CallLog } from './call-log.ts';
import type { App, EmulatorContext } from './context.ts';
import { registerControlRoutes } from './control-routes.ts';
import { registerDashboardRoutes } from './dashboard-routes.ts';
import { registerSavedSearchRoutes } from './saved-search-routes.ts';
import { registerSourceRoutes } from './source-routes.ts';
import { registerWebhookRoutes } from './webhook-routes.ts';
import { registerEndpointRoutes } from './endpoint-routes.ts';
import { ApiError, invalid, sendError } from './errors.ts';
import type { ApiKind } from './errors.ts';
import { FaultTable } from './faults.ts';
import { installGate } from './gate.ts';
import { resumeAll } from './lifecycle.ts';
import { EMPTY_BODY_ALLOWED, registerServiceRoutes } from './management-routes.ts';
import { registerOrganizationRoutes } from './organization-routes.ts';
import { registerPipeRoutes } from './pipe-routes.ts';
import { registerServiceConfigRoutes } from './service-config-routes.ts';
import { registerServiceScheduleRoutes } from './service-schedule-routes.ts';
import { FixedWindowRateLimiter } from './rate-limit.ts';
import type { RateLimitOption } from './rate-limit.ts';
import { readStateFile, StateFileWriter } from './state-file.ts';
import type { EmulatorCredentials } from './state-file.ts';
import { Store } from './store.ts';
import { REAL_TIMINGS, scaleMs, timeScaleProblem } from '../base/timings.ts';
import { EmulatorClock } from './clock.ts';
import { Transitions } from './transitions.ts';

export type { EmulatorCredentials } from './state-file.ts';
export type { RateLimitOption } from './rate-limit.ts';

export interface EmulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 8080; 0 picks a free port. */
  port?: number;
  organizationId?: string;
  keyId?: string;
  keySecret?: string;
  alertsToken?: string;
  /** Time each state-machine step takes; default 2000 (on the time scale); 0 = at once, still asynchronous. */
  transitionMs?: number;
  /** Per management key; default the real 10 requests per 10 s (on the time scale). `'off'` turns off both limits. */
  rateLimit?: RateLimitOption;
  /** Per alerting token; default 100 requests per 60 s (on the time scale). */
  alertsRateLimit?: RateLimitOption;
  /**
   * How many times faster than real time the defaults above run (`--time-scale` of `sluice run` too): 10 makes
   * the limits 10 per 1 s and 100 per 6 s. Limits and times given explicitly are taken as given. Default 1.
   */
  timeScale?: number;
  /** A non-paid organization: lower memory bounds, no top-tier options. Default false. */
  unpaid?: boolean;
  /** Resources (and generated credentials) survive restarts in this JSON file. */
  stateFile?: string;
  /** Logs startup and failures only (never request bodies or headers). Default false. */
  logger?: Logger | FastifyBaseLogger | false;
  /** Seed of the fault generator. Default 1. */
  seed?: number;
}

export interface Emulator {
  /** e.g. `http://127.0.0.1:8080` */
  url: string;
  port: number;
  credentials: EmulatorCredentials;
  /** Credentials that were neither given nor found in the state file, so were generated. */
  generated: Array<keyof EmulatorCredentials>;
  /** In-process access for tests that cannot go through HTTP; prefer the HTTP API. */
  store: Store;
  stop(): Promise<void>;
}

/** The real APIs' limits at `factor` times real time. */
const defaultRateLimits = (factor: number) => ({
  management: { requests: 10, windowSeconds: scaleMs(REAL_TIMINGS.managementQuotaWindowMs, factor) / 1000 },
  alerting: { requests: 100, windowSeconds: scaleMs(REAL_TIMINGS.alertingQuotaWindowMs, factor) / 1000 },
});

const token = (bytes: number) => randomBytes(bytes).toString('base64url');

function resolveCredentials(options: EmulatorOptions, saved: EmulatorCredentials | undefined) {
  const generated: Array<keyof EmulatorCredentials> = [];
  const pick = (key: keyof EmulatorCredentials, make: () => string): string => {
    const given = options[key] ?? saved?.[key];
    if (given !== undefined) return given;
    generated.push(key);
    return make();
  };
  const credentials: EmulatorCredentials = {
    organizationId: pick('organizationId', randomUUID).toLowerCase(),
    keyId: pick('keyId', () => `emu${randomBytes(8).toString('hex')}`),
    keySecret: pick('keySecret', () => `4b1d${token(24)}`),
    alertsToken: pick('alertsToken', () => token(24)),
  };
  return { credentials, generated };
}

function apiOfUrl(url: string): ApiKind {
  if (url.startsWith('/api/')) return 'alerting';
  if (url.startsWith('/_emulator')) return 'control';
  return 'management';
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const saved = options.stateFile ? readStateFile(options.stateFile) : undefined;
  const { credentials, generated } = resolveCredentials(options, saved?.credentials);
  const factor = options.timeScale ?? 1;
  const scaleProblem = timeScaleProblem(factor);
  if (scaleProblem !== undefined) throw new RangeError(`timeScale ${scaleProblem}`);
  const defaults = defaultRateLimits(factor);
  const rateLimit = options.rateLimit ?? defaults.management;
  const alertsRateLimit = rateLimit === 'off' ? 'off' : (options.alertsRateLimit ?? defaults.alerting);

  const store = new Store();
  const transitions = new Transitions(options.transitionMs ?? scaleMs(REAL_TIMINGS.transitionMs, factor));
  const calls = new CallLog();
  const clock = new EmulatorClock();
  const faults = new FaultTable(options.seed ?? 1);
  const managementLimiter = new FixedWindowRateLimiter(rateLimit);
  const alertsLimiter = new FixedWindowRateLimiter(alertsRateLimit);
  const hung = new Set<Socket>();
  const delays = new Set<ReturnType<typeof setTimeout>>();
  const logger = options.logger || undefined;

  const writer = options.stateFile
    ? new StateFileWriter(
        options.stateFile,
        () => ({ version: 1, credentials, resources: store.snapshot() }),
        100,
        (error) => logger?.error({ err: error }, 'could not write the state file'),
      )
    : undefined;

  const ctx: EmulatorContext = {
    organizationId: credentials.organizationId,
    keyId: credentials.keyId,
    paid: options.unpaid !== true,
    // One fixed team per organization, derived from its id so it survives restarts.
    teamId: credentials.organizationId.replace(/-/g, '').slice(0, 24),
    store,
    transitions,
    timestamp: () => clock.timestamp(),
    now: () => clock.now(),
    changed: () => writer?.schedule(),
  };

  // fastify gets no logger at all: no per-request child loggers or log lines (throughput), and nothing that
  // could print a body or header (secrets). The emulator logs startup and failures itself.
  const app: App = Fastify({
    logger: false,
    logController: new LogController({ disableRequestLogging: true }),
    exposeHeadRoutes: false,
    forceCloseConnections: true,
    // The real API treats `…/pipes/` as `…/pipes`, and its official client sends such paths.
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<ZodTypeProvider>();

  // Bodies are JSON whatever the content type says; an empty body is no body.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, text, done) => {
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text as string));
    } catch {
      done(new ApiError(400, 'request body is not valid JSON'), undefined);
    }
  });

  // Bodies are validated with the shared wire schemas; the first issue becomes the 400 message.
  app.setValidatorCompiler(({ schema }) => {
    const zod = schema as z.ZodType;
    return (data: unknown) => {
      if (data === null || data === undefined) {
        if (EMPTY_BODY_ALLOWED.has(zod)) return { value: {} };
        return { error: new ApiError(400, 'request body is required (a JSON object)') };
      }
      if (typeof data !== 'object' || Array.isArray(data)) {
        return { error: new ApiError(400, 'request body must be a JSON object') };
      }
      const result = zod.safeParse(data);
      return result.success ? { value: result.data } : { error: invalid(result.error) };
    };
  });

  app.setErrorHandler((error, request, reply) => {
    const api = request.routeOptions.config.api ?? apiOfUrl(request.url);
    if (error instanceof ApiError) return sendError(reply, api, error.status, error.message, error.headers);
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return sendError(reply, api, 400, (error as Error).message);
    }
    logger?.error(
      { err: error, method: request.method, route: request.routeOptions.url },
      'emulator failure',
    );
    return sendError(reply, api, 500, 'internal error');
  });

  app.setNotFoundHandler((request, reply) => {
    sendError(
      reply,
      apiOfUrl(request.url),
      404,
      `no route for ${request.method} ${request.url.split('?')[0]}`,
    );
  });

  const apiRoutes = new Set<string>();
  app.addHook('onRoute', (route) => {
    const api = (route.config as { api?: ApiKind } | undefined)?.api;
    if (api === 'management' || api === 'alerting') apiRoutes.add(route.url);
  });

  installGate(app, { credentials, ctx, managementLimiter, alertsLimiter, faults, calls, hung, delays });

  const endHungCalls = () => {
    for (const socket of hung) socket.destroy();
    hung.clear();
  };

  registerServiceRoutes(app, ctx);
  registerServiceConfigRoutes(app, ctx);
  registerServiceScheduleRoutes(app, ctx);
  registerPipeRoutes(app, ctx);
  registerEndpointRoutes(app, ctx);
  registerAlertingRoutes(app, ctx);
  registerWebhookRoutes(app, ctx);
  registerSavedSearchRoutes(app, ctx);
  registerDashboardRoutes(app, ctx);
  registerSourceRoutes(app, ctx);
  registerOrganizationRoutes(app, ctx);
  registerApiKeyRoutes(app, ctx, credentials);
  registerControlRoutes(app, ctx, {
    calls,
    faults,
    clock,
    apiRoutes,
    reset: () => {
      transitions.clear();
      clock.reset();
      store.clear();
      calls.clear();
      faults.reset();
      managementLimiter.reset();
      alertsLimiter.reset();
      endHungCalls();
      ctx.changed();
    },
  });

  if (saved) {
    store.restore(saved.resources);
    resumeAll(ctx);
  }

  try {
    await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 8080 });
  } catch (error) {
    transitions.clear();
    throw error;
  }
  const address = app.server.address() as AddressInfo;
  const url = `http://${urlHost(address.address)}:${address.port}`;
  logger?.info({ url }, 'sluice emulator listening');
  // A state file always records the credentials in use, so the next start finds the same ones.
  writer?.schedule();

  let stopping: Promise<void> | undefined;
  return {
    url,
    port: address.port,
    credentials,
    generated,
    store,
    stop: () =>
      (stopping ??= (async () => {
        transitions.clear();
        for (const timer of delays) clearTimeout(timer);
        delays.clear();
        endHungCalls();
        await app.close();
        await writer?.flush();
      })()),
  };
}

/** A URL host for the bound address: wildcard binds are reached on loopback; IPv6 goes in brackets. */
function urlHost(address: string): string {
  if (address === '0.0.0.0') return '127.0.0.1';
  if (address === '::') return '[::1]';
  return address.includes(':') ? `[${address}]` : address;
}
