import { pino, type Logger } from 'pino';
import { systemClock, type Clock, type TimerHandle } from '../clock.ts';
import type { KubeAccess } from './kube-config.ts';
import { apiPath, type ResourceType } from './api-path.ts';
import { JitteredBackoff } from '../base/backoff.ts';
import { nextSlice, overSlice, yieldIfBusy } from '../base/slices.ts';
import { ObjectCache, type KubeObject, type ReadonlyCache } from './cache.ts';
import {
  isGone,
  KubeApiError,
  kubeOpenStream,
  kubeRequestJson,
  readLines,
  type KubeStatus,
} from './kube-http.ts';

export interface ReflectorOptions {
  kubeConfig: KubeAccess;
  /** Which resource to mirror. */
  resource: ResourceType;
  /** Mirror one namespace only; all namespaces when omitted. */
  namespace?: string;
  labelSelector?: string;
  /** e.g. `metadata.name=sluice-cloud`, to mirror one object of a namespace. */
  fieldSelector?: string;
  /**
   * Called with the key of every object that was added, changed or deleted, and after a re-list with the
   * key of every object, including those deleted while the reflector was not watching. Should only enqueue.
   */
  onChange: (key: string) => void;
  /** Objects per list page. Default 500. */
  pageSize?: number;
  /** The server ends each watch after a random time in this range, spreading re-watches. Default 300–600 s. */
  watchTimeoutSeconds?: { min: number; max: number };
  /**
   * A watch that delivers nothing (not even a bookmark) for its timeout plus this grace is considered hung
   * and is aborted and re-opened. Default 30 s.
   */
  hungWatchGraceMs?: number;
  /** Abort a list page that takes longer. Default 60 s. */
  listTimeoutMs?: number;
  /** Reconnect delays after errors. Default 200 ms doubling to 30 s, jittered. */
  backoff?: { initialMs: number; maxMs: number };
  /**
   * The backoff starts over only after a watch stayed open this long (client-go: 2 minutes), so a watch
   * that opens and fails at once keeps backing off instead of retrying at the first delay forever.
   */
  healthyWatchMs?: number;
  /** Times the watch deadline, list timeout and backoff sleeps; tests pass a manual clock. Default: the system's. */
  clock?: Clock;
  logger?: Logger;
  /**
   * Whether the cache shares its objects' short strings with every other cache (`shareStrings`). Default
   * true; false for Secrets, whose values must not outlive them in a table of the whole process.
   */
  shareStrings?: boolean;
  /**
   * Mirror only each object's metadata (the apiserver's PartialObjectMetadata): for Secrets, whose data the
   * operator needs of the few it uses, not of every Secret the watch sees.
   */
  metadataOnly?: boolean;
}

/** The apiserver's metadata-only answers (what client-go's metadata informers ask for). */
const METADATA_ONLY = {
  list: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
  watch: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
};

interface KubeList<T> {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string };
  items: T[];
}

interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: unknown;
}

/** How one watch connection ended, which decides what the reflector does next. */
type WatchEnd =
  | 'closed' // the server ended it (its timeout): watch again from the last resourceVersion
  | 'hung' // nothing arrived before the deadline: watch again at once
  | 'failed' // an error: watch again after backoff
  | 'gone' // 410, the resourceVersion is too old: list again
  | 'too-large' // the resourceVersion is ahead of the server's cache: list again after backoff
  | 'stopped';

/** A watch that the server closes this soon without any event is treated as an error, not a normal end. */
const MIN_HEALTHY_WATCH_MS = 1000;

/**
 * Mirrors one resource type into an in-memory cache with list + watch, and reports changed keys.
 *
 * Built on plain HTTP rather than client-node's informer, which can miss re-lists and hang
 * (kubernetes-client/javascript#1496, #593). The protocol is client-go's reflector: a paginated list, then
 * a watch from the list's resourceVersion with bookmarks; a normally ended watch is resumed from the last
 * resourceVersion, a 410 Gone triggers a re-list, other errors a resumed watch after backoff, and a silent
 * watch is aborted after a deadline.
 */
export class Reflector<T extends KubeObject = KubeObject> {
  readonly cache: ReadonlyCache<T>;

  private readonly objects: ObjectCache<T>;
  private readonly path: string;
  private readonly logger: Logger;
  private readonly backoff: JitteredBackoff;
  private readonly pageSize: number;
  private readonly watchTimeout: { min: number; max: number };
  private readonly hungWatchGraceMs: number;
  private readonly listTimeoutMs: number;
  private readonly healthyWatchMs: number;
  private readonly clock: Clock;

  private lastResourceVersion: string | undefined;
  private synced = false;
  private readonly syncWaiters: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];

  private running: Promise<void> | undefined;
  private stopped = false;
  /** Aborts whatever request is in flight and cuts short a backoff sleep. */
  private readonly stopController = new AbortController();
  private endWatch: ((end: WatchEnd) => void) | undefined;

  constructor(private readonly options: ReflectorOptions) {
    this.objects = new ObjectCache<T>(options.shareStrings);
    this.cache = this.objects;
    this.path = apiPath(options.resource, options.namespace);
    this.logger = (options.logger ?? pino({ enabled: false })).child({
      resource: options.resource.plural,
      ...(options.namespace ? { namespace: options.namespace } : {}),
    });
    this.backoff = new JitteredBackoff(options.backoff?.initialMs ?? 200, options.backoff?.maxMs ?? 30_000);
    this.pageSize = options.pageSize ?? 500;
    this.watchTimeout = options.watchTimeoutSeconds ?? { min: 300, max: 600 };
    this.hungWatchGraceMs = options.hungWatchGraceMs ?? 30_000;
    this.listTimeoutMs = options.listTimeoutMs ?? 60_000;
    this.healthyWatchMs = options.healthyWatchMs ?? 120_000;
    this.clock = options.clock ?? systemClock;
  }

  /** The resourceVersion the next watch resumes from. */
  get resourceVersion(): string | undefined {
    return this.lastResourceVersion;
  }

  start(): void {
    if (this.running || this.stopped) return;
    this.running = this.run();
  }

  /** Aborts the open request and any pending retry; resolves when nothing of the reflector is left running. */
  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.stopController.abort();
      this.endWatch?.('stopped');
      this.syncWaiters
        .splice(0)
        .forEach(({ reject }) => reject(new Error('reflector stopped before it synced')));
    }
    await this.running;
  }

  /** True once the first complete list is in the cache. */
  hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    if (this.stopped) return Promise.reject(new Error('reflector stopped before it synced'));
    return new Promise((resolve, reject) => this.syncWaiters.push({ resolve, reject }));
  }

  private async run(): Promise<void> {
    let needsList = true;
    while (!this.stopped) {
      if (needsList) {
        try {
          await this.listAll();
          needsList = false;
        } catch (error) {
          if (this.stopped) break;
          this.logger.warn({ err: error }, 'list failed; retrying');
          await this.sleep(this.backoff.next());
          continue;
        }
      }
      const end = await this.watchOnce();
      if (end === 'gone') {
        this.logger.info(
          { resourceVersion: this.lastResourceVersion },
          'resourceVersion expired; re-listing',
        );
        needsList = true;
      } else if (end === 'too-large') {
        // client-go re-lists too: the list reads the current state, whatever the watch cache has seen.
        this.logger.info(
          { resourceVersion: this.lastResourceVersion },
          'resourceVersion too large for the server; re-listing',
        );
        needsList = true;
        await this.sleep(this.backoff.next());
      } else if (end === 'failed') {
        await this.sleep(this.backoff.next());
      } else if (end === 'hung') {
        this.logger.warn('watch delivered nothing before its deadline; re-watching');
      }
    }
  }

  /** Lists every page, then swaps the cache in one step so readers never see a partial list. */
  private async listAll(): Promise<void> {
    const items: T[] = [];
    let limit: number | undefined = this.pageSize;
    let continueToken: string | undefined;
    let resourceVersion: string | undefined;
    for (;;) {
      let page: KubeList<T>;
      const pageTimeout = new AbortController();
      const pageTimer = this.clock.setTimeout(() => pageTimeout.abort(), this.listTimeoutMs);
      try {
        page = await kubeRequestJson<KubeList<T>>(this.options.kubeConfig, {
          path: this.path,
          query: {
            limit,
            continue: continueToken,
            labelSelector: this.options.labelSelector,
            fieldSelector: this.options.fieldSelector,
          },
          ...(this.options.metadataOnly ? { accept: METADATA_ONLY.list } : {}),
          signal: AbortSignal.any([this.stopController.signal, pageTimeout.signal]),
        });
      } catch (error) {
        if (!(continueToken && isGone(error))) throw error;
        // The continue token expired mid-list (etcd compacted it): start over with one unpaginated list.
        this.logger.info('list continue token expired; listing again without pages');
        items.length = 0;
        limit = undefined;
        continueToken = undefined;
        continue;
      } finally {
        this.clock.clearTimeout(pageTimer);
      }
      const kind = page.kind?.replace(/List$/, '');
      for (const item of page.items ?? []) {
        // The apiserver omits apiVersion and kind on list items; fill them in as watch events carry them.
        items.push(this.keep(prepare({ apiVersion: page.apiVersion, kind, ...item })));
      }
      resourceVersion = page.metadata?.resourceVersion;
      continueToken = page.metadata?.continue || undefined;
      if (!continueToken) break;
      await yieldIfBusy();
    }

    const changed = this.objects.replace(items);
    this.lastResourceVersion = resourceVersion;
    this.logger.debug({ objects: items.length, resourceVersion }, 'listed');
    if (!this.synced) {
      this.synced = true;
      this.syncWaiters.splice(0).forEach(({ resolve }) => resolve());
    }
    for (const key of changed) {
      this.notify(key);
      // Thousands of keys after a list: the loop gets its turns while they are handed on.
      if (overSlice()) await nextSlice();
    }
  }

  private watchOnce(): Promise<WatchEnd> {
    return new Promise((resolve) => {
      const request = new AbortController();
      const startedAt = this.clock.now();
      let events = 0;
      let deadline: TimerHandle | undefined;
      const timeoutSeconds = randomBetween(this.watchTimeout.min, this.watchTimeout.max);
      const deadlineMs = timeoutSeconds * 1000 + this.hungWatchGraceMs;

      const finish = (end: WatchEnd) => {
        if (this.endWatch !== finish) return;
        this.endWatch = undefined;
        this.clock.clearTimeout(deadline);
        request.abort();
        if (this.clock.now() - startedAt >= this.healthyWatchMs) this.backoff.reset();
        resolve(end);
      };
      const armDeadline = () => {
        this.clock.clearTimeout(deadline);
        deadline = this.clock.setTimeout(() => finish('hung'), deadlineMs);
      };
      this.endWatch = finish;
      if (this.stopped) return finish('stopped');
      armDeadline();

      kubeOpenStream(this.options.kubeConfig, {
        path: this.path,
        query: {
          watch: true,
          resourceVersion: this.lastResourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds,
          labelSelector: this.options.labelSelector,
          fieldSelector: this.options.fieldSelector,
        },
        ...(this.options.metadataOnly ? { accept: METADATA_ONLY.watch } : {}),
        signal: request.signal,
      }).then(
        (stream) => {
          if (this.endWatch !== finish) return void stream.destroy();
          readLines(
            stream,
            (line) => {
              armDeadline();
              events++;
              const end = this.applyEvent(line);
              if (end) finish(end);
            },
            (error) => {
              // A stream that stop() aborted is no news; any other break is.
              if (error && !this.stopped) this.logger.warn({ err: error }, 'watch connection broke');
              const tooShort = events === 0 && this.clock.now() - startedAt < MIN_HEALTHY_WATCH_MS;
              finish(error || tooShort ? 'failed' : 'closed');
            },
          );
        },
        (error: unknown) => {
          if (this.endWatch !== finish) return; // aborted by us: the end is already decided
          if (isGone(error)) return finish('gone');
          this.logger.warn({ err: error }, 'watch request failed');
          finish(
            error instanceof KubeApiError && isTooLargeResourceVersion(error.status) ? 'too-large' : 'failed',
          );
        },
      );
    });
  }

  /** Applies one watch event to the cache; returns how the watch ends if the event ends it. */
  private applyEvent(line: string): WatchEnd | undefined {
    let event: WatchEvent;
    try {
      event = JSON.parse(line) as WatchEvent;
    } catch {
      this.logger.warn({ line: line.slice(0, 200) }, 'ignoring a watch line that is not JSON');
      return undefined;
    }
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED': {
        const object = this.keep(prepare(event.object as T));
        this.advanceTo(object.metadata.resourceVersion);
        this.notify(this.objects.upsert(object));
        return undefined;
      }
      case 'DELETED': {
        const object = event.object as T;
        this.advanceTo(object.metadata.resourceVersion);
        this.notify(this.objects.remove(object));
        return undefined;
      }
      case 'BOOKMARK':
        this.advanceTo((event.object as KubeObject).metadata?.resourceVersion);
        return undefined;
      case 'ERROR': {
        const status = event.object as KubeStatus;
        if (status?.code === 410 || status?.reason === 'Expired' || status?.reason === 'Gone') return 'gone';
        if (isTooLargeResourceVersion(status)) return 'too-large';
        this.logger.warn({ status }, 'watch reported an error');
        return 'failed';
      }
      default:
        return undefined;
    }
  }

  /** What the cache keeps of an object: only its metadata when so asked, whatever the server sent. */
  private keep(object: T): T {
    if (!this.options.metadataOnly) return object;
    const { apiVersion, kind, metadata } = object;
    return { apiVersion, kind, metadata } as T;
  }

  private advanceTo(resourceVersion: string | undefined): void {
    if (resourceVersion) this.lastResourceVersion = resourceVersion;
  }

  private notify(key: string): void {
    try {
      this.options.onChange(key);
    } catch (error) {
      this.logger.error({ err: error, key }, 'onChange handler threw');
    }
  }

  /** Waits, but returns early when stop() is called. */
  private sleep(ms: number): Promise<void> {
    const stopping = this.stopController.signal;
    if (stopping.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        this.clock.clearTimeout(timer);
        stopping.removeEventListener('abort', wake);
        resolve();
      };
      const timer = this.clock.setTimeout(wake, ms);
      stopping.addEventListener('abort', wake, { once: true });
    });
  }
}

/**
 * The apiserver's answer to a resourceVersion its watch cache has not reached (client-go's
 * isTooLargeResourceVersionError): a cause `ResourceVersionTooLarge`, or, from older servers, the message.
 */
function isTooLargeResourceVersion(status: KubeStatus | undefined): boolean {
  if (status?.details?.causes?.some((cause) => cause.reason === 'ResourceVersionTooLarge')) return true;
  return status?.message?.includes('Too large resource version') ?? false;
}

/** kubectl's copy of the whole object as last applied (for a Secret, its data too). */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Drops managedFields and kubectl's last-applied copy: large, never read by the operator, and a cache-memory
 * cost for every object (the copy can double an object's size).
 */
function prepare<T extends KubeObject>(object: T): T {
  const { metadata } = object;
  const annotations = metadata?.annotations as Record<string, string> | undefined;
  const lastApplied = annotations !== undefined && LAST_APPLIED in annotations;
  if (!metadata || (!('managedFields' in metadata) && !lastApplied)) return object;
  // Copies without the fields rather than `delete`, which turns an object into a slower, larger dictionary.
  const { managedFields: _managedFields, ...kept } = metadata;
  if (lastApplied) {
    kept.annotations = Object.fromEntries(
      Object.entries(annotations).filter(([key]) => key !== LAST_APPLIED),
    );
  }
  object.metadata = kept;
  return object;
}

function randomBetween(min: number, max: number): number {
  return Math.round(min + Math.random() * Math.max(0, max - min));
}
