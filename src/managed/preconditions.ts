import { RETRY_DELAYS } from '../base/retry-delays.ts';
import { ANNOTATIONS } from './annotations.ts';
import { otherObjectAsSeenBy, type ObjectClaims } from './claims.ts';
import { ReconcileError, Waiting } from './errors.ts';
import { REFERENCE_NOT_FOUND, type Ended, type Outcomes } from './outcomes.ts';
import type { MissingClock, Pacing } from './pacing.ts';
import { timing } from '../base/timings.ts';
import {
  readReferences,
  type ObjectLookup,
  type ObjectNames,
  type ReferencesRead,
  type ResolvedReferences,
} from './references.ts';
import type { ObjectRead } from './object-read.ts';
import { STATUS_BOUNDS } from './status-bounds.ts';
import type { StatusChange } from './status-changes.ts';
import type { ManagedKind, ManagedObject } from './types.ts';
import { REASON } from '../base/reasons.ts';

/** The Ready reason of an object naming a cloud id that another object of its kind holds. */
export const ALREADY_MANAGED = REASON.AlreadyManaged;

export interface PreconditionsOptions<R extends ManagedObject> {
  kind: Pick<ManagedKind<R, unknown>, 'kind' | 'references' | 'exclusiveOn'>;
  lookup: ObjectLookup;
  /** The names a missing reference is compared with, to suggest the one it likely meant. */
  namesOf?: ObjectNames;
  claims: ObjectClaims<R>;
  pacing: Pacing;
  outcomes: Outcomes<R>;
}

/** What a resource may act on once its preconditions hold. */
export interface Cleared {
  references: ResolvedReferences;
  /** The cloud id it manages (status) or adopts (annotation); none yet when it is to be found or created. */
  id: string | undefined;
  /** It asks to adopt an id by annotation and has none in status yet. */
  adopting: boolean;
  /** What status records of it: the cloud ids its references resolved to. */
  status: StatusChange;
}

/** How the reconcile's ends are worded (`Outcomes`): each a function of its arguments. */
export type PreconditionEnds<R extends ManagedObject> = Pick<
  Outcomes<R>,
  'waitForObject' | 'referenceNotFound' | 'referenceReplaced' | 'alreadyManaged'
>;

/** What the preconditions read of the cluster, with nothing recorded: what `decidePreconditions` decides on. */
export interface PreconditionFacts<R extends ManagedObject> {
  read: ObjectRead<R>;
  kind: Pick<ManagedKind<R, unknown>, 'kind' | 'exclusiveOn'>;
  references: ReferencesRead;
  /** Read only when a reference is missing: how long it has been, and may still be on its way. */
  missingClock?: MissingClock;
  /** The object that owns what this one would make, for a kind with one per referenced object. */
  exclusiveOwner: string | undefined;
  /** Another object holding the id this one names (`ObjectClaims.holderOf`). */
  holder: string | undefined;
}

/** What the decision has recorded besides its end: the grant of the id, the clock of a missing reference. */
export interface PreconditionRecords {
  /** The object may act on this id (`ObjectClaims.grant`). */
  grant?: string;
  /** A reference was found missing at this time, on the first look that found it so. */
  referenceMissingAt?: number;
  /** Every reference was found: a missing one's clock stops. */
  referenceFound?: true;
}

/**
 * What must hold before a resource may touch the cloud, decided from what was read alone: its references
 * resolve (or it waits for them), they still name the cloud objects its status was made under, and no other
 * object owns what it would act on. Anything else ends the reconcile here, with status saying why and
 * nothing sent, or fails it (an id no cloud id can be). What status gets, and what is to be recorded, is
 * returned.
 */
export function decidePreconditions<R extends ManagedObject>(
  facts: PreconditionFacts<R>,
  ends: PreconditionEnds<R>,
): { result: Cleared | Ended | { fail: ReconcileError }; records: PreconditionRecords } {
  const { read, kind, references } = facts;
  const resource = read.object;
  if ('waitingFor' in references && references.missing) {
    const clock = facts.missingClock!;
    if (clock.arrivalGraceMs > 0) {
      // Objects applied together reach the operator through one watch per kind, in any order: the one
      // referenced may be on its way. Say nothing yet (a status written now would be rewritten a moment
      // later); its arrival wakes this object through the dependency index, else the grace runs out.
      const result = {
        outcome: { kind: 'lookAgain', afterMs: clock.arrivalGraceMs },
        status: { discard: true },
      } as const;
      return { result, records: {} };
    }
    // A quiet wait first (it may be applied next); missing for long, it is most likely a typo: say so.
    const first = clock.missingSince === undefined;
    const records = first ? { referenceMissingAt: clock.nowMs } : {};
    const missingFor = first ? 0 : clock.nowMs - clock.missingSince!;
    const reported = resource.status?.conditions?.some((c) => c.reason === REFERENCE_NOT_FOUND);
    // Longer than objects applied one after another take to arrive, far shorter than an alert on a stall.
    const reportAfterMs = timing.referenceMissingReportMs;
    if (missingFor >= reportAfterMs || reported) {
      return { result: ends.referenceNotFound(resource, references.missing, references.didYouMean), records };
    }
    const { status } = ends.waitForObject(new Waiting(REASON.WaitingForReference, references.waitingFor));
    return {
      result: { outcome: { kind: 'lookAgain', afterMs: reportAfterMs - missingFor }, status },
      records,
    };
  }
  const found: PreconditionRecords = { referenceFound: true };
  if ('waitingFor' in references) {
    const waiting = new Waiting(REASON.WaitingForReference, references.waitingFor);
    return { result: ends.waitForObject(waiting), records: found };
  }
  const { resolved, replaced, kept } = references;
  if (replaced) return { result: ends.referenceReplaced(resource, replaced), records: found };
  // `kept`: recorded however the reconcile goes on from here.
  if (kind.exclusiveOn && facts.exclusiveOwner) {
    const shown = otherObjectAsSeenBy(resource, kind.kind, facts.exclusiveOwner);
    const message = `${shown} already manages this for the same ${kind.exclusiveOn}`;
    const { outcome, status } = ends.waitForObject(new Waiting(REASON.Conflict, message));
    return { result: { outcome, status: { ...status, set: kept } }, records: found };
  }
  const recorded = resource.status?.id;
  const id = recorded ?? read.externalId;
  if (id !== undefined && id.length > STATUS_BOUNDS.id) {
    const fail = ReconcileError.terminal(
      REASON.InvalidAnnotation,
      `annotation ${ANNOTATIONS.externalId} is ${id.length} characters long; a cloud id has at most ${STATUS_BOUNDS.id}`,
      RETRY_DELAYS.userAction,
    );
    return { result: { fail }, records: found };
  }
  if (id !== undefined && facts.holder) {
    // Never two objects on one cloud id: no write, no password reset, no delete for this one.
    const shown = otherObjectAsSeenBy(resource, kind.kind, facts.holder);
    const message = `${shown} already manages ${id}; this object changes nothing in the cloud`;
    const ended = ends.alreadyManaged(resource, ALREADY_MANAGED, message);
    return { result: { ...ended, status: { ...ended.status, set: kept, unset: ['id'] } }, records: found };
  }
  const adopting = !recorded && id !== undefined;
  const records = id === undefined ? found : { ...found, grant: id };
  return { result: { references: resolved, id, adopting, status: { set: kept } }, records };
}

/**
 * The preconditions of a reconcile: what they need read (no cloud call, nothing recorded), decided
 * (`decidePreconditions`), and what the decision records (the claim on the id, in the same turn as the read
 * of who holds it; the clock of a missing reference).
 */
export class Preconditions<R extends ManagedObject> {
  constructor(private readonly options: PreconditionsOptions<R>) {}

  check(read: ObjectRead<R>): Cleared | Ended {
    const { result, records } = decidePreconditions(this.facts(read), this.options.outcomes);
    const { claims, pacing } = this.options;
    if (records.referenceMissingAt !== undefined)
      pacing.referenceMissing(read.key, records.referenceMissingAt);
    if (records.referenceFound) pacing.referenceFound(read.key);
    if (records.grant !== undefined) claims.grant(read, records.grant);
    if ('fail' in result) throw result.fail;
    return result;
  }

  private facts(read: ObjectRead<R>): PreconditionFacts<R> {
    const { kind, lookup, claims, pacing, namesOf } = this.options;
    const { key, object: resource } = read;
    const references = readReferences(resource, kind.references ?? [], lookup, namesOf);
    const resolved = 'resolved' in references ? references.resolved : undefined;
    const id = resource.status?.id ?? read.externalId;
    // Only a kind with one cloud object per referenced object has an owner to ask about.
    const exclusive = resolved && kind.exclusiveOn ? claims.exclusiveOwner(resource, resolved) : undefined;
    // Asked of any id it names: the decision refuses one too long to be a cloud id before it looks.
    const asked = resolved && id !== undefined;
    const missing = 'missing' in references && references.missing !== undefined;
    return {
      read,
      kind,
      references,
      ...(missing ? { missingClock: pacing.missingClock(resource, key) } : {}),
      exclusiveOwner: exclusive,
      holder: asked ? claims.holderOf(read, id) : undefined,
    };
  }
}
