import type { ManagedObject, ManagedStatus } from './types.ts';

/**
 * What one reconcile read of its object, once, at its start: the parts it runs take it as data rather than
 * work it out again each (the key each of their records is kept under, the status the server holds).
 */
export interface ObjectRead<R extends ManagedObject> {
  /** `namespace/name`. */
  key: string;
  /** The object as the cache showed it. */
  object: R;
  /** The status the server holds: this process's last write when the cache has not shown it yet. */
  latest: Readonly<ManagedStatus>;
  /** The cloud id its external-id annotation names, if any. */
  externalId: string | undefined;
}
