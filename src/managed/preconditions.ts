import { RETRY_DELAYS } from '../base/retry-delays.ts';
import { ANNOTATIONS, externalIdOf } from './annotations.ts';
import { otherObjectAsSeenBy, type ObjectClaims } from './claims.ts';
import { ReconcileError, Waiting } from './errors.ts';
import { REFERENCE_NOT_FOUND, type Ended, type Outcomes } from './outcomes.ts';
import type { Pacing } from './pacing.ts';
import { timing } from '../base/timings.ts';
import {
  readReferences,
  type ObjectLookup,
  type ObjectNames,
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

/**
 * What must hold before a resource may touch the cloud: its references resolve (or it waits for them), they
 * still name the cloud objects its status was made under, and no other object owns what it would act on.
 * Anything else ends the reconcile here, with status saying why and nothing sent. What status gets is
 * returned, never written here.
 */
export class Preconditions<R extends ManagedObject> {
  constructor(private readonly options: PreconditionsOptions<R>) {}

  check(read: ObjectRead<R>): Cleared | Ended {
    const { kind, lookup, claims, pacing, outcomes } = this.options;
    const { key, object: resource } = read;
    const resolution = readReferences(resource, kind.references ?? [], lookup, this.options.namesOf);
    if ('waitingFor' in resolution && resolution.missing) {
      const graceMs = pacing.arrivalGraceLeft(resource);
      if (graceMs > 0) {
        // Objects applied together reach the operator through one watch per kind, in any order: the one
        // referenced may be on its way. Say nothing yet (a status written now would be rewritten a moment
        // later); its arrival wakes this object through the dependency index, else the grace runs out.
        return { outcome: { kind: 'lookAgain', afterMs: graceMs }, status: { discard: true } };
      }
      // A quiet wait first (it may be applied next); missing for long, it is most likely a typo: say so.
      const missingFor = pacing.referenceMissingFor(key);
      const reported = resource.status?.conditions?.some((c) => c.reason === REFERENCE_NOT_FOUND);
      // Longer than objects applied one after another take to arrive, far shorter than an alert on a stall.
      const reportAfterMs = timing.referenceMissingReportMs;
      if (missingFor >= reportAfterMs || reported) {
        return outcomes.referenceNotFound(resource, resolution.missing, resolution.didYouMean);
      }
      const { status } = outcomes.waitForObject(
        new Waiting(REASON.WaitingForReference, resolution.waitingFor),
      );
      return { outcome: { kind: 'lookAgain', afterMs: reportAfterMs - missingFor }, status };
    }
    pacing.referenceFound(key);
    if ('waitingFor' in resolution) {
      const waiting = new Waiting(REASON.WaitingForReference, resolution.waitingFor);
      return outcomes.waitForObject(waiting);
    }
    const { replaced, kept } = resolution;
    if (replaced) return outcomes.referenceReplaced(resource, replaced);
    // `kept`: recorded however the reconcile goes on from here.
    // Only a kind with one cloud object per referenced object has an owner to ask about.
    const owner = kind.exclusiveOn && claims.exclusiveOwner(resource, resolution.resolved);
    if (owner) {
      const shown = otherObjectAsSeenBy(resource, kind.kind, owner);
      const message = `${shown} already manages this for the same ${kind.exclusiveOn}`;
      const { outcome, status } = outcomes.waitForObject(new Waiting(REASON.Conflict, message));
      return { outcome, status: { ...status, set: kept } };
    }
    const recorded = resource.status?.id;
    const id = recorded ?? externalIdOf(resource);
    if (id !== undefined && id.length > STATUS_BOUNDS.id) {
      throw ReconcileError.terminal(
        REASON.InvalidAnnotation,
        `annotation ${ANNOTATIONS.externalId} is ${id.length} characters long; a cloud id has at most ${STATUS_BOUNDS.id}`,
        RETRY_DELAYS.userAction,
      );
    }
    const holder = id === undefined ? undefined : claims.otherHolderOf(read, id);
    if (holder) {
      // Never two objects on one cloud id: no write, no password reset, no delete for this one.
      const shown = otherObjectAsSeenBy(resource, kind.kind, holder);
      const message = `${shown} already manages ${id}; this object changes nothing in the cloud`;
      const ended = outcomes.alreadyManaged(resource, ALREADY_MANAGED, message);
      return { ...ended, status: { ...ended.status, set: kept, unset: ['id'] } };
    }
    const adopting = !recorded && id !== undefined;
    return { references: resolution.resolved, id, adopting, status: { set: kept } };
  }
}
