import { isDeepStrictEqual } from 'node:util';
import { objectKey } from '../cache.ts';
import type { ManagedObject, ManagedStatus } from './types.ts';

/**
 * The status this process last wrote per object (client-go's expectations idea). The cache can lag behind
 * our own write: a reconcile that compared only with the cached status could take a stale Ready=True for
 * what the server holds and skip a write that is needed, leaving the status wrong until the next sync.
 */
export class StatusExpectations {
  private readonly written = new Map<string, { uid: string; status: ManagedStatus }>();

  /** True when `next` needs no write: the cached object shows it, and so does our last write, if any. */
  upToDate(cached: ManagedObject, next: ManagedStatus): boolean {
    const key = objectKey(cached);
    let last = this.written.get(key);
    if (last?.uid === cached.metadata.uid && isDeepStrictEqual(cached.status ?? {}, last.status)) {
      // The cache shows our write, and every later state it shows is newer: the expectation is met, and
      // holding a copy of every object's status for good would cost memory in proportion to the objects.
      this.written.delete(key);
      last = undefined;
    }
    if (!isDeepStrictEqual(next, cached.status ?? {})) return false;
    return last === undefined || last.uid !== cached.metadata.uid || isDeepStrictEqual(next, last.status);
  }

  /** Objects whose last written status the cache has not shown yet. */
  get pending(): number {
    return this.written.size;
  }

  wrote(resource: ManagedObject, status: ManagedStatus): void {
    this.written.set(objectKey(resource), { uid: resource.metadata.uid, status: structuredClone(status) });
  }

  /** The object is gone. */
  forget(key: string): void {
    this.written.delete(key);
  }
}
