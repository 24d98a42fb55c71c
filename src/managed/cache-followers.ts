import type { KubeObject, ReadonlyCache } from '../kube/cache.ts';

/** What this process keeps of an object beside the cache, and brings up to date with what the cache shows. */
export interface CacheFollower<R> {
  /** What the cache shows now for `key` (undefined: gone). */
  observe(key: string, cached: R | undefined): void;
}

/**
 * Tells each follower (our last status writes, the claims on cloud ids, the creates under way) what the
 * cache shows for an object, on a watch event and once this process's own write is known: one place, so no
 * follower is left behind by one path.
 */
export class CacheFollowers<R extends KubeObject> {
  constructor(
    private readonly cache: ReadonlyCache<R>,
    private readonly followers: readonly CacheFollower<R>[],
  ) {}

  /** The cache changed for `key` (or this process wrote to it): each follower looks at what it shows. */
  readonly changed = (key: string): void => {
    const cached = this.cache.get(key);
    for (const follower of this.followers) follower.observe(key, cached);
  };
}
