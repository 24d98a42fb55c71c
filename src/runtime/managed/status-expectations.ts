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
    this.observe(objectKey(cached), cached);
    const last = this.written.get(objectKey(cached));
    if (!isDeepStrictEqual(next, cached.status ?? {})) return false;
    return last === undefined || last.uid !== cached.metadata.uid || isDeepStrictEqual(next, last.status);
  }

  /**
   * What the cache shows now for `key` (undefined: gone). Once it shows our write, every later state it
   * shows is newer: the expectation is met and forgotten, so a settled object costs nothing here. Called
   * on every cache change, since after its last write an object may not be reconciled again for a long time.
   */
  observe(key: string, cached: ManagedObject | undefined): void {
    const last = this.written.get(key);
    if (last === undefined) return;
    if (cached?.metadata.uid !== last.uid || isDeepStrictEqual(cached.status ?? {}, last.status)) {
      this.written.delete(key);
    }
  }

  /** Objects whose last written status the cache has not shown yet. */
  get pending(): number {
    return this.written.size;
  }

  wrote(resource: ManagedObject, status: ManagedStatus): void {
    this.written.set(objectKey(resource), { uid: resource.metadata.uid, status: structuredClone(status) });
  }
}
