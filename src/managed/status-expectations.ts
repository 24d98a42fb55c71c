import { isDeepStrictEqual } from 'node:util';
import { objectKey } from '../kube/cache.ts';
import type { ManagedObject, ManagedStatus } from './types.ts';

interface Written {
  uid: string;
  status: ManagedStatus;
  /** The object versions this process had seen before the write: a cache showing one of them lags. */
  olderVersions: string[];
  /** The version the write made. */
  version: string | undefined;
}

/**
 * The status this process last wrote per object (client-go's expectations idea). The cache can lag behind
 * our own write: a reconcile that compared only with the cached status could take a stale Ready=True for
 * what the server holds and skip a write that is needed, leaving the status wrong until the next sync; or
 * rewrite, with a new transition time, a status it has just written.
 */
export class StatusExpectations {
  private readonly written = new Map<string, Written>();

  /** True when `next` needs no write: the cached object shows it, and so does our last write, if any. */
  upToDate(cached: ManagedObject, next: ManagedStatus): boolean {
    this.observe(objectKey(cached), cached);
    const ahead = this.ahead(cached);
    if (ahead) return isDeepStrictEqual(next, ahead);
    const last = this.written.get(objectKey(cached));
    if (!isDeepStrictEqual(next, cached.status ?? {})) return false;
    return last === undefined || last.uid !== cached.metadata.uid || isDeepStrictEqual(next, last.status);
  }

  /**
   * Our last written status when `cached` is a version from before that write (the watch has not delivered
   * it yet): what the server holds, to build on and to patch from.
   */
  ahead(cached: ManagedObject, key = objectKey(cached)): ManagedStatus | undefined {
    const last = this.written.get(key);
    const version = cached.metadata.resourceVersion;
    if (last?.uid !== cached.metadata.uid || version === undefined) return undefined;
    return last.olderVersions.includes(version) ? last.status : undefined;
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

  /**
   * `status` was written to `resource` (the version the write was sent for) and made `updated`; `seen` are
   * other versions the writer read before (the one its reconcile started from).
   */
  wrote(
    resource: ManagedObject,
    status: ManagedStatus,
    updated: ManagedObject,
    seen: readonly string[] = [],
  ) {
    const key = objectKey(resource);
    const last = this.written.get(key);
    // Written again before the cache showed the last write: that write's versions are older too.
    const carried = last?.uid === resource.metadata.uid ? [...last.olderVersions, last.version] : [];
    const older = [...carried, ...seen, resource.metadata.resourceVersion];
    this.written.set(key, {
      uid: resource.metadata.uid,
      status: structuredClone(status),
      olderVersions: [...new Set(older.filter((v): v is string => v !== undefined))],
      version: updated.metadata.resourceVersion,
    });
  }
}
