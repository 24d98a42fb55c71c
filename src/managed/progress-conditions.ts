import type { Condition } from '../kube/conditions.ts';
import { REASON, REASONS, type KindReasons, type ReasonMeaning } from '../base/reasons.ts';

/**
 * `Reconciling` and `Stalled`, the conditions generic tools read (kstatus, in sigs.k8s.io/cli-utils: Flux,
 * kpt, cli-utils' `kubectl`-style waits): Reconciling=True while sluice works or waits (kstatus: InProgress),
 * Stalled=True for a failure only a person can end (kstatus: Failed), neither once Ready=True says the cloud
 * matches this generation (kstatus: Current). Both are "abnormal-true": present only while True.
 *
 * Derived from Ready and Synced in this one place, so whatever sets those (a kind, the runtime, a drift
 * policy) needs no change to be read right.
 */

/**
 * The Ready=False reasons that no retry ends, of the common table and of a kind's own (`reasons`): the cloud
 * reports the resource failed, another object manages the same thing, an Observe object has nothing to
 * observe, drift is only reported, or what the kind declares final (a reverse private endpoint refused).
 */
export function readyReasonsNeedingAPerson(kindReasons: KindReasons = {}): ReadonlySet<string> {
  const meanings: [string, Partial<ReasonMeaning>][] = [
    ...Object.entries(REASONS),
    ...Object.entries(kindReasons),
  ];
  return new Set(
    meanings
      .filter(([, meaning]) => meaning.condition === 'Ready=False' && meaning.end === 'terminal')
      .map(([reason]) => reason),
  );
}

/** Those of the common table alone: a kind with no reasons of its own. */
const COMMON_READY_REASONS_NEEDING_A_PERSON = readyReasonsNeedingAPerson();

/** Synced=False while paused: sluice does nothing, so it is neither working nor stuck. */
const PAUSED = REASON.ReconcilePaused;

export type ProgressConditionType = 'Reconciling' | 'Stalled';
export interface ProgressCondition {
  type: ProgressConditionType;
  status: 'True';
  reason: string;
  message?: string;
}

/**
 * The progress conditions a status holds, from its Ready and Synced conditions. `syncFailureNeedsAPerson`:
 * the failure Synced=False reports fails the same way until someone changes the spec, a Secret or the cloud
 * (a 4xx no retry fixes, a missing Secret), as opposed to one a retry may end (a 5xx, the network).
 * `readyNeedsAPerson`: the Ready=False reasons of the object's kind that make it Stalled.
 */
export function progressConditions(
  conditions: readonly Condition[],
  generation: number | undefined,
  syncFailureNeedsAPerson: boolean,
  readyNeedsAPerson: ReadonlySet<string> = COMMON_READY_REASONS_NEEDING_A_PERSON,
): ProgressCondition[] {
  const ready = conditions.find((c) => c.type === 'Ready');
  const synced = conditions.find((c) => c.type === 'Synced');
  if (synced?.status === 'False' && synced.reason === PAUSED) return [];
  if (synced?.status === 'False' && syncFailureNeedsAPerson) return [stalled(synced)];
  if (ready?.status === 'False' && readyNeedsAPerson.has(ready.reason)) return [stalled(ready)];
  if (ready?.status === 'True') {
    const said = ready.observedGeneration;
    if (generation === undefined || said === undefined || said >= generation) return [];
    const message = `Ready was said of generation ${said}; generation ${generation} is not applied yet`;
    return [{ type: 'Reconciling', status: 'True', reason: 'ReadyForOlderGeneration', message }];
  }
  const why = ready ?? synced;
  if (!why) return [];
  return [
    {
      type: 'Reconciling',
      status: 'True',
      reason: why.reason,
      ...(why.message !== undefined ? { message: why.message } : {}),
    },
  ];
}

function stalled(cause: Condition): ProgressCondition {
  return {
    type: 'Stalled',
    status: 'True',
    reason: cause.reason,
    ...(cause.message !== undefined ? { message: cause.message } : {}),
  };
}

/** Whether a stored status said its Synced failure needs a person: its Stalled condition tells of it. */
export function storedSyncFailureNeedsAPerson(conditions: readonly Condition[]): boolean {
  const synced = conditions.find((c) => c.type === 'Synced');
  const stalledBy = conditions.find((c) => c.type === 'Stalled');
  return synced?.status === 'False' && stalledBy?.status === 'True' && stalledBy.reason === synced.reason;
}
