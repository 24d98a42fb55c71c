/**
 * What a reconcile asks of the work queue next. Returning nothing means: done, until something changes. Here
 * rather than beside the workers so the managed reconciler that answers it and the workers that act on it both
 * stand on it, neither on the other.
 */
export interface Requeue {
  /** Not done yet: reconcile again after this delay, e.g. to poll a cloud change. Resets the backoff. */
  requeueAfterMs?: number;
  /**
   * Done: reconcile again after this delay all the same, as a periodic check (for drift). Resets the backoff
   * and, unlike `requeueAfterMs`, counts as a `success`: an object in sync is not an object still at work.
   */
  resyncAfterMs?: number;
  /** Reconcile again after the key's backoff, without counting as an error. */
  requeue?: boolean;
}

export type Reconcile = (key: string) => Promise<Requeue | void>;
