import type { CallOptions, HttpCore, RequestSpec, WriteEvent } from './http.ts';
import type { Priority, QuotaScheduler } from './quota.ts';
import type { CallChain } from '../base/call-chain.ts';
import type { WriteRecorder } from '../base/recorded-writes.ts';

/** What one reconcile's calls are made as (`CloudClient.scopedTo`), so that no call names any of it. */
export interface CallScope {
  /** The reconcile's priority. */
  readPriority: Priority;
  /**
   * `user`: a change the cloud is to make goes first, whatever made the reconcile run; a create's `create`,
   * behind the changes people make to objects that exist.
   */
  writePriority: Priority;
  /** Who the calls are made for, and the object (`onBehalfOf`). */
  sharer: string;
  object?: string;
  /** The reconcile's chain (see `CallChain`). */
  chain?: CallChain;
  /** Where its writes are kept instead of sent (`withWritesRecorded`). */
  writes?: WriteRecorder;
}

/** What both clients share besides the core: the priority of their reads, the quota view and shutdown. */
export abstract class CloudClient {
  /** The priority reads are sent with when a call names none. */
  private readPriority: Priority = 'poll';
  /** The priority writes are sent with when a call names none. */
  private writePriority: Priority = 'user';
  /** Who the calls are made for, when a call names no one: the key's budget is shared fairly between them. */
  private sharer: string | undefined;
  /** The object the calls are made for, when a call names none: a deferral's claim is its own. */
  private object: string | undefined;
  /** The reconcile's chain its calls belong to (see `CallChain`). */
  private chain: CallChain | undefined;
  /** When set, writes are kept here and answered without being sent (reads still go out). */
  private writes: WriteRecorder | undefined;

  protected constructor(protected readonly http: HttpCore) {}

  /**
   * This client, sharing its connection, quota and options, with its calls made for `sharer` (a namespace):
   * the key's budget serves the calls of one priority fairly between sharers, so one namespace's many
   * changes cannot keep another's waiting. With `object` (its kind and `namespace/name`), a call the budget
   * defers keeps a claim of the object's own, behind those of the namespace's other objects.
   */
  onBehalfOf(sharer: string, object?: string): this {
    const bound = this.copy();
    bound.sharer = sharer;
    bound.object = object;
    return bound;
  }

  /**
   * This client with every write (any method but GET) kept in `recorder` and answered with `undefined`
   * instead of sent; reads go to the cloud as usual. Running a kind's own update against it yields, by
   * construction, the calls the same code would send (the code paths run this way use no write's answer).
   */
  withWritesRecorded(recorder: WriteRecorder): this {
    const bound = this.copy();
    bound.writes = recorder;
    return bound;
  }

  /**
   * This client, sharing its connection, quota and options, scoped at once to what one reconcile's calls
   * are (`CallScope`): what one reconcile hands its kind.
   */
  scopedTo(scope: CallScope): this {
    const bound = this.copy();
    bound.readPriority = scope.readPriority;
    bound.writePriority = scope.writePriority;
    bound.sharer = scope.sharer;
    bound.object = scope.object;
    if (scope.chain) bound.chain = scope.chain;
    if (scope.writes) bound.writes = scope.writes;
    return bound;
  }

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

  protected call<T>(request: RequestSpec<T>, options: CallOptions = {}): Promise<T> {
    if (this.writes && request.method !== 'GET' && !request.storesNothing) {
      const { method, route, body } = request;
      const path = this.http.pathOf(request);
      this.writes.record({
        api: this.http.api,
        method,
        path,
        route,
        ...(body === undefined ? {} : { body }),
      });
      return Promise.resolve(undefined as T);
    }
    const priority = options.priority ?? (request.method === 'GET' ? this.readPriority : this.writePriority);
    return this.http.call(request, { ...options, ...this.madeAs(priority, options) });
  }

  /**
   * What this client's reads are made as (priority, sharer, object, chain): a shared list one of them asks
   * for is sent as this reader's own call (see `CloudSnapshot.read`).
   */
  readCall(): CallOptions {
    return this.madeAs(this.readPriority);
  }

  /** A call of `priority`, made for what `options` name, else for this client's sharer, object and chain. */
  private madeAs(priority: Priority, options: CallOptions = {}): CallOptions {
    const sharer = options.sharer ?? this.sharer;
    const object = options.object ?? this.object;
    const chain = options.chain ?? this.chain;
    return {
      priority,
      ...(sharer === undefined ? {} : { sharer }),
      ...(object === undefined ? {} : { object }),
      ...(chain === undefined ? {} : { chain }),
    };
  }

  /** The same client (connection, quota, options), to be bound differently. */
  private copy(): this {
    return Object.assign(Object.create(Object.getPrototypeOf(this) as object) as this, this);
  }
}

/**
 * Each of `clients` scoped at once to one reconcile's calls (`scopedTo`). One that could not be made (a
 * Secret without that API's keys) throws its error when the reconcile uses it, and only then: an Alert's
 * Secret may hold only the alerting keys.
 */
export function scopedClients<T extends Record<string, CloudClient | Error>>(
  clients: T,
  scope: CallScope,
): { [K in keyof T]: Exclude<T[K], Error> } {
  const scoped = {};
  for (const [api, client] of Object.entries(clients)) {
    const usable = !(client instanceof Error);
    Object.defineProperty(scoped, api, {
      enumerable: true,
      ...(usable ? { value: client.scopedTo(scope) } : { get: () => throwing(client) }),
    });
  }
  return scoped as { [K in keyof T]: Exclude<T[K], Error> };
}

function throwing(error: Error): never {
  throw error;
}
