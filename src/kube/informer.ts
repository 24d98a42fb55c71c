import type { KubeObject, ReadonlyCache } from './cache.ts';
import { Reflector, type ReflectorOptions } from './reflector.ts';

export type ChangeHandler = (key: string) => void;

/**
 * One reflector shared by every part of the operator that needs a resource type (client-go's shared
 * informer): one list and one watch, one cache, and each change handed to every subscriber.
 */
export class Informer<T extends KubeObject = KubeObject> {
  private readonly reflector: Reflector<T>;
  private readonly handlers: ChangeHandler[] = [];

  constructor(options: Omit<ReflectorOptions, 'onChange'>) {
    this.reflector = new Reflector<T>({
      ...options,
      onChange: (key) => {
        for (const handler of this.handlers) handler(key);
      },
    });
  }

  get cache(): ReadonlyCache<T> {
    return this.reflector.cache;
  }

  /** Handlers run in the order they subscribed; they should only enqueue or index. */
  subscribe(handler: ChangeHandler): void {
    this.handlers.push(handler);
  }

  start(): void {
    this.reflector.start();
  }

  stop(): Promise<void> {
    return this.reflector.stop();
  }

  hasSynced(): boolean {
    return this.reflector.hasSynced();
  }

  waitForSync(): Promise<void> {
    return this.reflector.waitForSync();
  }
}
