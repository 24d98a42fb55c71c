import type { ConditionInput, ConditionType } from '../kube/conditions.ts';
import type { ManagedStatus } from './types.ts';

/** A condition as a step states it: the draft adds the generation it observes. */
export type StatedCondition = Omit<ConditionInput, 'observedGeneration'>;

/**
 * What one step of a reconcile found for status, as data. The steps return it; the executor alone writes it
 * into the status draft (`StatusDraft.apply`), so what a reconcile writes is read in one place.
 */
export interface StatusChange {
  /** Fields set over what the draft holds; a field set to `undefined` is gone from the written status. */
  set?: ManagedStatus;
  /** Fields removed. */
  unset?: readonly string[];
  /** Conditions removed (before those set). */
  removed?: readonly Exclude<ConditionType, 'Ready' | 'Synced'>[];
  /** Conditions set. */
  conditions?: readonly StatedCondition[];
  /** A failed reconcile, as `StatusDraft.recordFailure` records it. */
  failure?: { reason: string; message: string; needsAPerson: boolean };
  /** The spec was not acted on: observedGeneration keeps saying which generation was. */
  keepObservedGeneration?: true;
  /** Nothing is written: the reconcile has nothing to say yet, or the object is on its way out. */
  discard?: true;
  /**
   * The reconcile is reading what it needs before any cloud call (true), or is past that (false): a failure
   * recorded after this says whether a cloud call was made.
   */
  beforeCloud?: boolean;
}
