export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;

/** One aspect of a resource, in the shape Kubernetes uses for conditions (metav1.Condition). */
export interface Condition {
  type: string;
  status: (typeof CONDITION_STATUSES)[number];
  /** A CamelCase word saying why the condition has its status. */
  reason: string;
  message?: string;
  /** When `status` last changed (RFC 3339). */
  lastTransitionTime: string;
  /** The metadata.generation the condition was set for. */
  observedGeneration?: number;
}

export type ConditionType = 'Ready' | 'Synced' | 'Drifted' | 'Reconciling' | 'Stalled' | 'Granted';
export type ConditionInput = Omit<Condition, 'lastTransitionTime'>;

/**
 * Sets a condition the way Kubernetes expects: `lastTransitionTime` moves only when `status` flips, so a
 * reconcile that changes nothing produces an identical status and no write.
 */
export function setCondition(
  conditions: readonly Condition[],
  next: ConditionInput,
  now: () => Date,
): Condition[] {
  const previous = conditions.find((c) => c.type === next.type);
  const lastTransitionTime =
    previous && previous.status === next.status ? previous.lastTransitionTime : now().toISOString();
  const merged: Condition = { ...next, lastTransitionTime };
  if (merged.message === undefined) delete merged.message;
  return previous ? conditions.map((c) => (c.type === next.type ? merged : c)) : [...conditions, merged];
}

export function removeCondition(conditions: readonly Condition[], type: ConditionType): Condition[] {
  return conditions.filter((c) => c.type !== type);
}
