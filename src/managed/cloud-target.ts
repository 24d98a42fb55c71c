import { ANNOTATIONS, createStatusOf } from './annotations.ts';
import {
  judgeOwnership,
  mayActAs,
  ownerIsExplicit,
  ownerOf,
  recordedElsewhereMessage,
  refusalMessage,
  type ClusterIdentity,
  type OwnedCandidate,
  type Owner,
} from './cluster-owner.ts';
import { ReconcileError, Waiting } from './errors.ts';
import type { IdAccessVerdict } from './id-access.ts';
import { GRANTED_CONDITION, GRANT_WITHDRAWN } from './plain-ids.ts';
import type { StatusChange } from './status-changes.ts';
import type { ManagedObject } from './types.ts';
import { REASON } from '../base/reasons.ts';
import { RETRY_DELAYS } from '../base/retry-delays.ts';

/** The Ready reason of an object whose cloud object another cluster recorded, met under a derived name. */
export const OWNED_BY_ANOTHER_CLUSTER = REASON.OwnedByAnotherCluster;

/** A cloud read the decision of which cloud object to act on may need, in the order it may need them. */
export type TargetRead = 'recordedOwner' | 'idAccess' | 'lostCreate' | 'ownership';

/**
 * What is known when deciding which cloud object a reconcile acts on: what the cluster said (read before),
 * and each cloud read the decision asked for so far (absent: not read).
 */
export interface TargetFacts {
  kind: string;
  resource: ManagedObject;
  cluster: ClusterIdentity;
  /** The id in status, or the one the `sluice.dev/external-id` annotation names. */
  id: string | undefined;
  /** The id is named by the annotation and not recorded yet. */
  adopting: boolean;
  /** The object names plain ids (spec fields, the annotation): whether they may reach their objects is read. */
  namesPlainIds: boolean;
  /** What the object waits for before anything is looked up, created or changed (known when connecting). */
  waiting: Waiting | undefined;
  /** Whether a create's look-up is due (none found nothing since the last create that may have been sent). */
  lookUpDue: boolean;
  /** The status fields a create settles before it is sent (`ManagedKind.createStatusFields`). */
  createStatusFields: readonly string[];
  /** The owner the cloud records for the adopted id. */
  recordedOwner?: { owner: Owner | undefined };
  /** Why the object's plain ids may not reach what they name (undefined: they may). */
  idAccess?: { refused: IdAccessVerdict };
  /** What a lost create left (its id), looked for by its marker or intent. */
  lostCreate?: { id: string | undefined };
  /** The cloud objects recorded for this object under any cluster, and which other object holds each. */
  ownership?: { candidates: readonly OwnedCandidate[]; claimedBy: ReadonlyMap<string, string> };
}

/** What the decision comes to: a read it needs first, or how the reconcile goes on. */
export type TargetDecision =
  | { read: TargetRead }
  | {
      /** The reconcile ends waiting: for a change of the object (a refusal), or of the cloud. */
      wait: Waiting;
      on: 'object' | 'cloud';
      found: StatusChange[];
    }
  | { fail: ReconcileError; found: StatusChange[] }
  | { create: true; found: StatusChange[] }
  | {
      /** The cloud object to act on. */
      id: string;
      found: StatusChange[];
      /** Found, not created: a lost create's, or one a rebuilt cluster takes back (the Event's message). */
      adopted?: string;
    };

/**
 * Which cloud object the reconcile acts on, a function of what was read: one another cluster recorded is
 * refused, a plain id without its grant too (one already attached keeps working and says so); without an id,
 * a lost create's object or one a rebuilt cluster takes back is found, or one is created. A cloud read is
 * asked for only when the decision so far needs it, so none is spent on an object that is refused already.
 */
export function decideTarget(facts: TargetFacts): TargetDecision {
  const { kind, resource, cluster, id, adopting } = facts;
  if (adopting && id) {
    if (!facts.recordedOwner) return { read: 'recordedOwner' };
    const recorded = facts.recordedOwner.owner;
    // An id another cluster recorded is refused like one another object holds: no write, no reset.
    if (recorded && !mayActAs(cluster, recorded.cluster)) {
      const message = recordedElsewhereMessage(resource, kind, id, recorded);
      return { wait: new Waiting(OWNED_BY_ANOTHER_CLUSTER, message), on: 'object', found: [] };
    }
  }
  // A plain id is no right to what it names: another namespace's cloud object needs its grant.
  if (facts.namesPlainIds && !facts.idAccess) return { read: 'idAccess' };
  const refused = facts.idAccess?.refused;
  const attached = id !== undefined && !adopting;
  if (refused && !attached) {
    return { wait: new Waiting(refused.reason, refused.message), on: 'object', found: [] };
  }
  // One that exists keeps working when its grant goes (nothing is deleted), and says so.
  const granted: StatusChange = refused
    ? { conditions: [withdrawnGrant(refused.message)] }
    : { removed: [GRANTED_CONDITION] };
  const found = [granted];
  if (facts.waiting) return { wait: facts.waiting, on: 'cloud', found };
  if (id) return { id, found };

  // Crash-safe create: a create whose id never reached status left a marker in the cloud, or at least an
  // intent on this object; what it created is looked for first, unless a look-up found nothing since the
  // last create that may have been sent (a create the quota deferred sent nothing).
  if (!facts.lookUpDue) return { create: true, found };
  if (!facts.lostCreate) return { read: 'lostCreate' };
  const lost = facts.lostCreate.id;
  if (lost) {
    // What the create would have recorded, settled before it was sent.
    const settled = createStatusOf(resource, facts.createStatusFields);
    return {
      id: lost,
      found: [...found, { set: settled }],
      adopted: `adopted ${kind} ${lost}, created earlier for this resource`,
    };
  }
  // What the cloud records for this object, under any cluster: a rebuilt cluster takes back its own.
  if (!facts.ownership) return { read: 'ownership' };
  const owner = ownerOf(resource, kind, cluster);
  const { candidates, claimedBy } = facts.ownership;
  const verdict = judgeOwnership(owner, ownerIsExplicit(resource, cluster), candidates, (candidate) =>
    claimedBy.get(candidate),
  );
  switch (verdict.kind) {
    case 'ambiguous':
      return {
        fail: ReconcileError.terminal(
          REASON.AmbiguousAdoption,
          `${verdict.ids.length} cloud objects are recorded for this resource (${verdict.ids.join(', ')}); set the annotation ${ANNOTATIONS.externalId} to the one to manage`,
          RETRY_DELAYS.userAction,
        ),
        found,
      };
    case 'refuse': {
      // Another cluster's record, met under a derived name: nothing is created or taken; dependants wait.
      const message = refusalMessage(owner, verdict.id, verdict.recordedAs);
      return { wait: new Waiting(OWNED_BY_ANOTHER_CLUSTER, message), on: 'object', found };
    }
    case 'takeBack':
      // Its secret values were never known here, so none is reset unasked.
      return {
        id: verdict.id,
        found: [...found, { set: { adopted: true } }],
        adopted: `adopted ${kind} ${verdict.id}, recorded in the cloud for this resource under cluster "${verdict.recordedAs.cluster}"`,
      };
    case 'create':
      return { create: true, found };
  }
}

/** The condition of an object whose plain id's grant was withdrawn after it was attached. */
function withdrawnGrant(refusal: string) {
  const message = `${refusal.replace(/: nothing is sent.*$/s, '')}; this object already uses it and keeps working, but nothing new may be attached`;
  return { type: GRANTED_CONDITION, status: 'False', reason: GRANT_WITHDRAWN, message } as const;
}
