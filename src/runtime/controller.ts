import type { Logger } from 'pino';
import type { ReadonlyCache } from '../kube/cache.ts';
import { OPERATOR_ANNOTATIONS } from '../managed/annotations.ts';
import type { ManagedReconciler } from '../managed/reconciler.ts';
import type { ManagedObject } from '../managed/types.ts';
import type { OperatorMetrics } from './metrics.ts';
import { runWorkers } from './workers.ts';
import { WorkQueue } from './workqueue.ts';

/** What a controller asks of its kind's reconciler (built by the composition root, never here). */
export type KindReconciler = Pick<
  ManagedReconciler<ManagedObject, unknown, unknown>,
  'reconcile' | 'onCacheChange' | 'holdersOf' | 'recordedHoldersOf'
>;

export interface ControllerOptions<R extends ManagedObject> {
  /** The kind's name (`DatabaseService`): its queue's and metrics' label, lower-cased. */
  kind: string;
  cache: ReadonlyCache<R>;
  reconciler: KindReconciler;
  /** Before each reconcile of `key`: what it reads from caches that are filled on demand (Secrets' data). */
  beforeReconcile?(key: string): Promise<void>;
  concurrency: number;
  metrics: OperatorMetrics;
  logger: Logger;
}

/**
 * One kind's work queue and workers running the generic managed reconciler. Knows no kind; the manager
 * feeds it keys from the shared informers.
 */
export class Controller<R extends ManagedObject> {
  private readonly queue: WorkQueue;
  private readonly reconciler: KindReconciler;
  /** What last triggered each key, to skip events that change nothing the reconciler acts on. */
  private readonly triggers = new Map<string, string>();
  private workers?: Promise<void>;

  constructor(private readonly options: ControllerOptions<R>) {
    this.queue = new WorkQueue({ metrics: options.metrics.workQueue(options.kind.toLowerCase()) });
    this.reconciler = options.reconciler;
  }

  get name(): string {
    return this.options.kind;
  }

  start(): void {
    this.workers = runWorkers({
      queue: this.queue,
      concurrency: this.options.concurrency,
      reconcile: async (key) => {
        await this.options.beforeReconcile?.(key);
        return this.reconciler.reconcile(key);
      },
      metrics: this.options.metrics.reconciler(this.options.kind.toLowerCase()),
      logger: this.options.logger,
    });
  }

  /** The keys of this kind's objects whose status holds cloud object `id`. */
  recordedHoldersOf(id: string): string[] {
    return this.reconciler.recordedHoldersOf(id);
  }

  /** Since when this kind's queue has held work without moving (see `WorkQueue.stalledSince`). */
  stalledSince(): number | undefined {
    return this.queue.stalledSince();
  }

  /** Stops taking keys; resolves once every worker has finished its current one. */
  async stop(): Promise<void> {
    await this.queue.shutdown();
    await this.workers;
  }

  /**
   * The cloud objects `ids` changed: reconcile the objects of this kind that manage them, ahead of keys not
   * begun yet (an object waiting for its create to finish is work already started).
   */
  onCloudChange(ids: readonly string[]): void {
    for (const id of ids) for (const key of this.reconciler.holdersOf(id)) this.queue.resume(key);
  }

  /** Reconcile this key soon, ahead of keys not begun yet: what it waits for has changed. */
  resume(key: string): void {
    this.queue.resume(key);
  }

  /** Reconcile this key soon (deduplicated with any pending add). */
  enqueue(key: string): void {
    this.queue.add(key);
  }

  /**
   * Enqueues a resource when something the reconciler acts on changed: its spec (generation), annotations
   * or deletion. Status writes, ours included, change none of these; reacting to them would turn every
   * failed reconcile into an immediate retry and defeat the backoff. The create intent sluice writes itself
   * is left out for the same reason. Drift checks come from requeues.
   */
  onResourceChange(key: string): void {
    this.reconciler.onCacheChange(key);
    const object = this.options.cache.get(key);
    if (!object) {
      this.triggers.delete(key);
      this.queue.add(key);
      return;
    }
    const { generation, annotations = {}, deletionTimestamp } = object.metadata;
    const userAnnotations = Object.fromEntries(
      Object.entries(annotations).filter(([name]) => !OPERATOR_ANNOTATIONS.includes(name)),
    );
    const trigger = JSON.stringify([generation, userAnnotations, deletionTimestamp ?? null]);
    if (this.triggers.get(key) === trigger) return;
    this.triggers.set(key, trigger);
    this.queue.add(key);
  }
}
