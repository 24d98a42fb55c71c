import type { KubeObject, ReadonlyCache } from './cache.ts';
import { Informer, type ChangeHandler } from './informer.ts';
import type { ReflectorOptions } from './reflector.ts';

/** What the manager uses of an informer: one cache, its changes, its lifecycle. */
export type SharedInformer<T extends KubeObject> = Pick<
  Informer<T>,
  'cache' | 'subscribe' | 'start' | 'stop' | 'hasSynced' | 'waitForSync'
>;

/**
 * Informers of one resource type over disjoint parts of it (one per namespace, or a single object beyond
 * them), seen as one: a cache whose keys (`namespace/name`) never collide between them, and every change
 * handed to every subscriber. Watching a list of namespaces needs only Roles in each, where watching all of
 * them needs cluster-wide rights.
 */
export class InformerUnion<T extends KubeObject> implements SharedInformer<T> {
  readonly cache: ReadonlyCache<T>;

  constructor(private readonly informers: readonly Informer<T>[]) {
    const caches = this.informers.map((informer) => informer.cache);
    this.cache = {
      get: (key) => {
        for (const cache of caches) {
          const object = cache.get(key);
          if (object) return object;
        }
        return undefined;
      },
      list: () => caches.flatMap((cache) => cache.list()),
      keys: () => caches.flatMap((cache) => cache.keys()),
      get size() {
        return caches.reduce((sum, cache) => sum + cache.size, 0);
      },
    };
  }

  subscribe(handler: ChangeHandler): void {
    for (const informer of this.informers) informer.subscribe(handler);
  }

  start(): void {
    for (const informer of this.informers) informer.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((informer) => informer.stop()));
  }

  hasSynced(): boolean {
    return this.informers.every((informer) => informer.hasSynced());
  }

  async waitForSync(): Promise<void> {
    await Promise.all(this.informers.map((informer) => informer.waitForSync()));
  }
}

/** One informer for all namespaces (none listed), else one per listed namespace, seen as one. */
export function informerFor<T extends KubeObject>(
  namespaces: readonly string[] | undefined,
  options: Omit<ReflectorOptions, 'onChange' | 'namespace'>,
): SharedInformer<T> {
  if (!namespaces?.length) return new Informer<T>(options);
  return unionOf(namespaces.map((namespace) => new Informer<T>({ ...options, namespace })));
}

/** These informers seen as one; a single one is itself, so its cache's look-up is the map's own. */
export function unionOf<T extends KubeObject>(informers: readonly Informer<T>[]): SharedInformer<T> {
  return informers.length === 1 ? informers[0]! : new InformerUnion(informers);
}
