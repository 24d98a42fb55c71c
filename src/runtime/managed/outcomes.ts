import type { Logger } from 'pino';
import type { Requeue } from '../workers.ts';
import { ANNOTATIONS } from './annotations.ts';
import { deferralOf, messageOf, ReconcileError, reasonOf, retryFloorOf, Waiting } from './errors.ts';
import type { EventRecorder } from './events.ts';
import type { Pacing } from './pacing.ts';
import type { ReplacedReference } from './references.ts';
import type { StatusDraft } from './status-draft.ts';
import type { ManagedObject } from './types.ts';

export interface OutcomesOptions {
  kind: { kind: string };
  pacing: Pacing;
  events: EventRecorder;
  logger: Logger;
  /** Aborted when this process must stop acting (leadership lost, shutdown deadline passed). */
  signal?: AbortSignal | undefined;
}

/**
 * How a reconcile ends, written where a reader sees it: what goes into status and Events, and when the
 * resource is looked at again — a wait for the cloud (a growing poll interval), a wait for another object
 * (woken by its change), a drift check after the sync interval, or a failure for the workers' backoff.
 */
export class Outcomes<R extends ManagedObject> {
  constructor(private readonly options: OutcomesOptions) {}

  /** In sync: the next look is the drift check after the resource's sync interval. */
  driftCheckLater(resource: R): Requeue {
    return { requeueAfterMs: this.options.pacing.syncInterval(resource) };
  }

  /** The cloud is still moving: look again after the next, longer poll interval. */
  pollAgain(draft: StatusDraft<R>): Requeue {
    draft.waiting = true;
    return { requeueAfterMs: this.options.pacing.nextPoll(draft.resource) };
  }

  /**
   * Reports a wait in Ready (the reconcile itself worked). Waiting on the cloud polls with the growing
   * interval; waiting on another object (`eventDriven`) is woken by that object's change, so it only
   * requeues after the sync interval as a safety net and leaves the poll interval where it was.
   */
  wait(draft: StatusDraft<R>, waiting: Waiting, eventDriven = false): Requeue {
    draft.setCondition({ type: 'Synced', status: 'True', reason: 'ReconcileSuccess' });
    draft.setCondition({ type: 'Ready', status: 'False', reason: waiting.reason, message: waiting.message });
    return eventDriven ? this.driftCheckLater(draft.resource) : this.pollAgain(draft);
  }

  /** The cloud says the resource failed: not Ready, and one Warning when it happens, not per poll. */
  cloudFailed(draft: StatusDraft<R>, failure: string, reason: string): Requeue {
    const resource = draft.resource;
    const ready = resource.status?.conditions?.find((c) => c.type === 'Ready');
    if (ready?.reason !== reason) this.options.events.record(resource, 'Warning', reason, failure);
    draft.removeCondition('Drifted');
    draft.setCondition({ type: 'Ready', status: 'False', reason, message: failure });
    return this.pollAgain(draft);
  }

  /**
   * The cloud object lives under the referenced object's old cloud id (kept in status): following the new
   * one would lose it there and create a second one. Nothing is done in the cloud until the user chooses;
   * deleting still works, from the kept id.
   */
  referenceReplaced(draft: StatusDraft<R>, replaced: ReplacedReference): Requeue {
    const { kind } = this.options.kind;
    const resource = draft.resource;
    const { what, statusField, kept, now } = replaced;
    const id = resource.status?.id ?? '';
    const message =
      `${what} now refers to ${now}, but ${kind} ${id} was made under ${kept} (status.${statusField}); ` +
      `nothing is changed in the cloud. Delete this ${kind} (its deletionPolicy applies to ${id} under ${kept}) ` +
      `and apply it again to make one under ${now}, or make ${what} manage ${kept} again (${ANNOTATIONS.externalId})`;
    const ready = resource.status?.conditions?.find((c) => c.type === 'Ready');
    if (ready?.reason !== 'ReferenceReplaced') {
      this.options.events.record(resource, 'Warning', 'ReferenceReplaced', message);
    }
    return this.wait(draft, new Waiting('ReferenceReplaced', message), true);
  }

  /**
   * A reconcile that threw: a wait is recorded as one; a call the quota deferred is requeued quietly;
   * anything else is recorded in status and an Event and handed to the workers' backoff (rethrown).
   * `flush` writes the draft.
   */
  async failed(
    key: string,
    draft: StatusDraft<R>,
    error: unknown,
    flush: (draft: StatusDraft<R>) => Promise<void>,
  ): Promise<Requeue> {
    const { signal, logger, events } = this.options;
    // Another process may lead by now: an aborted reconcile records nothing, its successor looks again.
    if (signal?.aborted) throw error;
    if (error instanceof Waiting) {
      // Not a failure, but still the truth to record: the try's status write was skipped by the throw.
      const next = this.wait(draft, error);
      await flush(draft);
      return next;
    }
    const deferMs = deferralOf(error);
    if (deferMs !== undefined) {
      logger.debug({ key, requeueAfterMs: deferMs }, 'cloud call deferred; requeued');
      return { requeueAfterMs: deferMs };
    }
    const [reason, message] = [reasonOf(error), messageOf(error)];
    draft.recordFailure(reason, message);
    await flush(draft).catch((statusError: unknown) =>
      logger.warn({ key, err: messageOf(statusError) }, 'could not record the failure in status'),
    );
    events.record(draft.resource, 'Warning', reason, message);
    const { requestId } = error as { requestId?: unknown };
    logger.info({ key, reason, err: message, requestId }, 'reconcile failed');
    // The workers read `retryAfterMs` as a floor under the backoff; the cloud's own error stays the cause.
    const floor = retryFloorOf(error);
    if (floor === undefined || error instanceof ReconcileError) throw error;
    throw new ReconcileError(reason, message, floor, { cause: error });
  }
}
