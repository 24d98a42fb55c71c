import { Agent, type Dispatcher } from 'undici';
import type { Logger } from 'pino';
import type { z } from 'zod';
import {
  AmbiguousRequestError,
  ApiError,
  DeferredRequestError,
  type ApiName,
  type CallSite,
  NetworkError,
  RequestAbortedError,
  ResponseValidationError,
} from './errors.ts';
import type { CloudHooks } from './hooks.ts';
import { collectSecrets, redactSecrets, scrub, silentLogger } from './logging.ts';
import {
  defaultQuotaRegistry,
  type Priority,
  QuotaDeferral,
  type QuotaLimit,
  type QuotaRegistry,
  QuotaScheduler,
  type QuotaTicket,
} from './quota.ts';
import {
  backoffDelay,
  boundServerWait,
  classifyNetworkError,
  DEFAULT_RETRY_POLICY,
  isNeverSentCode,
  isRetryableStatus,
  parseRetryAfter,
  type RetryPolicy,
} from './retry.ts';
import { systemClock, type Clock } from '../clock.ts';

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

/** Options both clients accept. */
export interface ClientOptions {
  timeouts?: Partial<Timeouts>;
  retry?: Partial<RetryPolicy>;
  /**
   * The client-side request budget: the API's published limit by default; a `QuotaLimit` to override it
   * (e.g. a scaled-down emulator); a `QuotaScheduler` to use that one; `false` to send unthrottled.
   */
  quota?: QuotaLimit | QuotaScheduler | false;
  /** Where the per-key scheduler is looked up (default: the process-wide registry). */
  quotaRegistry?: QuotaRegistry;
  /** Logs at debug (one line per attempt), warn (retries) and trace (redacted bodies). */
  logger?: Logger;
  /**
   * A shared undici dispatcher (e.g. one `createCloudAgent()` for the whole operator). Without one the
   * client creates its own Agent and closes it in `close()`.
   */
  dispatcher?: Dispatcher;
  hooks?: CloudHooks;
  userAgent?: string;
  /**
   * The longest a call waits for the request budget or for a 429's `Retry-After` before it gives up with a
   * `DeferredRequestError` (nothing sent) so the caller can requeue instead of holding a worker. Default: no
   * limit, wait as long as needed.
   */
  maxWaitMs?: number;
  /** Aborts every call of the client (e.g. once the operator stops leading), besides each call's own signal. */
  signal?: AbortSignal;
  /** Time source for backoff sleeps (tests). */
  clock?: Clock;
  /** Random source for jitter, uniform in [0, 1) (tests). */
  random?: () => number;
}

/** Per-call options of every client method. */
export interface CallOptions {
  /** Quota priority; writes default to `user`, reads to `poll`. */
  priority?: Priority;
  /** Aborts the wait for quota, a backoff sleep, or the request itself. */
  signal?: AbortSignal;
}

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

/** How one API wraps successes and words errors. */
export interface Dialect {
  api: ApiName;
  /** The payload inside a success body, or a description of why the body is not a valid envelope. */
  unwrap(body: unknown): { ok: true; value: unknown; requestId?: string } | { ok: false; problem: string };
  /** Code, message and request id of an error answer (`body` is the raw text, maybe not JSON). */
  describeError(status: number, body: string): { code: string; message: string; requestId?: string };
}

export interface RequestSpec<T> {
  method: HttpMethod;
  /** A route pattern with `:param` placeholders, expanded with `params`. */
  route: string;
  params?: Record<string, string>;
  query?: ReadonlyArray<readonly [string, string]>;
  body?: unknown;
  /**
   * Safe to send twice (default: every method but POST). Non-idempotent requests (creates) are retried only
   * when they provably never reached the server, or when the server refused them with 429.
   */
  idempotent?: boolean;
  /** Schema of the payload (the envelope's `result`/`data`, or the whole body when `envelope` is false). */
  schema: z.ZodType<T>;
  /** Default true: the body is an envelope to unwrap. */
  envelope?: boolean;
  /** Quota priority unless the call says otherwise (default: `poll` for GET, `user` for writes). */
  defaultPriority?: Priority;
}

export interface HttpCoreConfig {
  dialect: Dialect;
  baseUrl: string;
  /** The `Authorization` header value. Never logged; scrubbed from every error text. */
  authorization: string;
  /** Further strings to scrub from error texts (key secret, token). */
  secrets: string[];
  /** The quota registry key and the API's default limit. */
  quotaKey: string;
  defaultQuota: QuotaLimit;
}

type AttemptOutcome =
  | { kind: 'response'; status: number; headers: Record<string, string | string[] | undefined>; text: string }
  | { kind: 'network'; error: unknown; sent: boolean };

/**
 * The HTTP plumbing both clients share: auth header, quota, timeouts, retries with backoff, envelope
 * unwrapping, typed errors, redacted logging and metric hooks.
 */
export class HttpCore {
  readonly api: ApiName;
  readonly quota: QuotaScheduler | undefined;
  private readonly dialect: Dialect;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly authorization: string;
  private readonly secrets: string[];
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly timeouts: Timeouts;
  private readonly retry: RetryPolicy;
  private readonly logger: Logger;
  private readonly hooks: CloudHooks;
  private readonly userAgent: string;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly maxWaitMs: number | undefined;
  private readonly signal: AbortSignal | undefined;

  constructor(config: HttpCoreConfig, options: ClientOptions = {}) {
    const url = new URL(config.baseUrl);
    this.api = config.dialect.api;
    this.dialect = config.dialect;
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.authorization = config.authorization;
    this.secrets = [config.authorization, ...config.secrets].filter((s) => s.length > 0);
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    if (!(this.retry.maxAttempts >= 1)) throw new RangeError('retry.maxAttempts must be at least 1');
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher = options.dispatcher ?? createCloudAgent(this.timeouts);
    this.logger = (options.logger ?? silentLogger).child({ component: 'cloud', api: this.api });
    this.hooks = options.hooks ?? {};
    this.userAgent = options.userAgent ?? 'sluice';
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.maxWaitMs = options.maxWaitMs;
    this.signal = options.signal;
    const quota = options.quota;
    if (quota === false) this.quota = undefined;
    else if (quota instanceof QuotaScheduler) this.quota = quota;
    else
      this.quota = (options.quotaRegistry ?? defaultQuotaRegistry).get(
        config.quotaKey,
        quota ?? config.defaultQuota,
      );
  }

  /** Closes the client's own Agent (a dispatcher passed in options is left open). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /** Told of every write this core sends (`onWrite`). */
  private readonly writeListeners = new Set<(write: WriteEvent) => void>();

  /** Calls `listener` after every write (any method but GET) ends; returns the unsubscribe. */
  onWrite(listener: (write: WriteEvent) => void): () => void {
    this.writeListeners.add(listener);
    return () => this.writeListeners.delete(listener);
  }

  /** Send a request, retrying per policy; resolves with the parsed payload or throws a `CloudError`. */
  async call<T>(request: RequestSpec<T>, options: CallOptions = {}): Promise<T> {
    if (request.method === 'GET' || this.writeListeners.size === 0) return this.send(request, options);
    const { route, params = {} } = request;
    try {
      const answer = await this.send(request, options);
      this.tellWrite({ route, params, answer });
      return answer;
    } catch (error) {
      // A write that failed may still have been applied (a timeout after the server took it).
      this.tellWrite({ route, params });
      throw error;
    }
  }

  private tellWrite(write: WriteEvent): void {
    for (const listener of this.writeListeners) listener(write);
  }

  private async send<T>(request: RequestSpec<T>, options: CallOptions): Promise<T> {
    const spec = {
      ...request,
      idempotent: request.idempotent ?? request.method !== 'POST',
      defaultPriority: request.defaultPriority ?? (request.method === 'GET' ? 'poll' : 'user'),
    } satisfies RequestSpec<T>;
    const priority = options.priority ?? spec.defaultPriority;
    const signal =
      this.signal && options.signal
        ? AbortSignal.any([this.signal, options.signal])
        : (options.signal ?? this.signal);
    const path = this.basePath + expandRoute(spec.route, spec.params ?? {}) + queryString(spec.query);
    const site: CallSite = { api: this.api, method: spec.method, route: spec.route, path };
    const secrets = new Set([...this.secrets, ...collectSecrets(spec.body)]);
    const bodyText = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    if (bodyText !== undefined && this.logger.isLevelEnabled('trace')) {
      this.logger.trace({ ...site, body: redactSecrets(spec.body) }, 'cloud request body');
    }

    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw this.aborted(site, attempt - 1, false, spec.idempotent);
      let ticket: QuotaTicket | undefined;
      if (this.quota) {
        try {
          ticket = await this.quota.acquire(priority, signal, { deadlineMs: this.maxWaitMs });
        } catch (err) {
          if (signal?.aborted) throw this.aborted(site, attempt - 1, false, spec.idempotent);
          if (err instanceof QuotaDeferral) {
            this.logger.debug(
              { ...site, retryAfterMs: err.retryAfterMs },
              'cloud request deferred for quota',
            );
            throw this.deferred(site, attempt - 1, err.retryAfterMs, 'quota');
          }
          throw err;
        }
        this.emit('onQuotaWait', {
          api: this.api,
          key: this.quota.key,
          priority,
          waitMs: ticket.waitedMs,
          remaining: ticket.remaining,
        });
      }

      const started = this.clock.now();
      const outcome = await this.attempt(spec.method, path, bodyText, signal);
      const durationMs = this.clock.now() - started;
      // The server counted the request (if it saw it) before now; a request that never left costs nothing.
      ticket?.release(
        outcome.kind === 'response' ||
          (outcome.sent && !isNeverSentCode(classifyNetworkError(outcome.error).code)),
      );
      const lastAttempt = attempt >= this.retry.maxAttempts;

      if (outcome.kind === 'response') {
        const { status } = outcome;
        this.emit('onRequest', {
          api: this.api,
          method: spec.method,
          route: spec.route,
          code: String(status),
          attempt,
          durationMs,
          priority,
        });
        if (status >= 200 && status < 300) {
          const parsed = this.parseSuccess(spec, site, attempt, outcome.text, status, secrets);
          this.logger.debug(
            { ...site, status, attempt, durationMs, requestId: parsed.requestId },
            'cloud request',
          );
          return parsed.value;
        }
        const error = this.apiError(spec, site, attempt, outcome, secrets);
        this.logger.debug(
          { ...site, status, code: error.code, attempt, durationMs, requestId: error.requestId },
          'cloud request failed',
        );
        if (status === 429 && error.retryAfterMs !== undefined) this.quota?.pause(error.retryAfterMs);
        const retryable = isRetryableStatus(status) && (status === 429 || spec.idempotent);
        if (!retryable || lastAttempt) throw error;
        // Too long to hold a worker: let the caller requeue. A 429 refused the request, so it was not applied
        // and waiting out the limit is no failure; a 503's wait stays an error the caller reports.
        const retryAfterMs = error.retryAfterMs ?? 0;
        if (retryAfterMs > (this.maxWaitMs ?? Infinity)) {
          if (status === 429) throw this.deferred(site, attempt, retryAfterMs, 'rate-limited');
          throw error;
        }
        if (retryAfterMs > this.retry.maxRetryAfterMs) throw error;
        const jitter = backoffDelay(attempt, this.retry, this.random);
        // A server-advised wait is a floor: wait at least that long, plus a little jitter so that callers
        // released together do not arrive together.
        const delayMs =
          error.retryAfterMs !== undefined
            ? error.retryAfterMs + Math.floor(this.random() * this.retry.baseDelayMs)
            : jitter;
        await this.backoff(site, attempt, String(status), delayMs, signal, spec.idempotent);
        continue;
      }

      // No HTTP answer.
      const { failure, code, message } = classifyNetworkError(outcome.error);
      this.emit('onRequest', {
        api: this.api,
        method: spec.method,
        route: spec.route,
        code,
        attempt,
        durationMs,
        priority,
      });
      if (signal?.aborted) throw this.aborted(site, attempt, outcome.sent, spec.idempotent);
      const neverSent = !outcome.sent || isNeverSentCode(code);
      const causeMessage = scrub(message, secrets);
      this.logger.debug(
        { ...site, attempt, durationMs, failure, code, sent: !neverSent },
        'cloud request failed',
      );
      if (!neverSent && !spec.idempotent) {
        throw new AmbiguousRequestError({
          ...site,
          attempts: attempt,
          retryable: true,
          failure,
          code,
          causeMessage,
        });
      }
      if (lastAttempt) {
        throw new NetworkError({
          ...site,
          attempts: attempt,
          retryable: true,
          mayHaveSucceeded: !neverSent && spec.method !== 'GET',
          sent: !neverSent,
          failure,
          code,
          causeMessage,
        });
      }
      await this.backoff(
        site,
        attempt,
        code,
        backoffDelay(attempt, this.retry, this.random),
        signal,
        spec.idempotent,
      );
    }
  }

  /** One HTTP exchange. Never throws: failures come back as outcomes. */
  private async attempt(
    method: HttpMethod,
    path: string,
    bodyText: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<AttemptOutcome> {
    const state = { sent: false };
    // The request is written to a socket only after undici calls onRequestStart; an error before that
    // (refused, DNS, connect timeout) proves the server never saw the request.
    const dispatcher = this.dispatcher.compose(
      (dispatch) => (opts, handler) => dispatch(opts, new SentTracker(handler, state)),
    );
    const headers: Record<string, string> = {
      authorization: this.authorization,
      accept: 'application/json',
      'user-agent': this.userAgent,
    };
    if (bodyText !== undefined) headers['content-type'] = 'application/json';
    try {
      const response = await dispatcher.request({
        origin: this.origin,
        path,
        method,
        headers,
        body: bodyText,
        signal,
        headersTimeout: this.timeouts.headersMs,
        bodyTimeout: this.timeouts.bodyMs,
      });
      state.sent = true;
      const text = await response.body.text();
      return { kind: 'response', status: response.statusCode, headers: response.headers, text };
    } catch (error) {
      return { kind: 'network', error, sent: state.sent };
    }
  }

  private parseSuccess<T>(
    spec: RequestSpec<T>,
    site: CallSite,
    attempt: number,
    text: string,
    status: number,
    secrets: Set<string>,
  ): { value: T; requestId?: string } {
    const fail = (problem: string, requestId?: string) =>
      new ResponseValidationError({
        ...site,
        attempts: attempt,
        retryable: false,
        // The server said 200: whatever was asked for happened.
        mayHaveSucceeded: spec.method !== 'GET',
        status,
        problem: scrub(problem, secrets),
        requestId,
      });
    let json: unknown;
    try {
      json = text === '' ? {} : JSON.parse(text);
    } catch {
      throw fail('not JSON');
    }
    if (this.logger.isLevelEnabled('trace')) {
      this.logger.trace({ ...site, body: redactSecrets(json) }, 'cloud response body');
    }
    let payload: unknown = json;
    let requestId: string | undefined;
    if (spec.envelope !== false) {
      const unwrapped = this.dialect.unwrap(json);
      if (!unwrapped.ok) throw fail(unwrapped.problem);
      payload = unwrapped.value;
      requestId = unwrapped.requestId;
    }
    const parsed = spec.schema.safeParse(payload);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? issue.path.join('.') : '(root)';
      throw fail(`${where}: ${issue?.message ?? 'invalid'}`, requestId);
    }
    return requestId === undefined ? { value: parsed.data } : { value: parsed.data, requestId };
  }

  private apiError(
    spec: RequestSpec<unknown>,
    site: CallSite,
    attempt: number,
    outcome: Extract<AttemptOutcome, { kind: 'response' }>,
    secrets: Set<string>,
  ): ApiError {
    const { status } = outcome;
    const described = this.dialect.describeError(status, outcome.text);
    const advisedMs = status === 429 || status === 503 ? parseRetryAfter(outcome.headers) : undefined;
    const retryAfterMs = advisedMs === undefined ? undefined : boundServerWait(advisedMs);
    if (advisedMs !== retryAfterMs) {
      this.logger.warn(
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
      mayHaveSucceeded: status >= 500 && spec.method !== 'GET',
    });
  }

  private async backoff(
    site: CallSite,
    attempt: number,
    code: string,
    delayMs: number,
    signal: AbortSignal | undefined,
    idempotent: boolean,
  ): Promise<void> {
    this.logger.warn({ ...site, attempt, code, delayMs }, 'cloud request failed; retrying');
    this.emit('onRetry', { api: this.api, method: site.method, route: site.route, code, attempt, delayMs });
    try {
      await sleep(delayMs, this.clock, signal);
    } catch {
      throw this.aborted(site, attempt, false, idempotent);
    }
  }

  private deferred(
    site: CallSite,
    attempts: number,
    retryAfterMs: number,
    reason: 'quota' | 'rate-limited',
  ): DeferredRequestError {
    return new DeferredRequestError({ ...site, attempts, retryAfterMs, reason });
  }

  private aborted(site: CallSite, attempts: number, sent: boolean, idempotent: boolean): RequestAbortedError {
    return new RequestAbortedError({
      ...site,
      attempts,
      retryable: true,
      sent,
      mayHaveSucceeded: sent && !idempotent,
    });
  }

  private emit<K extends keyof CloudHooks>(name: K, event: Parameters<NonNullable<CloudHooks[K]>>[0]): void {
    const hook = this.hooks[name] as ((e: typeof event) => void) | undefined;
    if (!hook) return;
    try {
      hook.call(this.hooks, event);
    } catch (err) {
      this.logger.warn(
        { hook: name, err: err instanceof Error ? err.message : String(err) },
        'cloud hook threw',
      );
    }
  }
}

/** A write that ended: its route pattern and parameters, and the answer when it succeeded. */
export interface WriteEvent {
  route: string;
  params: Record<string, string>;
  answer?: unknown;
}

/** What both clients share besides the core: the quota view, writes, and shutdown. */
export abstract class CloudClient {
  protected constructor(protected readonly http: HttpCore) {}

  /** Tells `listener` of every write this client sends, once it ended (snapshots must not undo it). */
  onWrite(listener: (write: WriteEvent) => void): () => void {
    return this.http.onWrite(listener);
  }

  /** The key's shared quota scheduler (undefined when the quota is off). */
  get quota(): QuotaScheduler | undefined {
    return this.http.quota;
  }

  /** Requests this key may start right now without waiting (Infinity when the quota is off). */
  quotaRemaining(): number {
    return this.http.quota?.remaining() ?? Infinity;
  }

  /** Closes the client's own Agent; a dispatcher passed in the options stays open. */
  close(): Promise<void> {
    return this.http.close();
  }
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

/** `/a/:id/b` with `{id: 'x y'}` → `/a/x%20y/b`. Every placeholder must have a value. */
export function expandRoute(route: string, params: Record<string, string>): string {
  return route.replace(/:([A-Za-z][A-Za-z0-9]*)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`route ${route}: missing parameter ${name}`);
    return encodeURIComponent(value);
  });
}

function queryString(query: RequestSpec<unknown>['query']): string {
  if (!query?.length) return '';
  const params = new URLSearchParams();
  for (const [key, value] of query) params.append(key, value);
  return `?${params.toString()}`;
}

/** Resolves after `ms`; rejects with the signal's reason if it aborts first. */
export function sleep(ms: number, clock: Clock, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0 && !signal) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal!.reason);
    };
    const handle = clock.setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Basic credentials as RFC 7617 encodes them. */
/** The JSON value of a response body, or undefined when it is not JSON (e.g. a plain-text 401). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function basicAuthorization(user: string, secret: string): string {
  return `Basic ${Buffer.from(`${user}:${secret}`, 'utf8').toString('base64')}`;
}
