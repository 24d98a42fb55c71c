import type { Dispatcher } from 'undici';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { CallChain } from '../base/call-chain.ts';
import type { Clock } from '../clock.ts';
import type { CloudHooks } from './hooks.ts';
import type { Priority, QuotaLimit, QuotaRegistry, QuotaScheduler } from './quota.ts';
import type { RetryPolicy } from './retry.ts';
import type { HttpMethod, Timeouts } from './transport.ts';

/** What the clients and their callers hand the HTTP core: client options, per-call options, requests. */

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
  /** Quota priority; writes default to `user`, reads to the client's read priority (`poll` unless bound). */
  priority?: Priority;
  /**
   * Who the call is made for (a namespace): the key's budget serves the calls of one priority fairly between
   * sharers. Default: the client's (see `CloudClient.onBehalfOf`).
   */
  sharer?: string;
  /**
   * The object the call is made for (its kind and `namespace/name`): a deferral's claim is the object's own.
   * Default: the client's (see `CloudClient.onBehalfOf`).
   */
  object?: string;
  /** The reconcile's chain of calls: a read keeps its sharer's turn until the chain ends (see `QuotaScheduler`). */
  chain?: CallChain;
  /** Aborts the wait for quota, a backoff sleep, or the request itself. */
  signal?: AbortSignal;
}

/** A write that ended: its route pattern and parameters, and the answer when it succeeded. */
export interface WriteEvent {
  route: string;
  params: Record<string, string>;
  answer?: unknown;
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
  /**
   * A call that changes nothing whatever its method (a POST that only validates): sent even by a client whose
   * writes are recorded (`sluice plan`), and told to no write listener.
   */
  storesNothing?: boolean;
}
