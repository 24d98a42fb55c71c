import { shareStrings } from '../base/shared-strings.ts';

/** The part of a Kubernetes object the runtime relies on. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    managedFields?: unknown;
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

/** `namespace/name`, or just `name` for a cluster-scoped object (client-go's MetaNamespaceKeyFunc). */
export function objectKey(object: Pick<KubeObject, 'metadata'>): string {
  const { namespace, name } = object.metadata;
  return namespace ? `${namespace}/${name}` : name;
}

export function splitKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export interface ReadonlyCache<T extends KubeObject> {
  /**
   * The cached object itself, deeply frozen: shared by every reader without a copy per read (a deep clone
   * per read was a large share of the operator's CPU at thousands of objects). Copy before modifying.
   */
  get(key: string): T | undefined;
  list(): T[];
  keys(): string[];
  readonly size: number;
}

/** Objects by key, as last seen by the reflector. */
export class ObjectCache<T extends KubeObject> implements ReadonlyCache<T> {
  /** The same map for the cache's life (a relist refills it), so `get` can be its own. */
  private readonly objects = new Map<string, T>();
  private readonly keep: (object: T) => T;
  /** The map's own look-up: every reconcile reads its object and Secrets here, through no wrapper. */
  readonly get: (key: string) => T | undefined = this.objects.get.bind(this.objects);

  /** `share`: hold one copy of each short string with every other cache (not for Secrets). */
  constructor(share = true) {
    this.keep = share ? (object) => deepFreeze(shareStrings(object)) : deepFreeze;
  }

  get size(): number {
    return this.objects.size;
  }

  list(): T[] {
    return [...this.objects.values()];
  }

  keys(): string[] {
    return [...this.objects.keys()];
  }

  /** Stores the object and returns its key. */
  upsert(object: T): string {
    const key = objectKey(object);
    this.objects.set(key, this.keep(object));
    return key;
  }

  /** Drops the object and returns its key. */
  remove(object: Pick<KubeObject, 'metadata'>): string {
    const key = objectKey(object);
    this.objects.delete(key);
    return key;
  }

  /**
   * Replaces the whole content with a fresh list and returns every key that may have changed: all listed
   * objects and every object that is gone.
   */
  replace(objects: T[]): string[] {
    const listed = new Map(objects.map((object) => [objectKey(object), this.keep(object)]));
    const gone = [...this.objects.keys()].filter((key) => !listed.has(key));
    this.objects.clear();
    for (const [key, object] of listed) this.objects.set(key, object);
    return [...listed.keys(), ...gone];
  }
}

/** Freezes `value` and everything it holds, so a reader that modifies a cached object fails loudly. */
function deepFreeze<V>(value: V): V {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const field of Object.values(value)) deepFreeze(field);
  return Object.freeze(value);
}
