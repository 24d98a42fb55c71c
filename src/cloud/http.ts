import type { Dispatcher } from 'undici';
import type { CallChain } from '../base/call-chain.ts';
import { pino, type Logger } from 'pino';
import {
  AmbiguousRequestError,
  type ApiError,
  type ApiName,
  type CallSite,
  DeferredRequestError,
  NetworkError,
  RequestAbortedError,
} from './errors.ts';
import { type CloudHooks, notify } from './hooks.ts';
import { collectSecrets, redactSecrets, scrub } from './redaction.ts';
import {
  defaultQuotaRegistry,
  type Priority,
  QuotaDeferral,
  type QuotaLimit,
  type QuotaScheduler,
  type QuotaTicket,
  schedulerFor,
} from './quota.ts';
import { type AnswerContext, decodeError, decodeSuccess, type Dialect } from './responses.ts';
import {
  classifyNetworkError,
  decideRetry,
  DEFAULT_RETRY_POLICY,
  type FailedAttempt,
  isNeverSentCode,
  type RetryDecision,
  type RetryLimits,
} from './retry.ts';
import { createCloudAgent, DEFAULT_TIMEOUTS, exchange, routePath, type Timeouts } from './transport.ts';
import { sleep, systemClock, type Clock } from '../clock.ts';
import type { CallOptions, ClientOptions, RequestSpec, WriteEvent } from './request-types.ts';

/** A logger that drops everything (the default when a client is given none). */
export const silentLogger: Logger = pino({ level: 'silent' });

export type { CallOptions, ClientOptions, RequestSpec, WriteEvent } from './request-types.ts';

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

/** One call as the attempts of `HttpCore.call` share it. */
interface Call {
  site: CallSite;
  priority: Priority;
  sharer: string | undefined;
  object: string | undefined;
  chain: CallChain | undefined;
  idempotent: boolean;
  signal: AbortSignal | undefined;
}

/**
 * The HTTP plumbing both clients share: auth header, quota, timeouts, retries with backoff, envelope
 * unwrapping, typed errors, redacted logging and metric hooks. The parts live apart (`transport.ts`,
 * `quota.ts`, `retry.ts`, `responses.ts`, `hooks.ts`); this is the loop that runs them per attempt.
 */
export class HttpCore {
  readonly api: ApiName;
  readonly quota: QuotaScheduler | undefined;
  private readonly dialect: Dialect;
  private readonly origin: string;
  private readonly basePath: string;
  /** Sent with every request; the authorization is never logged. */
  private readonly headers: Readonly<Record<string, string>>;
  private readonly secrets: string[];
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly timeouts: Timeouts;
  private readonly limits: RetryLimits;
  private readonly logger: Logger;
  private readonly hooks: CloudHooks;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly signal: AbortSignal | undefined;

  constructor(config: HttpCoreConfig, options: ClientOptions = {}) {
    const url = new URL(config.baseUrl);
    this.api = config.dialect.api;
    this.dialect = config.dialect;
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.headers = {
      authorization: config.authorization,
      accept: 'application/json',
      'user-agent': options.userAgent ?? 'sluice',
    };
    this.secrets = [config.authorization, ...config.secrets].filter((s) => s.length > 0);
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.limits = { ...DEFAULT_RETRY_POLICY, ...options.retry, maxWaitMs: options.maxWaitMs };
    if (!(this.limits.maxAttempts >= 1)) throw new RangeError('retry.maxAttempts must be at least 1');
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher = options.dispatcher ?? createCloudAgent(this.timeouts);
    this.logger = (options.logger ?? silentLogger).child({ component: 'cloud', api: this.api });
    this.hooks = options.hooks ?? {};
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.signal = options.signal;
    const registry = options.quotaRegistry ?? defaultQuotaRegistry;
    this.quota = schedulerFor(options.quota, registry, config.quotaKey, config.defaultQuota);
  }

  /** Closes the client's own Agent (a dispatcher passed in options is left open). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /** The request path as it is sent: base path, route with its parameters, query. */
  pathOf(request: Pick<RequestSpec<unknown>, 'route' | 'params' | 'query'>): string {
    return this.basePath + routePath(request.route, request.params ?? {}, request.query);
  }

  /** Told of every write this core sends (`onWrite`). */
  private readonly writeListeners = new Set<(write: WriteEvent) => void>();

  /** Calls `listener` after every write (any method but GET) ends; returns the unsubscribe. */
  onWrite(listener: (write: WriteEvent) => void): () => void {
    this.writeListeners.add(listener);
    return () => this.writeListeners.delete(listener);
  }

  /**
   * Send a request, retrying per policy; resolves with the parsed payload or throws a `CloudError`. Every
   * write is told to the write listeners once it ended, failed ones too (a timeout may follow the server's act),
   * but one the quota deferred before it was ever sent: it changed nothing, and a listener that took it for a
   * change would read the object again, spending the budget the write waits for.
   */
  async call<T>(request: RequestSpec<T>, options: CallOptions = {}): Promise<T> {
    if (request.method === 'GET' || request.storesNothing || this.writeListeners.size === 0)
      return this.send(request, options);
    const { route, params = {} } = request;
    try {
      const answer = await this.send(request, options);
      this.tellWrite({ route, params, answer });
      return answer;
    } catch (error) {
      if (!(error instanceof DeferredRequestError && error.attempts === 0)) this.tellWrite({ route, params });
      throw error;
    }
  }

  private tellWrite(write: WriteEvent): void {
    for (const listener of this.writeListeners) listener(write);
  }

  private async send<T>(request: RequestSpec<T>, options: CallOptions): Promise<T> {
    const path = this.pathOf(request);
    const call: Call = {
      site: { api: this.api, method: request.method, route: request.route, path },
      priority: options.priority ?? (request.method === 'GET' ? 'poll' : 'user'),
      sharer: options.sharer,
      object: options.object,
      chain: options.chain,
      idempotent: request.idempotent ?? request.method !== 'POST',
      signal:
        this.signal && options.signal
          ? AbortSignal.any([this.signal, options.signal])
          : (options.signal ?? this.signal),
    };
    const { site, signal } = call;
    const secrets = new Set([...this.secrets, ...collectSecrets(request.body)]);
    const bodyText = request.body === undefined ? undefined : JSON.stringify(request.body);
    if (bodyText !== undefined && this.logger.isLevelEnabled('trace')) {
      this.logger.trace({ ...site, body: redactSecrets(request.body) }, 'cloud request body');
    }
    const headers =
      bodyText === undefined ? this.headers : { ...this.headers, 'content-type': 'application/json' };

    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw this.aborted(call, attempt - 1, false);
      const ticket = await this.takeSlot(call, attempt);
      const started = this.clock.now();
      const outcome = await exchange(this.dispatcher, {
        origin: this.origin,
        method: request.method,
        path,
        headers,
        body: bodyText,
        signal,
        timeouts: this.timeouts,
      });
      const durationMs = this.clock.now() - started;
      const answer: AnswerContext = { dialect: this.dialect, site, attempt, secrets, logger: this.logger };
      const decide = (failed: FailedAttempt) => decideRetry(failed, attempt, call, this.limits, this.random);
      let decision: RetryDecision;
      let code: string;
      let error: ApiError | NetworkError;

      if (outcome.kind === 'response') {
        // The server counted the request before it answered.
        ticket?.release(true);
        const { status } = outcome;
        code = String(status);
        this.noteRequest(call, code, attempt, durationMs);
        if (status >= 200 && status < 300) {
          const parsed = decodeSuccess(
            outcome,
            { schema: request.schema, envelope: request.envelope !== false },
            answer,
          );
          const { requestId } = parsed;
          this.logger.debug({ ...site, status, attempt, durationMs, requestId }, 'cloud request');
          return parsed.value;
        }
        const apiError = decodeError(outcome, answer);
        const { retryAfterMs, requestId } = apiError;
        this.logger.debug(
          { ...site, status, code: apiError.code, attempt, durationMs, requestId },
          'cloud request failed',
        );
        if (status === 429 && retryAfterMs !== undefined) this.quota?.pause(retryAfterMs);
        error = apiError;
        decision = decide({ kind: 'status', status, retryAfterMs });
      } else {
        const classified = classifyNetworkError(outcome.error);
        code = classified.code;
        const sent = outcome.sent && !isNeverSentCode(code);
        // A request that never left costs nothing; one that did may have been counted.
        ticket?.release(sent);
        this.noteRequest(call, code, attempt, durationMs);
        if (signal?.aborted) throw this.aborted(call, attempt, outcome.sent);
        const { failure } = classified;
        this.logger.debug({ ...site, attempt, durationMs, failure, code, sent }, 'cloud request failed');
        const causeMessage = scrub(classified.message, secrets);
        decision = decide({ kind: 'network', sent });
        const details = { ...site, attempts: attempt, retryable: true, failure, code, causeMessage };
        error =
          decision.action === 'ambiguous'
            ? new AmbiguousRequestError(details)
            : new NetworkError({ ...details, mayHaveSucceeded: sent && site.method !== 'GET', sent });
      }

      switch (decision.action) {
        case 'retry':
          await this.backoff(call, attempt, code, decision.delayMs);
          continue;
        case 'defer':
          throw new DeferredRequestError({
            ...site,
            attempts: attempt,
            retryAfterMs: decision.retryAfterMs,
            reason: 'rate-limited',
          });
        default:
          throw error;
      }
    }
  }

  /** Waits for the request budget (none when the quota is off); defers the call rather than wait too long. */
  private async takeSlot(call: Call, attempt: number): Promise<QuotaTicket | undefined> {
    if (!this.quota) return undefined;
    let ticket: QuotaTicket;
    try {
      ticket = await this.quota.acquire(call.priority, call.signal, {
        deadlineMs: this.limits.maxWaitMs,
        ...(call.sharer === undefined ? {} : { sharer: call.sharer }),
        ...(call.object === undefined ? {} : { object: call.object }),
        ...(call.chain === undefined ? {} : { chain: call.chain }),
      });
    } catch (err) {
      if (call.signal?.aborted) throw this.aborted(call, attempt - 1, false);
      if (!(err instanceof QuotaDeferral)) throw err;
      this.logger.debug({ ...call.site, retryAfterMs: err.retryAfterMs }, 'cloud request deferred for quota');
      const { retryAfterMs } = err;
      throw new DeferredRequestError({ ...call.site, attempts: attempt - 1, retryAfterMs, reason: 'quota' });
    }
    notify(this.hooks, this.logger, 'onQuotaWait', {
      api: this.api,
      key: this.quota.key,
      priority: call.priority,
      waitMs: ticket.waitedMs,
      remaining: ticket.remaining,
    });
    return ticket;
  }

  private noteRequest(call: Call, code: string, attempt: number, durationMs: number): void {
    const { method, route } = call.site;
    notify(this.hooks, this.logger, 'onRequest', {
      api: this.api,
      method,
      route,
      code,
      attempt,
      durationMs,
      priority: call.priority,
    });
  }

  private async backoff(call: Call, attempt: number, code: string, delayMs: number): Promise<void> {
    const { site } = call;
    this.logger.warn({ ...site, attempt, code, delayMs }, 'cloud request failed; retrying');
    notify(this.hooks, this.logger, 'onRetry', {
      api: this.api,
      method: site.method,
      route: site.route,
      code,
      attempt,
      delayMs,
    });
    try {
      await sleep(delayMs, this.clock, call.signal);
    } catch {
      throw this.aborted(call, attempt, false);
    }
  }

  private aborted(call: Call, attempts: number, sent: boolean): RequestAbortedError {
    return new RequestAbortedError({
      ...call.site,
      attempts,
      retryable: true,
      sent,
      mayHaveSucceeded: sent && !call.idempotent,
    });
  }
}
