import { pino, type Logger } from 'pino';
import { systemClock, type Clock } from '../clock.ts';
import { failureOf, type Failure } from '../base/failure.ts';
import type { Reconcile } from '../base/requeue.ts';
import { yieldIfBusy } from '../base/slices.ts';
import { noopReconcileMetrics, type ReconcileMetrics, type ReconcileResult } from './metrics.ts';
import type { WorkQueue } from './workqueue.ts';

export interface WorkerPoolOptions {
  queue: WorkQueue;
  /** `--concurrency`: how many keys are reconciled at once (each key by at most one worker). */
  concurrency: number;
  reconcile: Reconcile;
  metrics?: ReconcileMetrics;
  logger?: Logger;
  clock?: Clock;
}

/**
 * Runs `concurrency` workers that take keys from the queue and reconcile them, applying controller-runtime's
 * result rules: a thrown error → backoff retry; `requeueAfterMs` or `resyncAfterMs` → forget the backoff and
 * come back later; `requeue` → backoff retry; otherwise → forget. Resolves when the queue has shut down and
 * every worker has finished its current key.
 */
export async function runWorkers(options: WorkerPoolOptions): Promise<void> {
  const { queue, reconcile } = options;
  const metrics = options.metrics ?? noopReconcileMetrics;
  const logger = options.logger ?? pino({ enabled: false });
  const clock = options.clock ?? systemClock;
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${options.concurrency}`);
  }
  metrics.maxConcurrentReconciles(options.concurrency);

  const processOne = async (key: string): Promise<void> => {
    // A burst hands every worker a key at once: each starts in a turn of its own once the loop is busy.
    await yieldIfBusy();
    const startedAt = clock.now();
    metrics.reconcileStarted();
    let result: ReconcileResult;
    try {
      const next = (await reconcile(key)) ?? {};
      if (next.requeueAfterMs !== undefined && next.requeueAfterMs > 0) {
        queue.forget(key);
        queue.addAfter(key, next.requeueAfterMs);
        result = 'requeue_after';
      } else if (next.resyncAfterMs !== undefined && next.resyncAfterMs > 0) {
        queue.forget(key);
        queue.addAfter(key, next.resyncAfterMs);
        result = 'success';
      } else if (next.requeue) {
        queue.addRateLimited(key);
        result = 'requeue';
      } else {
        queue.forget(key);
        result = 'success';
      }
    } catch (err) {
      // An error may set a floor under the backoff (e.g. a request the cloud refused will be refused again).
      const failure = failureOf(err);
      queue.addRateLimited(key, failure?.retryAfterMs ?? 0);
      result = 'error';
      logFailure(logger, key, err, failure, queue.numRequeues(key));
    } finally {
      queue.done(key);
    }
    metrics.reconcileFinished(result, (clock.now() - startedAt) / 1000);
  };

  const worker = async (): Promise<void> => {
    for (let key = await queue.get(); key !== undefined; key = await queue.get()) {
      await processOne(key);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
}

/**
 * A failure that says what it is was expected (a user's missing Secret, a cloud answering 503), and the
 * reconciler logged it with its reason (at info or warn): a stack trace would only point at the operator.
 * Any other error is the operator's own: error level, with its stack.
 */
function logFailure(
  logger: Logger,
  key: string,
  err: unknown,
  failure: Failure | undefined,
  retries: number,
): void {
  if (failure === undefined) logger.error({ err, key, retries }, 'reconcile failed');
  else logger.debug({ key, retries }, 'reconcile failed; retried after a backoff');
}
