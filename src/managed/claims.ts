import { objectKey, type ReadonlyCache } from '../kube/cache.ts';
import { externalIdOf } from './annotations.ts';
import { credentialsKeyOf } from './managed-object.ts';
import { ClaimIndex, holderOf, type Claim } from './ownership.ts';
import type { ObjectRead } from './object-read.ts';
import type { ObjectLookup, ResolvedReferences } from './references.ts';
import type { ManagedKind, ManagedObject, ManagedStatus } from './types.ts';

export interface ObjectClaimsOptions<R extends ManagedObject> {
  kind: Pick<ManagedKind<R, unknown>, 'kind' | 'references' | 'exclusiveOn'>;
  cache: ReadonlyCache<R>;
  lookup: ObjectLookup;
  /** The freshest status of an object (`latest`): our last write when the cache does not show it yet. */
  statuses: { latest(object: R): ManagedStatus | undefined };
}

/**
 * Who among a kind's objects (every namespace the operator sees) may act on a cloud object: an id has
 * exactly one holder, and a kind with one cloud object per referenced object (`exclusiveOn`) one owner.
 */
export class ObjectClaims<R extends ManagedObject> {
  /**
   * The id each object was let act on (by key, with its uid) before its status may show it: a decision
   * made here is seen by every later decision of this process at once, whatever the cache shows yet.
   */
  private readonly granted = new Map<string, { uid: string; id: string }>();
  private readonly index = new ClaimIndex();

  constructor(private readonly options: ObjectClaimsOptions<R>) {}

  /**
   * The cache changed for `key` (or `object` is gone): re-index what it may claim. `read`: what a reconcile
   * read of it already.
   */
  observe(key: string, object: R | undefined, read?: ObjectRead<R>): void {
    if (!object) {
      this.granted.delete(key);
      return this.index.set(key, []);
    }
    const { latest, externalId } = read ?? this.readOf(object);
    const granted = this.granted.get(key);
    this.index.set(key, [
      latest.id,
      externalId,
      granted?.uid === object.metadata.uid ? granted.id : undefined,
    ]);
  }

  /** The keys of the objects that hold or claim `id` (status, external-id annotation, or a grant). */
  keysHolding(id: string): string[] {
    return this.index.keysOf(id);
  }

  /** `resource` no longer acts on the id it was granted (the cloud object is gone): re-indexed at once. */
  release(resource: R): void {
    const key = objectKey(resource);
    this.granted.delete(key);
    this.observe(key, this.options.cache.get(key));
  }

  /**
   * The `namespace/name` of another object of the kind that holds `id`, or undefined when the object the
   * reconcile read does and may act on it. Nothing is recorded: `grant` records the decision.
   */
  holderOf(read: ObjectRead<R>, id: string): string | undefined {
    const uid = read.object.metadata.uid;
    const peers = this.peersHolding(id, read.key).filter((peer) => peer.metadata.uid !== uid);
    // Alone with its claim, the object is the holder or nobody is: nothing to weigh.
    if (peers.length === 0) return undefined;
    const holder = holderOf(id, [
      this.claimOf(read.object, read),
      ...peers.map((peer) => this.claimOf(peer)),
    ]);
    return holder && holder.uid !== uid ? holder.key : undefined;
  }

  /**
   * The object the reconcile read may act on `id`: recorded at once, in the same turn as the `holderOf` it
   * follows, so a concurrent reconcile of another object claiming it sees this decision.
   */
  grant(read: ObjectRead<R>, id: string): void {
    this.granted.set(read.key, { uid: read.object.metadata.uid, id });
    this.observe(read.key, read.object, read);
  }

  /** `holderOf`, and the grant when there is no other holder. */
  otherHolderOf(read: ObjectRead<R>, id: string): string | undefined {
    const holder = this.holderOf(read, id);
    if (holder === undefined) this.grant(read, id);
    return holder;
  }

  /**
   * Another object whose status holds `id`, as the cache shows it (for a kind's crash-safe create: never
   * adopt what another manages). A pass over the cache: it runs only after a crash left a create intent.
   */
  recordedBy(resource: R, id: string): string | undefined {
    const peer = this.options.cache
      .list()
      .find((object) => object.metadata.uid !== resource.metadata.uid && object.status?.id === id);
    return peer && objectKey(peer);
  }

  /**
   * For a kind with one cloud object per referenced object: the `namespace/name` of the object that owns
   * it when that is not `resource` (the oldest claimant; ties by key), or undefined.
   */
  exclusiveOwner(resource: R, resolved: ResolvedReferences): string | undefined {
    const { kind, cache, lookup } = this.options;
    const declaration = kind.references?.find((d) => d.name === kind.exclusiveOn);
    const target = resolved[kind.exclusiveOn ?? '']?.[0]?.id;
    if (!declaration || !('statusField' in declaration) || target === undefined) return undefined;
    const claimOf = (peer: R) => {
      const kept = peer.status?.[declaration.statusField];
      if (typeof kept === 'string') return kept;
      const name = declaration.objectName(peer);
      if (name === undefined) return declaration.plainId(peer);
      return lookup(declaration.kind, peer.metadata.namespace, name)?.status?.id;
    };
    const order = (peer: R) => `${peer.metadata.creationTimestamp ?? ''}\u0000${objectKey(peer)}`;
    // A claim counts when it was made with the same credentials, or has reached the cloud (an id): any
    // namespace can name a service id, and with credentials that cannot reach it must not hold it.
    const credentials = credentialsKeyOf(resource);
    const mayClaim = (peer: R) =>
      credentialsKeyOf(peer) === credentials || this.options.statuses.latest(peer)?.id !== undefined;
    const claimants = cache
      .list()
      .filter(
        (peer) => peer.metadata.uid === resource.metadata.uid || (claimOf(peer) === target && mayClaim(peer)),
      )
      .sort((a, b) => order(a).localeCompare(order(b)));
    const owner = claimants[0];
    return owner && owner.metadata.uid !== resource.metadata.uid ? objectKey(owner) : undefined;
  }

  /** The objects other than the one at `except` whose claims the index lists for `id`. */
  private peersHolding(id: string, except: string): R[] {
    return this.index
      .keysOf(id)
      .filter((key) => key !== except)
      .map((key) => this.options.cache.get(key))
      .filter((peer): peer is R => peer !== undefined);
  }

  /** `read`: what a reconcile read of the object already. */
  private claimOf(object: R, read = this.readOf(object)): Claim {
    const { key, latest, externalId } = read;
    const granted = this.granted.get(key);
    const recordedId = latest.id ?? (granted?.uid === object.metadata.uid ? granted.id : undefined);
    return {
      key,
      uid: object.metadata.uid,
      ...(object.metadata.creationTimestamp ? { creationTimestamp: object.metadata.creationTimestamp } : {}),
      ...(recordedId ? { recordedId } : {}),
      ...(externalId ? { externalId } : {}),
    };
  }

  /** What a reconcile would read of `object` (a peer's claim, a watch event): as the cache and our writes show it. */
  private readOf(object: R): ObjectRead<R> {
    return {
      key: objectKey(object),
      object,
      latest: this.options.statuses.latest(object) ?? {},
      externalId: externalIdOf(object),
    };
  }
}

/**
 * How a message `viewer` carries (a condition, an Event) names `key` (`namespace/name`), another object of
 * `kind`: in full within its namespace; from another namespace only as that, or anyone could learn who
 * manages an id by naming it on an object of their own.
 */
export function otherObjectAsSeenBy(viewer: ManagedObject, kind: string, key: string): string {
  const namespace = key.slice(0, key.indexOf('/'));
  if (namespace === viewer.metadata.namespace) return `${kind} ${key}`;
  return `${/^[AEIOU]/.test(kind) ? 'an' : 'a'} ${kind} of another namespace`;
}
