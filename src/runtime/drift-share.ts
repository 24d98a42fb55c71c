import { budgetRate, type DriftApi, type DriftBudget, type PlannedObject } from './drift-plan.ts';

/**
 * One namespace's use of a key: its objects grouped by credentials Secret (each Secret has snapshots of its
 * own, so a list is shared only between the objects of one Secret).
 */
export interface Sharer {
  namespace: string;
  secrets: ReadonlyMap<string, readonly PlannedObject[]>;
}

/** What the plan gives one namespace of a key's budget for one API. */
export interface NamespaceShare {
  /** No object of the namespace is drift-checked more often than this (0: each at its own interval). */
  floorMs: number;
  /** Calls per ms the namespace's drift checks spend at that floor. */
  rate: number;
  /** Calls per ms the namespace could spend if it asked for more, while the others keep theirs. */
  available: number;
}

/**
 * Calls per ms the objects' drift checks spend on `api` when none is checked more often than every
 * `floorMs`: a GET per object per interval, a shared list once per the shortest interval of its readers.
 */
export function driftRate(objects: readonly PlannedObject[], api: DriftApi, floorMs: number): number {
  const lists = new Map<string, number>();
  let rate = 0;
  for (const object of objects) {
    const every = Math.max(object.syncIntervalMs, floorMs, 1);
    for (const read of object.reads) {
      if (read.api !== api) continue;
      if (read.list === undefined) rate += 1 / every;
      else lists.set(read.list, Math.min(lists.get(read.list) ?? Infinity, every));
    }
  }
  for (const every of lists.values()) rate += 1 / every;
  return rate;
}

const sharerRate = (sharer: Sharer, api: DriftApi, floorMs: number) =>
  [...sharer.secrets.values()].reduce((sum, objects) => sum + driftRate(objects, api, floorMs), 0);

/** The shortest floor (whole ms) at which the sharer spends at most `allowed` calls per ms. */
function floorFor(sharer: Sharer, api: DriftApi, allowed: number): number {
  if (sharerRate(sharer, api, 0) <= allowed) return 0;
  // Every read at the floor spends at most 1 / floor: a floor of reads / allowed always fits.
  const reads = [...sharer.secrets.values()]
    .flat()
    .reduce((sum, object) => sum + object.reads.filter((read) => read.api === api).length, 0);
  let low = 0;
  let high = Math.ceil(reads / allowed);
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (sharerRate(sharer, api, middle) <= allowed) high = middle;
    else low = middle;
  }
  return high;
}

/**
 * Shares one key's budget for `api` between the namespaces that use it, max-min fair: a namespace that
 * asks for less than an equal share gets what it asks, and what it leaves is shared equally by the others.
 * A namespace that asks for more is paced: its objects are checked no more often than its floor, so the
 * namespaces together never plan more calls than the budget serves, however short their sync intervals.
 */
export function shareBudget(
  sharers: readonly Sharer[],
  api: DriftApi,
  budget: DriftBudget,
): Map<string, NamespaceShare> {
  const capacity = budgetRate(budget);
  const demands = sharers
    .map((sharer) => ({ sharer, demand: sharerRate(sharer, api, 0) }))
    .sort((a, b) => a.demand - b.demand);
  const allowed = new Map<string, number>();
  let left = capacity;
  demands.forEach(({ sharer, demand }, index) => {
    const equal = left / (demands.length - index);
    const given = Math.min(demand, equal);
    allowed.set(sharer.namespace, given);
    left -= given;
  });
  const shares = new Map<string, NamespaceShare>();
  for (const sharer of sharers) {
    const floorMs = floorFor(sharer, api, allowed.get(sharer.namespace)!);
    shares.set(sharer.namespace, { floorMs, rate: sharerRate(sharer, api, floorMs), available: 0 });
  }
  const planned = [...shares.values()].reduce((sum, share) => sum + share.rate, 0);
  for (const share of shares.values())
    share.available = Math.max(share.rate, capacity - planned + share.rate);
  return shares;
}
