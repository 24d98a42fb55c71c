import { apiPath, SECRETS } from '../kube/api-path.ts';
import type { ReadonlyCache } from '../kube/cache.ts';
import type { KubeAccess } from '../kube/kube-config.ts';
import { KubeApiError, kubeRequestJson } from '../kube/kube-http.ts';
import type { SecretObject } from '../kube/secret-data.ts';
import { DependencyIndex } from '../managed/references.ts';
import {
  MAX_KEPT_SECRET_BYTES,
  snapshotOf,
  type SecretReader,
  type SecretSnapshot,
  type SecretWriteListener,
} from '../managed/secret-references.ts';

/** The data of a Secret sluice uses, as a GET or sluice's own write answered it. */
interface HeldSecret extends SecretSnapshot {
  /** The watch's version when the GET was sent (a write's: its own): the data is at least as new as that. */
  seenAt: string;
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
  /** The watch of Secrets' metadata (no data): every watched namespace's, and the operator's own Secret. */
  metadata: ReadonlyCache<SecretObject>;
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
 * what `load` brought in. What sluice writes itself is held from the write's answer: the watch event of
 * that version (or an older one) costs no GET, a newer one (someone else's write) does.
 */
export class SecretCache implements SecretReader, SecretWriteListener {
  private readonly held = new Map<string, HeldSecret>();
  private readonly loading = new Map<string, Promise<void>>();
  /** sluice's own writes in flight, settled once their answer is held (or they failed). */
  private readonly writes = new Map<string, Promise<void>>();
  /** Which Secrets (`namespace/name`) each user (an object's dependency key) uses. */
  private readonly users = new DependencyIndex();
  /** The keys each user reads of each Secret it uses (absent: every key). */
  private readonly keysOfUser = new Map<string, Map<string, readonly string[] | undefined>>();
  private readonly pinned: ReadonlySet<string>;
  /** The watch's cache, the same for the informer's life: read directly, not asked for each time. */
  private readonly watched: ReadonlyCache<SecretObject>;

  constructor(private readonly options: SecretCacheOptions) {
    this.pinned = new Set(options.pinned ?? []);
    this.watched = options.metadata;
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
    return this.watched.get(`${namespace}/${name}`);
  }

  /** The keys (`namespace/name`) of every Secret the watch sees. */
  keys(): string[] {
    return this.watched.keys();
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

  /**
   * sluice writes a Secret: its answer is held, when sluice uses the Secret and nothing newer is held. Till
   * it comes, a watch event of the Secret waits for it rather than read the Secret: the event may be of
   * this very write. A failed write leaves the cache as it was.
   */
  writing(namespace: string, name: string, answer: Promise<SecretSnapshot>): void {
    const key = `${namespace}/${name}`;
    if (!this.isUsed(key)) return;
    const settled = answer.then(
      (secret) => {
        if (this.isUsed(key)) this.hold(key, secret, secret.resourceVersion);
      },
      () => undefined,
    );
    this.writes.set(key, settled);
    void settled.then(() => {
      if (this.writes.get(key) === settled) this.writes.delete(key);
    });
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
   * Data held of that version or a newer one (sluice's own write) is kept; while sluice's write of it is
   * under way, its answer is awaited first. A GET that lands while the watch moves on again is repeated, a
   * few times at most.
   */
  async refresh(secretKey: string): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const watched = this.watched.get(secretKey);
      if (!watched || !this.isUsed(secretKey)) {
        this.held.delete(secretKey);
        return;
      }
      const version = watched.metadata.resourceVersion ?? '';
      const held = this.held.get(secretKey);
      // Read again, too, once its users read other keys than those kept.
      const current = held?.kept === JSON.stringify(this.keysKept(secretKey) ?? null);
      if (held && current && (isAtLeast(held.resourceVersion, version) || held.seenAt === version)) return;
      const written = this.writes.get(secretKey);
      if (written) {
        await written;
        continue;
      }
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
    return { metadata: this.watched.size - this.held.size, data: this.held.size, dataBytes };
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
    if (this.isUsed(secretKey)) this.hold(secretKey, snapshotOf(secret), seenAt);
  }

  /** Holds `secret` unless what is held is newer (a GET and a write's answer may land in either order). */
  private hold(secretKey: string, secret: SecretSnapshot, seenAt: string): void {
    const held = this.held.get(secretKey);
    if (
      held &&
      held.resourceVersion !== secret.resourceVersion &&
      isAtLeast(held.resourceVersion, secret.resourceVersion)
    )
      return;
    const wanted = this.keysKept(secretKey);
    const { data, bytes, oversized } = keptData(secret.data, wanted);
    this.held.set(secretKey, {
      ...secret,
      data,
      seenAt,
      bytes,
      kept: JSON.stringify(wanted ?? null),
      oversized,
    });
  }
}

/**
 * Whether version `a` is `b` or later. Versions are opaque by the API's contract; etcd's, which every
 * apiserver serves, are increasing integers, and only those are ordered (others only match).
 */
function isAtLeast(a: string, b: string): boolean {
  if (a === b) return true;
  const integer = /^[1-9][0-9]*$/;
  return integer.test(a) && integer.test(b) && BigInt(a) >= BigInt(b);
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
