import type { Logger } from 'pino';
import { objectKey } from '../kube/cache.ts';
import { formatDuration } from '../base/duration.ts';
import type { Requeue } from '../base/requeue.ts';
import { ANNOTATIONS } from './annotations.ts';
import { failureOf } from '../base/failure.ts';
import { deferralOf, messageOf, ReconcileError, reasonOf, retryFloorOf, Waiting } from './errors.ts';
import type { EventNote } from './events.ts';
import type { Pacing } from './pacing.ts';
import { timing } from '../base/timings.ts';
import type { Raced } from './object-writes.ts';
import type { ReplacedReference } from './references.ts';
import type { StatusChange } from './status-changes.ts';
import type { ManagedObject } from './types.ts';
import { REASON, type ConditionReason } from '../base/reasons.ts';

/** The reason of a reference to an object that has not existed for `timing.referenceMissingReportMs`. */
export const REFERENCE_NOT_FOUND = REASON.ReferenceNotFound;

export interface OutcomesOptions {
  kind: { kind: string };
  pacing: Pacing;
  logger: Logger;
  /** Aborted when this process must stop acting (leadership lost, shutdown deadline passed). */
  signal?: AbortSignal | undefined;
}

/**
 * How a reconcile ends, as far as when the resource is looked at again. `Outcomes.next` alone turns one
 * into a requeue, so the whole pacing of a resource reads from this type.
 */
export type Outcome =
  /** In sync, or its drift reported: looked at again after its sync interval. */
  | { kind: 'driftCheck'; dueInMs?: number }
  /** The cloud is moving (creating, updating, deleting, failed, a service waking): polled ever less often. */
  | { kind: 'waitForCloud' }
  /** Waits for another object or the user, whose change wakes it: the sync interval is only a safety net. */
  | { kind: 'waitForObject' }
  /** Again after `afterMs`: a reference on its way. */
  | { kind: 'lookAgain'; afterMs: number }
  /**
   * A call the quota deferred (nothing was sent): again after `afterMs`, reading no more afresh than this
   * reconcile did from `lookedAt` on, so the budget the call waits for goes to the call.
   */
  | { kind: 'deferred'; afterMs: number; lookedAt: number }
  /** The cloud object is gone and is made anew: after the workers' backoff, counted as no failure. */
  | { kind: 'recreate' }
  /** Failed, and recorded as such: the workers' backoff, with the error's floor under it. */
  | { kind: 'retry'; error: unknown }
  /** Nothing to look at until the resource changes (paused, or its finalizer released). */
  | { kind: 'idle' };

/**
 * How a reconcile ends, as data: when the resource is looked at again, and what its status says of it (the
 * conditions follow from the outcome here; the reconcile's executor writes them).
 */
export interface Ended {
  outcome: Outcome;
  status: StatusChange;
  /** An Event that says so, when it turns so (the executor records it). */
  event?: EventNote;
}

/**
 * How a reconcile ends, said where a reader sees it: the conditions status gets and the Events recorded, and
 * the `Outcome` that says when the resource is looked at again.
 */
export class Outcomes<R extends ManagedObject> {
  constructor(private readonly options: OutcomesOptions) {}

  /**
   * The one place an outcome becomes a requeue. A wait for the cloud is paced by how long it has lasted.
   * A failure or a deferred call says nothing of the cloud (a poll that failed, or was not sent): the wait
   * keeps its pace, and a failure is thrown for the workers' backoff. Any other outcome ends the wait, so
   * the next one starts again from the poll interval. `record` takes the Event the sync interval read comes
   * with (its annotation set aside): the reconcile's executor records it.
   */
  next(resource: R, outcome: Outcome, record: (event: EventNote) => void): Requeue | void {
    const { pacing } = this.options;
    const key = objectKey(resource);
    if (outcome.kind === 'deferred') {
      pacing.deferred(key, outcome.lookedAt);
      return { requeueAfterMs: outcome.afterMs };
    }
    pacing.endDeferral(key);
    switch (outcome.kind) {
      case 'waitForCloud':
        return { requeueAfterMs: pacing.waitForCloud(resource) };
      case 'retry':
        throw withRetryFloor(outcome.error);
      case 'lookAgain':
        return { requeueAfterMs: outcome.afterMs };
    }
    pacing.endCloudWait(key, outcome.kind === 'driftCheck');
    switch (outcome.kind) {
      case 'driftCheck':
      case 'waitForObject': {
        // Done until something changes: the look after the sync interval is only a check.
        const { ms: sync, warning } = pacing.syncInterval(resource);
        if (warning) record(warning);
        const due = outcome.kind === 'driftCheck' ? outcome.dueInMs : undefined;
        return due !== undefined && due < sync ? { requeueAfterMs: due } : { resyncAfterMs: sync };
      }
      case 'recreate':
        return { requeue: true };
      case 'idle':
        return;
    }
  }

  /** The resource is gone from the cache: nothing of its pacing is kept. */
  forget(key: string): void {
    this.options.pacing.endCloudWait(key);
    this.options.pacing.referenceFound(key);
    this.options.pacing.endDeferral(key);
  }

  /** A wait for the cloud, reported in Ready (the reconcile itself worked). */
  waitForCloud(waiting: Waiting): Ended {
    return { outcome: { kind: 'waitForCloud' }, status: waitReported(waiting) };
  }

  /** A wait for another object (or the user), reported in Ready: that object's change wakes this one. */
  waitForObject(waiting: Waiting): Ended {
    return { outcome: { kind: 'waitForObject' }, status: waitReported(waiting) };
  }

  /**
   * A referenced object has been missing too long to be on its way (most likely a typo): not Synced, not
   * Ready, and one Warning when it turns so, not one per look. Its creation wakes this object.
   */
  referenceNotFound(resource: R, what: string, didYouMean?: string): Ended {
    // The same words on every look: the status is written, and the Warning recorded, once.
    const fix = didYouMean
      ? `did you mean ${didYouMean}? Correct the reference, or create it`
      : 'create it, or correct the reference';
    const message = `${what} does not exist (missing for ${formatDuration(timing.referenceMissingReportMs)} or more): ${fix}`;
    const conditions = [
      { type: 'Synced', status: 'False', reason: REFERENCE_NOT_FOUND, message },
      { type: 'Ready', status: 'False', reason: REFERENCE_NOT_FOUND, message },
    ] as const;
    return {
      outcome: { kind: 'waitForObject' },
      status: { conditions },
      ...warningWhenTurning(readyReasonOf(resource), REFERENCE_NOT_FOUND, message),
    };
  }

  /**
   * Another object already manages the cloud id this one names: nothing is done in the cloud, and one
   * Warning says so when it turns so (the message names the holder and the id, nothing secret).
   */
  alreadyManaged(resource: R, reason: ConditionReason, message: string): Ended {
    return {
      ...this.waitForObject(new Waiting(reason, message)),
      ...warningWhenTurning(readyReasonOf(resource), reason, message),
    };
  }

  /**
   * The cloud object lives under the referenced object's old cloud id (kept in status): following the new
   * one would lose it there and create a second one. Nothing is done in the cloud until the user chooses;
   * deleting still works, from the kept id.
   */
  referenceReplaced(resource: R, replaced: ReplacedReference): Ended {
    const { kind } = this.options.kind;
    const { what, statusField, kept, now } = replaced;
    const id = resource.status?.id ?? '';
    const message =
      `${what} now refers to ${now}, but ${kind} ${id} was made under ${kept} (status.${statusField}); ` +
      `nothing is changed in the cloud. Delete this ${kind} (its deletionPolicy applies to ${id} under ${kept}) ` +
      `and apply it again to make one under ${now}, or make ${what} manage ${kept} again (${ANNOTATIONS.externalId})`;
    return {
      ...this.waitForObject(new Waiting(REASON.ReferenceReplaced, message)),
      ...warningWhenTurning(readyReasonOf(resource), REASON.ReferenceReplaced, message),
    };
  }

  /**
   * A reconcile that threw (waits are returned, never thrown): a call the quota deferred is looked at again
   * quietly; anything else is recorded in status and an Event, for a retry. `act.write` records a status
   * change and writes the status, returning the race it met; `act.warn` records the Warning, after the write;
   * `lookedAt` is when the reconcile began.
   */
  async failed(
    key: string,
    error: unknown,
    act: {
      write(change: StatusChange): Promise<Raced | undefined>;
      warn(reason: string, message: string): void;
    },
    lookedAt: number,
  ): Promise<Outcome> {
    const { signal, logger } = this.options;
    // Another process may lead by now: an aborted reconcile records nothing, its successor looks again.
    if (signal?.aborted) throw error;
    const deferMs = deferralOf(error);
    if (deferMs !== undefined) {
      logger.debug({ key, requeueAfterMs: deferMs }, 'cloud call deferred; requeued');
      return { kind: 'deferred', afterMs: deferMs, lookedAt };
    }
    const [reason, message] = [reasonOf(error), messageOf(error)];
    const failure = { reason, message, needsAPerson: failureOf(error)?.kind === 'terminal' };
    const unwritten = await act.write({ failure }).catch((statusError: unknown) => ({
      message: messageOf(statusError),
    }));
    if (unwritten) logger.warn({ key, err: unwritten.message }, 'could not record the failure in status');
    act.warn(reason, message);
    const { requestId } = error as { requestId?: unknown };
    // What waits on the user (a missing Secret, a spec the cloud refuses) is no trouble of the operator's.
    const level = failureOf(error)?.kind === 'terminal' ? 'info' : 'warn';
    logger[level]({ key, reason, err: message, requestId }, 'reconcile failed');
    return { kind: 'retry', error };
  }
}

/** The reason of the Ready condition the object held when it was read. */
export function readyReasonOf(resource: ManagedObject): string | undefined {
  return resource.status?.conditions?.find((c) => c.type === 'Ready')?.reason;
}

/**
 * A Warning when Ready's reason turns to `reason` from `before` (the reason it held when read), none while it
 * stays so: one per turn, not one per look.
 */
export function warningWhenTurning(
  before: string | undefined,
  reason: string,
  message: string,
): { event?: EventNote } {
  return before === reason ? {} : { event: { type: 'Warning', reason, message } };
}

/** Synced, as the reconcile worked; Ready=False saying what it waits for. */
function waitReported(waiting: Waiting): StatusChange {
  return {
    conditions: [
      { type: 'Synced', status: 'True', reason: REASON.ReconcileSuccess },
      { type: 'Ready', status: 'False', reason: waiting.reason, message: waiting.message },
    ],
  };
}

/** The workers read `retryAfterMs` as a floor under the backoff; the cloud's own error stays the cause. */
function withRetryFloor(error: unknown): unknown {
  const floor = retryFloorOf(error);
  if (floor === undefined || error instanceof ReconcileError) return error;
  return new ReconcileError(reasonOf(error), messageOf(error), floor, { cause: error });
}
