import { apiPath, SECRETS } from '../kube/api-path.ts';
import type { ReadonlyCache } from '../kube/cache.ts';
import type { KubeAccess } from '../kube/kube-config.ts';
import { KubeApiError, kubeRequestJson } from '../kube/kube-http.ts';
import { decodeSecretData, type OwnerReference, type SecretObject } from '../kube/secret-data.ts';
import { DependencyIndex } from '../managed/references.ts';
import {
  MAX_KEPT_SECRET_BYTES,
  type SecretReader,
  type SecretSnapshot,
} from '../managed/secret-references.ts';

/** The data of a Secret sluice uses, as a GET answered it. */
interface HeldSecret {
  /** The version the data is of. */
  resourceVersion: string;
  /** The watch's version when the GET was sent: the data is at least as new as that. */
  seenAt: string;
  data: Readonly<Record<string, string>>;
  ownerReferences?: readonly OwnerReference[];
  bytes: number;
  /** The keys its users wanted when it was read (`keysKept`), and those left out as too large. */
  kept: string;
  oversized: readonly string[];
}

/** One Secret an object uses (`namespace/name`), and the keys it reads of it: every key when unset. */
export interface SecretDataUse {
  secret: string;
  keys?: readonly string[];
}

/** How many Secrets the operator holds, and how much data (for the metrics). */
export interface SecretCacheStats {
  metadata: number;
  data: number;
  dataBytes: number;
}

export interface SecretCacheOptions {
  /** The watches of Secrets' metadata (no data): one for the watched namespaces, maybe one more. */
  informers: readonly { cache: ReadonlyCache<SecretObject> }[];
  kubeConfig: KubeAccess;
  /** Secrets (`namespace/name`) whose data is always held: the operator's own credentials. */
  pinned?: readonly string[];
}

/**
 * Secrets as the operator holds them: every Secret's metadata from a watch (finalizers, owners, versions:
 * what Events, the credentials finalizer and rotation detection go by), and the data of only the Secrets a
 * sluice object uses (its credentials, the Secrets its spec references, its connection Secret) or the
 * operator's own credentials, read by GET and read again when the watch shows a new version. A Secret no
 * object uses costs its metadata, whatever its size. No apiserver request per reconcile: a reconcile reads
 * what `load` brought in.
 */
export class SecretCache implements SecretReader {
  private readonly held = new Map<string, HeldSecret>();
  private readonly loading = new Map<string, Promise<void>>();
  /** Which Secrets (`namespace/name`) each user (an object's dependency key) uses. */
  private readonly users = new DependencyIndex();
  /** The keys each user reads of each Secret it uses (absent: every key). */
  private readonly keysOfUser = new Map<string, Map<string, readonly string[] | undefined>>();
  private readonly pinned: ReadonlySet<string>;

  constructor(private readonly options: SecretCacheOptions) {
    this.pinned = new Set(options.pinned ?? []);
  }

  /** The Secret's data when it is one sluice uses and was loaded; undefined when the watch has no such Secret. */
  get(namespace: string, name: string): SecretSnapshot | undefined {
    const key = `${namespace}/${name}`;
    const held = this.object(namespace, name) && this.held.get(key);
    if (!held) return undefined;
    return {
      data: held.data,
      resourceVersion: held.resourceVersion,
      ...(held.ownerReferences ? { ownerReferences: held.ownerReferences } : {}),
      ...(held.oversized.length > 0 ? { oversized: held.oversized } : {}),
    };
  }

  /** The Secret's metadata as the watch delivered it (never its data). */
  object(namespace: string, name: string): SecretObject | undefined {
    return this.metadata(`${namespace}/${name}`);
  }

  /** The keys (`namespace/name`) of every Secret the watches see. */
  keys(): string[] {
    return this.options.informers.flatMap((informer) => informer.cache.keys());
  }

  /** A Secret's identity (never its data): what an Event about the Secret names. */
  identity(namespace: string, name: string): { namespace: string; name: string; uid: string } | undefined {
    const uid = this.object(namespace, name)?.metadata.uid;
    return uid === undefined ? undefined : { namespace, name, uid };
  }

  /** `user` now uses these Secrets (none: it is gone); the data of a Secret no one uses any more goes. */
  use(user: string, uses: readonly SecretDataUse[]): void {
    if (uses.length > 0) this.keysOfUser.set(user, new Map(uses.map((u) => [u.secret, u.keys])));
    else this.keysOfUser.delete(user);
    const secretKeys = uses.map((u) => u.secret);
    for (const key of this.users.set(user, secretKeys)) if (!this.isUsed(key)) this.held.delete(key);
  }

  /** The keys sluice reads of a Secret, sorted (what its users read together); undefined: every key. */
  private keysKept(secretKey: string): readonly string[] | undefined {
    if (this.pinned.has(secretKey)) return undefined;
    const keys = new Set<string>();
    for (const user of this.users.dependantsOf(secretKey)) {
      const read = this.keysOfUser.get(user)?.get(secretKey);
      if (read === undefined) return undefined;
      for (const key of read) keys.add(key);
    }
    return [...keys].sort();
  }

  /** Whether sluice holds this Secret's data: an object uses it, or it is the operator's. */
  isUsed(secretKey: string): boolean {
    return this.pinned.has(secretKey) || this.users.dependantsOf(secretKey).length > 0;
  }

  /** Brings the data of these Secrets (the used ones) up to the version the watch shows. */
  async load(secretKeys: Iterable<string>): Promise<void> {
    await Promise.all([...new Set(secretKeys)].map((key) => this.refresh(key)));
  }

  /** The operator's own Secrets, at start. */
  loadPinned(): Promise<void> {
    return this.load(this.pinned);
  }

  /**
   * The watch showed the Secret changed: its data is read again if sluice uses it, dropped if not (or gone).
   * A GET that lands while the watch moves on again is repeated, a few times at most.
   */
  async refresh(secretKey: string): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const watched = this.metadata(secretKey);
      if (!watched || !this.isUsed(secretKey)) {
        this.held.delete(secretKey);
        return;
      }
      const version = watched.metadata.resourceVersion ?? '';
      const held = this.held.get(secretKey);
      // Read again, too, once its users read other keys than those kept.
      const current = held?.kept === JSON.stringify(this.keysKept(secretKey) ?? null);
      if (held && current && (held.resourceVersion === version || held.seenAt === version)) return;
      let pending = this.loading.get(secretKey);
      if (!pending) {
        pending = this.fetch(secretKey, version).finally(() => this.loading.delete(secretKey));
        this.loading.set(secretKey, pending);
      }
      await pending;
    }
  }

  stats(): SecretCacheStats {
    let dataBytes = 0;
    for (const held of this.held.values()) dataBytes += held.bytes;
    const metadata = this.options.informers.reduce((sum, informer) => sum + informer.cache.size, 0);
    return { metadata: metadata - this.held.size, data: this.held.size, dataBytes };
  }

  private metadata(secretKey: string): SecretObject | undefined {
    for (const informer of this.options.informers) {
      const secret = informer.cache.get(secretKey);
      if (secret) return secret;
    }
    return undefined;
  }

  private async fetch(secretKey: string, seenAt: string): Promise<void> {
    const slash = secretKey.indexOf('/');
    const path = apiPath(SECRETS, secretKey.slice(0, slash), secretKey.slice(slash + 1));
    let secret: SecretObject;
    try {
      secret = await kubeRequestJson<SecretObject>(this.options.kubeConfig, { path });
    } catch (error) {
      // Deleted since the watch saw it: its deletion arrives as a watch event too.
      if (error instanceof KubeApiError && error.statusCode === 404) {
        this.held.delete(secretKey);
        return;
      }
      throw error;
    }
    if (!this.isUsed(secretKey)) return;
    const wanted = this.keysKept(secretKey);
    const { data, bytes, oversized } = keptData(decodeSecretData(secret.data ?? {}), wanted);
    const { resourceVersion = '', ownerReferences } = secret.metadata;
    this.held.set(secretKey, {
      resourceVersion,
      seenAt,
      data,
      ...(ownerReferences ? { ownerReferences } : {}),
      bytes,
      kept: JSON.stringify(wanted ?? null),
      oversized,
    });
  }
}

/**
 * What is kept of a Secret's data: the `wanted` keys (every key when undefined), in key order, while they
 * fit in `MAX_KEPT_SECRET_BYTES`; a key that would go past it is left out and named in `oversized`.
 */
export function keptData(
  all: Record<string, string>,
  wanted: readonly string[] | undefined,
): { data: Readonly<Record<string, string>>; bytes: number; oversized: string[] } {
  const data: Record<string, string> = {};
  const oversized: string[] = [];
  let bytes = 0;
  for (const key of wanted ?? Object.keys(all).sort()) {
    const value = Object.hasOwn(all, key) ? all[key] : undefined;
    if (value === undefined) continue;
    const size = key.length + Buffer.byteLength(value);
    if (bytes + size > MAX_KEPT_SECRET_BYTES) oversized.push(key);
    else {
      data[key] = value;
      bytes += size;
    }
  }
  return { data: Object.freeze(data), bytes, oversized };
}
