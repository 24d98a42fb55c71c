import { describeChanges } from './change-summary.ts';
import { describeDrift, driftRecorded } from './drift-status.ts';
import { OBSERVED } from './observe-only.ts';
import type { EventNote } from './events.ts';
import { warningWhenTurning, type Outcome } from './outcomes.ts';
import type { StatusChange } from './status-changes.ts';
import type { ConnectionDetails, ManagedStatus, Observation } from './types.ts';
import { REASON } from '../base/reasons.ts';

type Existing<P> = Extract<Observation<P>, { exists: true }>;

/**
 * One thing a reconcile does once it has decided, as data: the executor (`ReconcileExecutor`) performs the
 * effects of a decision in order, and nothing else writes status, sends a change or records an Event.
 */
export type Effect =
  /** What status gets, written into the draft (the status write itself comes once the reconcile ends). */
  | { status: StatusChange }
  /** An Event on the object. */
  | { event: EventNote }
  /**
   * The kind's update of what the observation found different; the status fields its answers changed go
   * into status. A `Waiting` answer ends the decision there: the cloud is not ready for the change.
   */
  | { update: true }
  /** Under Observe: the kind's update runs against clients that record, and status lists what it would send. */
  | { recordPendingChanges: { notes: readonly string[] } }
  /** Status keeps digests of the Secret values the cloud now has (never the values). */
  | { secretsRecorded: true }
  /** Connection values the cloud has accepted, published to the connection Secret and noted in status. */
  | { publishAccepted: ConnectionDetails };

/** What a reconcile decided: the effects to perform in order, then how it ends. */
export interface Decision {
  effects: Effect[];
  outcome: Outcome;
}

/** What the decision on an observed cloud object reads: nothing it reads can change while it decides. */
export interface ObservedSnapshot<P> {
  kind: string;
  /** The spec as written, for the words of an Event. */
  spec: Record<string, unknown>;
  /** The cloud object, compared with the spec and its field policy applied. */
  observation: Existing<P>;
  /** Status as the reconcile has it so far (drift keeps the `since` recorded there). */
  status: ManagedStatus;
  /** The Ready reason status held when the reconcile began: a Warning is recorded when it turns. */
  readyReasonBefore: string | undefined;
  /** `managementPolicy: Observe`: nothing is sent; what would be is recorded. */
  observeOnly: boolean;
  /** Under Observe: what the object asks for that Observe does not do (a password reset), for Ready. */
  withheld?: string | undefined;
  now: Date;
}

/**
 * What to do about an observed cloud object, decided from the snapshot alone: a failed object is reported;
 * one that differs is updated (under Observe, the update is recorded instead); one that matches is Ready,
 * or waits for the cloud, with the drift its field policy allows said.
 */
export function decideObserved<P>(snapshot: ObservedSnapshot<P>): Decision {
  const { observation } = snapshot;
  if (observation.failed) {
    const { failed, reason = REASON.CloudFailed } = observation;
    const reported: Effect = {
      status: {
        removed: ['Drifted'],
        conditions: [{ type: 'Ready', status: 'False', reason, message: failed }],
      },
    };
    const { event } = warningWhenTurning(snapshot.readyReasonBefore, reason, failed);
    return { effects: event ? [{ event }, reported] : [reported], outcome: { kind: 'waitForCloud' } };
  }
  const drift = driftRecorded(
    snapshot.status,
    observation.drift ?? [],
    observation.managedEntries,
    snapshot.now,
  );
  if (snapshot.observeOnly) {
    // Recorded before the recorded update runs, which may fail.
    const notes = snapshot.withheld ? [snapshot.withheld] : [];
    return {
      effects: [{ status: drift }, { status: OBSERVED }, { recordPendingChanges: { notes } }],
      outcome: { kind: 'driftCheck' },
    };
  }
  // Recorded before an update, which may fail: the cloud was read, and differs as it does.
  const synced: Effect = {
    status: { conditions: [{ type: 'Synced', status: 'True', reason: REASON.ReconcileSuccess }] },
  };
  if (observation.differences.length > 0) return updating(snapshot, [synced, { status: drift }]);
  return matching(observation, [synced, { status: drift }]);
}

/** The update, its answers and connection values recorded after it, an Event, and Ready saying so. */
function updating<P>(snapshot: ObservedSnapshot<P>, read: Effect[]): Decision {
  const { observation } = snapshot;
  const changes = describeChanges(snapshot.spec, observation.differences);
  const accepted = observation.connectionDetailsAfterUpdate;
  const updatingReady: StatusChange = {
    conditions: [{ type: 'Ready', status: 'False', reason: REASON.Updating, message: `applying ${changes}` }],
  };
  return {
    effects: [
      ...read,
      { update: true },
      { secretsRecorded: true },
      // Values the update made true (a password the cloud has now accepted): published after it, never before.
      ...(accepted ? [{ publishAccepted: accepted }] : []),
      { event: { type: 'Normal', reason: 'Updated', message: `updated ${changes}` } },
      { status: updatingReady },
    ],
    outcome: { kind: 'waitForCloud' },
  };
}

/** Nothing to change: Ready when the cloud object is usable, else a wait; drift the policy allows is said. */
function matching<P>(observation: Existing<P>, read: Effect[]): Decision {
  const drift = observation.drift ?? [];
  // A difference the field policy allows is no reason to be less Ready: it is said, and counted.
  const allowed = drift.length > 0 ? describeDrift(drift) : undefined;
  const drifted: StatusChange = allowed
    ? { conditions: [{ type: REASON.Drifted, status: 'True', reason: 'DriftAllowed', message: allowed }] }
    : { removed: ['Drifted'] };
  const effects: Effect[] = [...read, { status: drifted }, { secretsRecorded: true }];
  if (!observation.available) {
    const message = observation.waitingFor ?? 'waiting for the cloud';
    const reason = observation.reason ?? REASON.Unavailable;
    const unavailable: StatusChange = { conditions: [{ type: 'Ready', status: 'False', reason, message }] };
    return { effects: [...effects, { status: unavailable }], outcome: { kind: 'waitForCloud' } };
  }
  const available = { type: 'Ready', status: 'True', reason: REASON.Available } as const;
  const ready: StatusChange = { conditions: [allowed ? { ...available, message: allowed } : available] };
  const { dueInMs } = observation;
  const outcome: Outcome =
    dueInMs === undefined ? { kind: 'driftCheck' } : { kind: 'driftCheck', dueInMs: Math.max(0, dueInMs) };
  return { effects: [...effects, { status: ready }], outcome };
}
