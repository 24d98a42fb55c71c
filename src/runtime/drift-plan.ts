import type { DriftRead } from '../managed/types.ts';

/** Calls per ms a budget serves: each slot is held `window + margin` per call. */
export const budgetRate = (budget: DriftBudget): number =>
  budget.requests / (budget.windowMs + budget.safetyMarginMs);

/** A cloud API by the name the operator gives its budget: the runtime knows no API of its own. */
export type DriftApi = DriftRead['api'];

/** The APIs of a plan: those the operator gives budgets for. */
export const apisOf = <Api extends string>(budgets: Readonly<Record<Api, unknown>>): Api[] =>
  Object.keys(budgets) as Api[];

/** A count per API, each starting at `value`. */
const perApi = (apis: readonly DriftApi[], value: number): Record<DriftApi, number> =>
  Object.fromEntries(apis.map((api) => [api, value]));

/** A key's request budget for one API: at most `requests` calls in any `windowMs` (+ the margin). */
export interface DriftBudget {
  requests: number;
  windowMs: number;
  /** Time a spent slot stays spent beyond the window (the quota scheduler's safety margin). */
  safetyMarginMs: number;
}

/** One object drift-checked with a key: what its check reads, and how often it is checked. */
export interface PlannedObject {
  reads: readonly DriftRead[];
  syncIntervalMs: number;
}

/** What one drift cycle of a key costs, and whether its quota allows it within the sync interval. */
export interface DriftPlan {
  objects: number;
  /** Calls of one cycle per API: each shared list once, each object read by GET once. */
  calls: Record<DriftApi, number>;
  /** The interval the cycle must fit: the shortest sync interval of the key's objects. */
  intervalMs: number;
  /**
   * How long the cycle's calls take at the key's full quota: the shortest interval the quota allows (the
   * longer of the APIs'). 0 when nothing is read or the API is unthrottled.
   */
  cycleMs: number;
  met: boolean;
  /**
   * The shortest interval the operator checks the objects at: the cycle's interval, or the longer floor
   * their namespace is paced to so that it keeps to its share of a key several namespaces use.
   */
  pacedIntervalMs: number;
  /** Per API, the share of the key's budget the objects' drift checks are planned to spend (0–1). */
  share: Record<DriftApi, number>;
}

/**
 * The cost of one drift cycle of a Secret's objects. A budget serves `requests` calls per `windowMs +
 * safetyMarginMs` (each slot is held that long after its call), so C calls take C × (window + margin) / N:
 * the scheduler spends slots at exactly that rate under load; at less when other namespaces share the key. Only the drift reads count: a change a user
 * makes goes first (priority `user`) and comes on top.
 */
export function planDriftCycle<Api extends DriftApi>(
  objects: readonly PlannedObject[],
  budgets: Readonly<Record<Api, DriftBudget | false>>,
  defaultIntervalMs: number,
  /** Per API, calls per ms of the key's budget the objects may have (others share it): default all. */
  available: Partial<Record<Api, number>> = {},
): DriftPlan {
  const lists = new Set<string>();
  const apis = apisOf(budgets);
  const calls = perApi(apis, 0);
  let intervalMs = objects.length === 0 ? defaultIntervalMs : Infinity;
  for (const object of objects) {
    intervalMs = Math.min(intervalMs, object.syncIntervalMs);
    for (const read of object.reads) {
      if (read.list === undefined) calls[read.api] = (calls[read.api] ?? 0) + 1;
      else if (!lists.has(`${read.api}\u0000${read.list}`)) {
        lists.add(`${read.api}\u0000${read.list}`);
        calls[read.api] = (calls[read.api] ?? 0) + 1;
      }
    }
  }
  let cycleMs = 0;
  for (const api of apis) {
    const budget = budgets[api];
    if (budget === false || !calls[api]) continue;
    const shared = available[api];
    const perCallMs =
      shared !== undefined && shared < budgetRate(budget)
        ? 1 / shared
        : (budget.windowMs + budget.safetyMarginMs) / budget.requests;
    // Rounded to whole ms, forgiving float error (6 calls at 1,010 ms each are 6,060 ms, not 6,061).
    cycleMs = Math.max(cycleMs, Math.ceil(calls[api]! * perCallMs - 1e-6));
  }
  const met = cycleMs <= intervalMs;
  const share = perApi(apis, 0);
  return { objects: objects.length, calls, intervalMs, cycleMs, met, pacedIntervalMs: intervalMs, share };
}

/**
 * Remembers which keys were last reported as unable to meet their interval, so a condition is said once
 * when it starts and once when it ends: not on every plan.
 */
export class DriftPlanReports {
  private readonly unmet = new Set<string>();

  /** 'unmet' or 'recovered' when the key's condition changed since the last plan; else undefined. */
  changed(key: string, plan: DriftPlan): 'unmet' | 'recovered' | undefined {
    const was = this.unmet.has(key);
    if (!plan.met && !was) {
      this.unmet.add(key);
      return 'unmet';
    }
    if (plan.met && was) {
      this.unmet.delete(key);
      return 'recovered';
    }
    return undefined;
  }

  /** The key has no objects any more: nothing left to recover, and a later shortfall is news again. */
  forget(key: string): void {
    this.unmet.delete(key);
  }
}
