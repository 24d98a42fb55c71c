import type { Logger } from 'pino';
import {
  apisOf,
  budgetRate,
  planDriftCycle,
  DriftPlanReports,
  type DriftApi,
  type DriftBudget,
  type DriftPlan,
  type PlannedObject,
} from './drift-plan.ts';
import { driftRate, shareBudget, type Sharer } from './drift-share.ts';
import { formatDuration } from '../base/duration.ts';
import { syncIntervalOf } from '../managed/pacing.ts';
import { ANNOTATIONS } from '../managed/annotations.ts';
import type { EventRecorder } from '../managed/events.ts';
import type { EventSubject } from '../managed/kube-writer.ts';
import type { ManagedKind, ManagedObject } from '../managed/types.ts';
import type { DriftMetrics } from './metrics.ts';
import { timing } from '../base/timings.ts';

export interface CredentialsRef {
  namespace: string;
  name: string;
}

export interface DriftPlannerOptions<Api extends DriftApi = DriftApi> {
  /** Every sluice object the operator's caches hold, with its kind. */
  objects(): Iterable<{ kind: ManagedKind<ManagedObject, unknown, unknown>; object: ManagedObject }>;
  /** The credentials Secret an object is reconciled with; undefined when it may use none. */
  credentialsOf(object: ManagedObject): CredentialsRef | undefined;
  /** The Secret's uid as cached; undefined when the Secret is not there (its objects call nothing). */
  secretUid(ref: CredentialsRef): string | undefined;
  /**
   * The budget key (see `quotaKey`) the Secret's calls of `api` spend; undefined when it has none (no
   * client for that API, or not given): the Secret is then planned on its own.
   */
  budgetKeyOf?(ref: CredentialsRef, api: Api): string | undefined;
  /** Each API's budget per key (`false`: unthrottled), by the name the kinds' drift reads give the API. */
  budgets: Readonly<Record<Api, DriftBudget | false>>;
  /** `--sync-interval`: the interval of objects without their own annotation. */
  syncIntervalMs: number;
  events: Pick<EventRecorder, 'record'>;
  metrics: DriftMetrics;
  logger: Logger;
}

/**
 * Plans the drift checks of each budget key from the objects the caches hold, sharing the key's budget
 * fairly between the namespaces whose Secrets hold it (`shareBudget`): a namespace asking for more than its
 * share is paced (`floorOf`), so the key's drift checks never plan more calls than its budget serves. Each
 * credentials Secret's cycle is reported against what its namespace may have of the key: once when it cannot
 * meet its sync interval (a Warning Event on the Secret and a log line) and once when it can again; every
 * plan updates the Secret's metrics.
 */
export class DriftPlanner<Api extends DriftApi = DriftApi> {
  private readonly reports = new DriftPlanReports();
  private planned = new Set<string>();
  /** Per credentials Secret (`namespace/name`): how often its objects may be drift-checked at most. */
  private floors = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly options: DriftPlannerOptions<Api>) {}

  /** Plans now and every `everyMs` until stopped (the timer does not keep the process alive). */
  start(everyMs = timing.driftPlanEveryMs): void {
    this.stop();
    this.plan();
    this.timer = setInterval(() => this.plan(), everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * The shortest interval (ms) the object may be drift-checked at: its namespace's floor on the keys its
   * credentials Secret holds, 0 when unpaced (or not planned yet).
   */
  floorOf(object: ManagedObject): number {
    const ref = this.options.credentialsOf(object);
    return ref ? (this.floors.get(`${ref.namespace}/${ref.name}`) ?? 0) : 0;
  }

  /**
   * Plans every key once, reporting the Secrets whose condition changed. Returns the plans by the Secret's
   * `namespace/name`.
   */
  plan(): Map<string, DriftPlan> {
    const { metrics, budgets, syncIntervalMs } = this.options;
    const plans = new Map<string, DriftPlan>();
    const secrets = this.objectsBySecret();
    const shares = this.share(secrets);
    this.floors = new Map([...shares].map(([key, { floorMs }]) => [key, floorMs]));
    for (const [key, { ref, objects }] of secrets) {
      const { floorMs, rate, available } = shares.get(key)!;
      const plan = planDriftCycle(objects, budgets, syncIntervalMs, available);
      plan.pacedIntervalMs = Math.max(plan.intervalMs, floorMs);
      for (const api of apisOf(budgets)) {
        const budget = budgets[api];
        plan.share[api] = budget === false ? 0 : rate[api] / budgetRate(budget);
      }
      plans.set(key, plan);
      metrics.planned(key, plan);
      const change = this.reports.changed(key, plan);
      if (change) this.report(ref, key, plan, change);
    }
    for (const gone of this.planned) if (!plans.has(gone)) this.forget(gone);
    this.planned = new Set(plans.keys());
    return plans;
  }

  /**
   * The Secret (`namespace/name`) has no user any more: its series, report and floor go now, not at the next
   * plan, so a scrape right after its namespace is gone names it no longer.
   */
  forget(secretKey: string): void {
    this.options.metrics.forget(secretKey);
    this.reports.forget(secretKey);
    this.planned.delete(secretKey);
    this.floors.delete(secretKey);
  }

  /**
   * Per Secret: the floor its namespace is paced to (the longest over the keys it holds), and per API the
   * calls per ms its objects spend at that floor and how many it could have of its key.
   */
  private share(secrets: ReturnType<DriftPlanner['objectsBySecret']>) {
    const apis = apisOf(this.options.budgets);
    type Share = { floorMs: number; rate: Record<Api, number>; available: Record<Api, number> };
    const perApi = (value: number) =>
      Object.fromEntries(apis.map((api) => [api, value])) as Record<Api, number>;
    const result = new Map<string, Share>();
    for (const key of secrets.keys()) {
      result.set(key, {
        floorMs: 0,
        rate: perApi(0),
        available: perApi(Infinity),
      });
    }
    for (const api of apis) {
      const budget = this.options.budgets[api];
      if (budget === false) continue;
      // Secrets holding one key, by namespace: the namespaces are the key's sharers.
      const byKey = new Map<string, Map<string, Map<string, PlannedObject[]>>>();
      for (const [key, { ref, objects }] of secrets) {
        const budgetKey = this.options.budgetKeyOf?.(ref, api) ?? `Secret ${key}`;
        let namespaces = byKey.get(budgetKey);
        if (!namespaces) byKey.set(budgetKey, (namespaces = new Map()));
        let inNamespace = namespaces.get(ref.namespace);
        if (!inNamespace) namespaces.set(ref.namespace, (inNamespace = new Map()));
        inNamespace.set(key, objects);
      }
      for (const namespaces of byKey.values()) {
        const sharers: Sharer[] = [...namespaces].map(([namespace, secrets]) => ({ namespace, secrets }));
        const shares = shareBudget(sharers, api, budget);
        for (const { namespace, secrets: inNamespace } of sharers) {
          const share = shares.get(namespace)!;
          const rates = new Map(
            [...inNamespace].map(([key, objects]) => [key, driftRate(objects, api, share.floorMs)]),
          );
          for (const [key, rate] of rates) {
            const entry = result.get(key)!;
            entry.floorMs = Math.max(entry.floorMs, share.floorMs);
            entry.rate[api] = rate;
            // What the namespace could have, less what its other Secrets on the key spend.
            entry.available[api] = share.available - (share.rate - rate);
          }
        }
      }
    }
    // A floor set by one API's key also slows the other API's calls: count them at that floor.
    for (const [key, entry] of result) {
      for (const api of apis) entry.rate[api] = driftRate(secrets.get(key)!.objects, api, entry.floorMs);
    }
    return result;
  }

  private objectsBySecret() {
    const byKey = new Map<string, { ref: CredentialsRef; objects: PlannedObject[] }>();
    for (const { kind, object } of this.options.objects()) {
      // Objects being deleted or paused are not drift-checked.
      if (object.metadata.deletionTimestamp) continue;
      if (object.metadata.annotations?.[ANNOTATIONS.paused] === 'true') continue;
      const ref = this.options.credentialsOf(object);
      if (!ref || this.options.secretUid(ref) === undefined) continue;
      const key = `${ref.namespace}/${ref.name}`;
      let entry = byKey.get(key);
      if (!entry) byKey.set(key, (entry = { ref, objects: [] }));
      entry.objects.push({
        reads: kind.driftReads?.(object) ?? [],
        // As the reconciler paces the object (which reports an annotation it sets aside).
        syncIntervalMs: syncIntervalOf(object, this.options.syncIntervalMs).ms,
      });
    }
    return byKey;
  }

  private report(ref: CredentialsRef, key: string, plan: DriftPlan, change: 'unmet' | 'recovered'): void {
    const perApi = Object.entries(plan.calls);
    const calls = perApi.reduce((sum, [, count]) => sum + count, 0);
    const interval = formatDuration(plan.intervalMs);
    const shortest = formatDuration(plan.cycleMs);
    const what =
      `drift checks of the ${plan.objects} objects using Secret ${key} cost ${calls} cloud calls per cycle ` +
      `(${perApi.map(([api, count]) => `${api} ${count}`).join(', ')})`;
    // The quota here is what the namespace may have of its key: all of it, or a fair share when shared.
    const message =
      change === 'unmet'
        ? `${what}; the request quota allows one cycle every ${shortest} at the shortest, so the sync interval ${interval} cannot be met`
        : `${what}; the request quota allows one cycle every ${shortest}, so the sync interval ${interval} is met again`;
    const fields = {
      credentials: key,
      objects: plan.objects,
      callsPerCycle: calls,
      calls: plan.calls,
      syncInterval: interval,
      shortestInterval: shortest,
      pacedInterval: formatDuration(plan.pacedIntervalMs),
    };
    if (change === 'unmet') this.options.logger.warn(fields, message);
    else this.options.logger.info(fields, message);
    const subject: EventSubject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { ...ref, uid: this.options.secretUid(ref)! },
    };
    const [type, reason] =
      change === 'unmet'
        ? (['Warning', 'SyncIntervalNotMet'] as const)
        : (['Normal', 'SyncIntervalMet'] as const);
    this.options.events.record(subject, type, reason, message);
  }
}
