import { Agent, type Dispatcher } from 'undici';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Timeouts {
  /** TCP (and TLS) connect. Applies to the client's own Agent only; a given dispatcher keeps its own. */
  connectMs: number;
  /** From sending the request until the response headers arrive. */
  headersMs: number;
  /** Maximum idle time between two chunks of the response body. */
  bodyMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 5_000, headersMs: 15_000, bodyMs: 30_000 };

/** An undici Agent with sluice's timeouts; share one between clients to share connections. */
export function createCloudAgent(timeouts: Partial<Timeouts> = {}): Agent {
  const t = { ...DEFAULT_TIMEOUTS, ...timeouts };
  return new Agent({
    connect: { timeout: t.connectMs },
    headersTimeout: t.headersMs,
    bodyTimeout: t.bodyMs,
    keepAliveTimeout: 4_000,
  });
}

/**
 * An interceptor that refuses every request while `mayAct()` is false, before anything is sent: a deposed
 * leader's calls never leave, however late its event loop hears that it lost the Lease. The request fails as
 * one that provably never left, so its quota slot is handed back.
 */
export function sendOnlyWhile(
  mayAct: () => boolean,
  refusal: string,
): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (options, handler) => {
    if (!mayAct()) throw new Error(refusal);
    return dispatch(options, handler);
  };
}

/** How one HTTP exchange ended: an answer (any status), or none, and then whether the request left. */
export type AttemptOutcome =
  | { kind: 'response'; status: number; headers: Record<string, string | string[] | undefined>; text: string }
  | { kind: 'network'; error: unknown; sent: boolean };

export interface Exchange {
  origin: string;
  method: HttpMethod;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal | undefined;
  timeouts: Pick<Timeouts, 'headersMs' | 'bodyMs'>;
}

/** One HTTP exchange over `dispatcher`. Never throws: failures come back as outcomes. */
export async function exchange(dispatcher: Dispatcher, request: Exchange): Promise<AttemptOutcome> {
  const state = { sent: false };
  // The request is written to a socket only after undici calls onRequestStart; an error before that
  // (refused, DNS, connect timeout) proves the server never saw the request.
  const tracked = dispatcher.compose(
    (dispatch) => (opts, handler) => dispatch(opts, new SentTracker(handler, state)),
  );
  try {
    const response = await tracked.request({
      origin: request.origin,
      path: request.path,
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: request.signal,
      headersTimeout: request.timeouts.headersMs,
      bodyTimeout: request.timeouts.bodyMs,
    });
    state.sent = true;
    const text = await response.body.text();
    return { kind: 'response', status: response.statusCode, headers: response.headers, text };
  } catch (error) {
    return { kind: 'network', error, sent: state.sent };
  }
}

/** A request's path under the base path: its route with its parameters, then its query. */
export function routePath(
  route: string,
  params: Record<string, string>,
  query: ReadonlyArray<readonly [string, string]> | undefined,
): string {
  return expandRoute(route, params) + queryString(query);
}

/** `/a/:id/b` with `{id: 'x y'}` → `/a/x%20y/b`. Every placeholder must have a value. */
function expandRoute(route: string, params: Record<string, string>): string {
  return route.replace(/:([A-Za-z][A-Za-z0-9]*)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`route ${route}: missing parameter ${name}`);
    return encodeURIComponent(value);
  });
}

/** `?a=1&b=2`, or nothing without parameters. */
function queryString(query: ReadonlyArray<readonly [string, string]> | undefined): string {
  if (!query?.length) return '';
  const params = new URLSearchParams();
  for (const [key, value] of query) params.append(key, value);
  return `?${params.toString()}`;
}

/** Passes every event through; notes that the request is about to be written. */
class SentTracker implements Dispatcher.DispatchHandler {
  constructor(
    private readonly inner: Dispatcher.DispatchHandler,
    private readonly state: { sent: boolean },
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.state.sent = true;
    this.inner.onRequestStart?.(controller, context);
  }
  onRequestUpgrade(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>[2],
    socket: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>[3],
  ): void {
    this.inner.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }
  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>[2],
    statusMessage?: string,
  ): void {
    this.inner.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }
  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.inner.onResponseData?.(controller, chunk);
  }
  onResponseEnd(
    controller: Dispatcher.DispatchController,
    trailers: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseEnd']>>[1],
  ): void {
    this.inner.onResponseEnd?.(controller, trailers);
  }
  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.inner.onResponseError?.(controller, error);
  }
}
