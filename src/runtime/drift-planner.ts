import type { Logger } from 'pino';
import {
  planDriftCycle,
  DriftPlanReports,
  type DriftApi,
  type DriftBudget,
  type DriftPlan,
  type PlannedObject,
} from './drift-plan.ts';
import { formatDuration } from './duration.ts';
import { syncIntervalOf } from './managed/pacing.ts';
import { ANNOTATIONS } from './managed/annotations.ts';
import type { EventRecorder } from './managed/events.ts';
import type { EventSubject } from './managed/kube-writer.ts';
import type { ManagedKind, ManagedObject } from './managed/types.ts';
import type { DriftMetrics } from './metrics.ts';

export interface CredentialsRef {
  namespace: string;
  name: string;
}

export interface DriftPlannerOptions {
  /** Every sluice object the operator's caches hold, with its kind. */
  objects(): Iterable<{ kind: ManagedKind<ManagedObject, unknown, unknown>; object: ManagedObject }>;
  /** The credentials Secret an object is reconciled with; undefined when it may use none. */
  credentialsOf(object: ManagedObject): CredentialsRef | undefined;
  /** The Secret's uid as cached; undefined when the Secret is not there (its objects call nothing). */
  secretUid(ref: CredentialsRef): string | undefined;
  /** Each API's budget per key (`false`: unthrottled). */
  budgets: Readonly<Record<DriftApi, DriftBudget | false>>;
  /** `--sync-interval`: the interval of objects without their own annotation. */
  syncIntervalMs: number;
  events: Pick<EventRecorder, 'record'>;
  metrics: DriftMetrics;
  logger: Logger;
}

/** How often the plan is made again: object counts change with applies and deletes, not faster. */
export const PLAN_EVERY_MS = 5_000;

/**
 * Plans each credentials Secret's drift cycle against its quota, from the objects the caches hold. A key
 * whose quota cannot meet its sync interval is reported once when that starts (a Warning Event on the
 * Secret and a log line) and once when it ends; every plan updates the key's metrics.
 */
export class DriftPlanner {
  private readonly reports = new DriftPlanReports();
  private planned = new Set<string>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly options: DriftPlannerOptions) {}

  /** Plans now and every `everyMs` until stopped (the timer does not keep the process alive). */
  start(everyMs = PLAN_EVERY_MS): void {
    this.stop();
    this.plan();
    this.timer = setInterval(() => this.plan(), everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Plans every key once, reporting the keys whose condition changed. Returns the plans by `namespace/name`. */
  plan(): Map<string, DriftPlan> {
    const { metrics } = this.options;
    const plans = new Map<string, DriftPlan>();
    for (const [key, { ref, objects }] of this.objectsByKey()) {
      const plan = planDriftCycle(objects, this.options.budgets, this.options.syncIntervalMs);
      plans.set(key, plan);
      metrics.planned(key, plan);
      const change = this.reports.changed(key, plan);
      if (change) this.report(ref, key, plan, change);
    }
    for (const gone of this.planned) {
      if (plans.has(gone)) continue;
      metrics.forget(gone);
      this.reports.forget(gone);
    }
    this.planned = new Set(plans.keys());
    return plans;
  }

  private objectsByKey() {
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
    const calls = plan.calls.management + plan.calls.alerting;
    const interval = formatDuration(plan.intervalMs);
    const shortest = formatDuration(plan.cycleMs);
    const what =
      `drift checks of the ${plan.objects} objects using Secret ${key} cost ${calls} cloud calls per cycle ` +
      `(management ${plan.calls.management}, alerting ${plan.calls.alerting})`;
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
