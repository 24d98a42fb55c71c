import { createHash } from 'node:crypto';
import { ANNOTATIONS } from './annotations.ts';
import type { ManagedObject } from './managed-object.ts';
import { REASON, type ConditionReason } from '../base/reasons.ts';

/**
 * The operator's name for its cluster, recorded in the cloud on every object it creates: `--cluster-name`
 * (explicit), or derived from the cluster's own identity when unset (not explicit).
 */
export interface ClusterIdentity {
  name: string;
  /** Set by the user: a rebuild under it takes back what it recorded, and other names are other owners. */
  explicit: boolean;
  /**
   * The other clusters whose objects the operator's administrator lets it take over (`--take-over-from`):
   * the only names besides its own an object may act under (`sluice.dev/owner-cluster`), and whose
   * records an id to adopt may carry.
   */
  takeOverFrom?: readonly string[];
}

/** The sluice object a cloud object belongs to: cluster name, namespace, kind and name. */
export interface Owner {
  cluster: string;
  namespace: string;
  kind: string;
  name: string;
}

/** A cluster name: a DNS label, so it fits a tag value and reads the same everywhere. */
export const CLUSTER_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const MAX_CLUSTER_NAME = 63;

export const isClusterName = (text: string): boolean =>
  text.length <= MAX_CLUSTER_NAME && CLUSTER_NAME.test(text);

/**
 * Whether this operator may act on what the cloud records under cluster `name`: its own name, or one its
 * administrator named. A tenant's annotation alone never widens this: it controls one namespace only.
 */
export function mayActAs(cluster: ClusterIdentity, name: string): boolean {
  return name === cluster.name || (cluster.takeOverFrom ?? []).includes(name);
}

/** Why `resource` may not act under the cluster its annotation names; undefined when it may (or names none). */
export function ownerClusterProblem(
  resource: ManagedObject,
  cluster: ClusterIdentity,
): { reason: ConditionReason; message: string } | undefined {
  const declared = resource.metadata.annotations?.[ANNOTATIONS.ownerCluster];
  if (declared === undefined || mayActAs(cluster, declared)) return undefined;
  if (!isClusterName(declared)) {
    const shown = declared.length > 80 ? `${declared.slice(0, 80)}…` : declared;
    return {
      reason: REASON.InvalidAnnotation,
      message:
        `annotation ${ANNOTATIONS.ownerCluster} is "${shown}" (${declared.length} characters): a cluster ` +
        `name is a DNS label (lower-case letters, digits and -, at most ${MAX_CLUSTER_NAME} characters); ` +
        `nothing is created or taken`,
    };
  }
  return {
    reason: OWNER_CLUSTER_NOT_ALLOWED,
    message:
      `annotation ${ANNOTATIONS.ownerCluster} names cluster "${declared}", whose objects this operator may ` +
      `not take over: nothing is created or taken. Only the operator's administrator can let it act for ` +
      `another cluster`,
  };
}

/** The Ready reason of an object asking to act under a cluster name the operator was not given. */
export const OWNER_CLUSTER_NOT_ALLOWED = REASON.OwnerClusterNotAllowed;

/** A cloud record is at most a tag value long (256 characters). */
const MAX_RECORD = 256;

/** How a record keeps a name too long for it. */
const digestedName = (name: string) => `sha256-${createHash('sha256').update(name).digest('hex')}`;

/**
 * The owner of `resource` when this operator acts on it: its `sluice.dev/owner-cluster` annotation names
 * the cluster it is recorded under (a hand-over), else the operator's name applies.
 */
export function ownerOf(resource: ManagedObject, kind: string, cluster: ClusterIdentity): Owner {
  const declared = resource.metadata.annotations?.[ANNOTATIONS.ownerCluster];
  return {
    cluster: declared ?? cluster.name,
    namespace: resource.metadata.namespace,
    kind,
    name: resource.metadata.name,
  };
}

/**
 * Whom `resource` acts for, asked once per reconcile: its owner when this operator acts on it (`ownerOf`)
 * and, when its annotation names a cluster the operator may not act for, why not (`ownerClusterProblem`).
 */
export function actingOwner(
  resource: ManagedObject,
  kind: string,
  cluster: ClusterIdentity,
): { owner: Owner; problem: { reason: ConditionReason; message: string } | undefined } {
  return { owner: ownerOf(resource, kind, cluster), problem: ownerClusterProblem(resource, cluster) };
}

/** Whether the object's cluster name was chosen by someone (flag or annotation), not derived. */
export function ownerIsExplicit(resource: ManagedObject, cluster: ClusterIdentity): boolean {
  return cluster.explicit || resource.metadata.annotations?.[ANNOTATIONS.ownerCluster] !== undefined;
}

/**
 * `cluster/namespace/Kind/name`, as the cloud keeps it. A name too long for a tag value is kept as its
 * SHA-256: records are only ever compared, never read back for the name.
 */
export function ownerRecord(owner: Owner): string {
  const record = `${owner.cluster}/${owner.namespace}/${owner.kind}/${owner.name}`;
  if (record.length <= MAX_RECORD) return record;
  return `${owner.cluster}/${owner.namespace}/${owner.kind}/${digestedName(owner.name)}`;
}

/** The parts of a record; undefined for text that is no record. */
export function parseOwnerRecord(text: string | undefined): Owner | undefined {
  const parts = text?.split('/');
  if (parts?.length !== 4 || parts.some((part) => part === '')) return undefined;
  const [cluster, namespace, kind, name] = parts as [string, string, string, string];
  return { cluster, namespace, kind, name };
}

/**
 * The same sluice object, whatever cluster it is recorded under: its name as written, or as the digest a
 * long record keeps. Compares parts only, so no record read from the cloud can make it fail.
 */
export function sameObject(record: Owner, owner: Owner): boolean {
  if (record.namespace !== owner.namespace || record.kind !== owner.kind) return false;
  return record.name === owner.name || record.name === digestedName(owner.name);
}

/** One cloud object a kind's look-up found for an object, with what the cloud records of its owner. */
export interface OwnedCandidate {
  id: string;
  /** The owner recorded in the cloud (for a child: its service's owner, and the child's natural key). */
  owner: Owner;
}

/** What an object without an id does about the cloud objects recorded for it. */
export type OwnershipVerdict =
  | { kind: 'create' }
  | { kind: 'takeBack'; id: string; recordedAs: Owner }
  | { kind: 'refuse'; id: string; recordedAs: Owner }
  | { kind: 'ambiguous'; ids: string[] };

/**
 * Pure: an object takes back the one cloud object recorded for it under its own cluster name (never one
 * another object holds). Under an explicit name, what other clusters recorded is theirs and left alone;
 * under the derived default, sluice cannot tell a rebuild from a second cluster, so an object recorded for
 * the same namespace, kind and name under another cluster is refused, not twinned.
 */
export function judgeOwnership(
  owner: Owner,
  explicit: boolean,
  candidates: readonly OwnedCandidate[],
  claimedBy: (id: string) => string | undefined,
): OwnershipVerdict {
  const free = candidates.filter((c) => claimedBy(c.id) === undefined && sameObject(c.owner, owner));
  const mine = free.filter((c) => c.owner.cluster === owner.cluster);
  if (mine.length > 1) return { kind: 'ambiguous', ids: mine.map((c) => c.id) };
  if (mine[0]) return { kind: 'takeBack', id: mine[0].id, recordedAs: mine[0].owner };
  const foreign = explicit ? undefined : free[0];
  if (foreign) return { kind: 'refuse', id: foreign.id, recordedAs: foreign.owner };
  return { kind: 'create' };
}

/**
 * The Ready message of a refused object: what holds it back and the ways forward. Every way to take it back
 * is the administrator's: a tenant of one namespace cannot act for another cluster.
 */
export function refusalMessage(owner: Owner, id: string, recordedAs: Owner): string {
  return (
    `${owner.kind} ${id} in the cloud is recorded for ${owner.namespace}/${owner.name} under cluster ` +
    `"${recordedAs.cluster}", and this operator runs under the derived name "${owner.cluster}": nothing is ` +
    `created or taken. To take it back, the operator's administrator runs it with --cluster-name ` +
    `${recordedAs.cluster} (chart value clusterName) or lets it take over that cluster's objects ` +
    `(docs/disaster-recovery.md); to make a new one, give this object another name or the operator an ` +
    `explicit --cluster-name`
  );
}

/**
 * The Ready message of `viewer`, asking to adopt by id what the cloud records for another cluster. The
 * record's object is named only when it is of the viewer's namespace: no tenant learns by trying ids which
 * namespace of another cluster holds them.
 */
export function recordedElsewhereMessage(
  viewer: ManagedObject,
  kind: string,
  id: string,
  recordedAs: Owner,
): string {
  const object =
    recordedAs.namespace === viewer.metadata.namespace
      ? ` for ${recordedAs.namespace}/${recordedAs.name}`
      : ' for another namespace';
  return (
    `${kind} ${id} is recorded in the cloud${object} under cluster "${recordedAs.cluster}", whose objects ` +
    `this operator may not take over: this object changes nothing in the cloud`
  );
}
