import { ANNOTATIONS } from './annotations.ts';
import { mayActAs, type ClusterIdentity, type Owner } from './cluster-owner.ts';
import { REASON, type ConditionReason } from '../base/reasons.ts';

/**
 * A cloud id an object reaches by writing it down (a spec's `serviceId`, `backupId`, the annotation
 * `sluice.dev/external-id`) rather than by naming a sluice object of its own namespace. Any tenant can write
 * any id: the id alone is no right to the cloud object it names.
 */
export interface PlainIdUse {
  /** The field as a CloudIdGrant names it: `serviceId`, `backupId`, `restore`, `sluice.dev/external-id`. */
  field: string;
  id: string;
  /** The Ready reason of a refusal, naming the field (`ServiceIdNotAllowed`). */
  reason: ConditionReason;
  /** Read by the create alone (a restore's backup): an object that exists never uses it again. */
  createOnly?: boolean;
  /** The kind whose objects may hold `id` in this cluster (in their status), looked for in the caches. */
  heldBy?: string;
}

/** The external-id annotation as a plain-id use: the kind's own cloud object. */
export function externalIdUse(kind: string, id: string): PlainIdUse {
  return { field: ANNOTATIONS.externalId, id, reason: REASON.ExternalIdNotAllowed, heldBy: kind };
}

/** One entry of a grant's `from`: the namespace, kind and field whose ids may reach the grant's objects. */
export interface GrantFrom {
  namespace: string;
  kind: string;
  field: string;
}

/** One entry of a grant's `to`: the sluice objects (by kind, and name when given) whose cloud objects it opens. */
export interface GrantTo {
  kind: string;
  name?: string;
}

/** A CloudIdGrant as the reconciler reads it (its schema is in src/kinds/cloud-id-grant). */
export interface CloudIdGrant {
  metadata: { namespace: string; name: string; resourceVersion?: string; uid?: string };
  spec: { from: readonly GrantFrom[]; to: readonly GrantTo[] };
}

/** Where grants are read: the operator's cache, and the apiserver itself before a grant lets a call through. */
export interface GrantSource {
  /** The grants of `namespace` the cache holds. */
  cached(namespace: string): readonly CloudIdGrant[];
  /** The grant as the apiserver has it now (a read, not the cache); undefined when it is gone or unreadable. */
  read(namespace: string, name: string): Promise<CloudIdGrant | undefined>;
}

/** Whether `grant` lets objects of `from` reach the cloud objects recorded for `to`. */
export function grantAllows(grant: CloudIdGrant, from: GrantFrom, to: Required<GrantTo>): boolean {
  const fromMatches = grant.spec.from.some(
    (f) => f.namespace === from.namespace && f.kind === from.kind && f.field === from.field,
  );
  const toMatches = grant.spec.to.some((t) => t.kind === to.kind && (t.name ?? to.name) === to.name);
  return fromMatches && toMatches;
}

/** What the cloud and the caches say an id belongs to. */
export interface IdOwnership {
  /** The owner record the cloud keeps on it (a child: its service's); undefined when it carries none. */
  recorded?: Owner;
  /** The sluice objects of this cluster (any namespace) whose status holds it. */
  holders: readonly { kind: string; namespace: string; name: string }[];
}

export interface IdAccessOptions {
  cluster: ClusterIdentity;
  grants: GrantSource;
  /**
   * Namespaces whose objects may use, with the operator's credentials, ids of cloud objects no sluice object
   * records (made in the console): the administrator's list (`--plain-id-namespaces`).
   */
  plainIdNamespaces: readonly string[];
}

/** Why a use is refused; undefined when it is allowed. */
export type IdAccessVerdict = { reason: ConditionReason; message: string } | undefined;

/** The referring object: its namespace, kind, and whether it calls with the operator's credentials. */
export interface Referrer {
  namespace: string;
  kind: string;
  operatorCredentials: boolean;
}

/**
 * Whether `referrer` may reach the cloud object `use` names. Allowed when every owner the cloud's record and
 * the caches show is the referrer's own namespace (in a cluster this operator may act as), or has granted it
 * (a CloudIdGrant in the owner's namespace naming the referrer's namespace, kind and field; a grant the cache
 * shows is read again from the apiserver first, so a stale cache lets nothing through); or, when nothing
 * records it, when the referrer calls with credentials of its own or its namespace is one the administrator
 * allows plain ids. `confirm`: read a grant again before it counts (off for the report on attached objects).
 */
export async function judgeIdAccess(
  use: PlainIdUse,
  ownership: IdOwnership,
  referrer: Referrer,
  options: IdAccessOptions,
  confirm: boolean,
): Promise<IdAccessVerdict> {
  const { recorded } = ownership;
  const field = describeField(use.field);
  if (recorded && !mayActAs(options.cluster, recorded.cluster)) {
    return {
      reason: use.reason,
      message:
        `${field} ${use.id} names a cloud object recorded under cluster "${recorded.cluster}", whose ` +
        `objects this operator may not take over: nothing is sent`,
    };
  }
  const owners = [
    ...(recorded ? [{ kind: recorded.kind, namespace: recorded.namespace, name: recorded.name }] : []),
    ...ownership.holders,
  ].filter((owner) => owner.namespace !== referrer.namespace);
  if (owners.length === 0) {
    if (recorded || ownership.holders.length > 0) return undefined;
    if (!referrer.operatorCredentials || options.plainIdNamespaces.includes(referrer.namespace))
      return undefined;
    return {
      reason: use.reason,
      message:
        `${field} ${use.id} names a cloud object no sluice object records (made outside sluice), and ` +
        `namespace ${referrer.namespace} may not use such ids with the operator's credentials: nothing is ` +
        `sent. The operator's administrator allows it (--plain-id-namespaces, chart value ` +
        `operator.plainIdNamespaces), or the namespace uses credentials of its own`,
    };
  }
  const from = { namespace: referrer.namespace, kind: referrer.kind, field: use.field };
  for (const owner of owners) {
    if (!(await granted(options.grants, from, owner, confirm))) {
      return {
        reason: use.reason,
        message:
          `${field} ${use.id} names a cloud object of another namespace, which grants this namespace no ` +
          `use of it: nothing is sent. A CloudIdGrant in that namespace, naming namespace ` +
          `${referrer.namespace}, kind ${referrer.kind} and field ${use.field}, allows it`,
      };
    }
  }
  return undefined;
}

/** A grant of `owner`'s namespace that allows `from`, read again from the apiserver when `confirm`. */
async function granted(
  grants: GrantSource,
  from: GrantFrom,
  owner: Required<GrantTo> & { namespace: string },
  confirm: boolean,
): Promise<boolean> {
  const to = { kind: owner.kind, name: owner.name };
  for (const grant of grants.cached(owner.namespace)) {
    if (!grantAllows(grant, from, to)) continue;
    if (!confirm) return true;
    const now = await grants.read(owner.namespace, grant.metadata.name);
    if (now && grantAllows(now, from, to)) return true;
  }
  return false;
}

/** How a message names the field: `spec.serviceId`, or the annotation. */
function describeField(field: string): string {
  return field.includes('/') ? `annotation ${field}` : `spec.${field}`;
}
