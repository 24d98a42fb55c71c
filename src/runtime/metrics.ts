import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { DriftApi, DriftPlan } from './drift-plan.ts';

/**
 * The operator's Prometheus metrics, named as controller-runtime names them so existing dashboards and
 * alerts work unchanged. Each instance owns its own Registry (never prom-client's global one), so tests
 * and several operators in one process do not collide.
 *
 * Producers (work queue, workers, cloud client) see only the narrow sink interfaces below.
 */

/** Fed by a work queue; `name` is the controller name. */
export interface WorkQueueMetrics {
  /** A key entered the queue (not counted when it was already waiting). */
  added(): void;
  depth(current: number): void;
  /** A key was re-queued through the rate limiter. */
  retried(): void;
  /** Seconds a key waited in the queue before a worker took it. */
  queued(seconds: number): void;
  /** Seconds a worker held a key. */
  worked(seconds: number): void;
  /** Registers how to measure in-flight work at scrape time; returns the function that unregisters it. */
  observeInFlight(probe: () => InFlightWork): () => void;
}

export interface InFlightWork {
  /** Sum over keys being processed of how long each has been processed so far. */
  unfinishedSeconds: number;
  longestRunningSeconds: number;
}

export type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';

/** Fed by a controller's worker pool. */
export interface ReconcileMetrics {
  maxConcurrentReconciles(workers: number): void;
  reconcileStarted(): void;
  reconcileFinished(result: ReconcileResult, seconds: number): void;
}

/** Fed by the cloud clients and their quota scheduler. */
export interface CloudMetrics {
  /** One HTTP call; `code` is the HTTP status, or a word such as `network_error` when there was none. */
  request(api: string, method: string, route: string, code: number | string, seconds: number): void;
  quotaWaited(api: string, seconds: number): void;
  /**
   * Calls left in the budget of a credentials Secret's key (`credentials` is its `namespace/name`; Secrets of
   * one key share the budget, and each shows it).
   */
  quotaRemaining(credentials: string, api: string, remaining: number): void;
  /** One call a credentials Secret's budget paid for (`credentials` is its `namespace/name`). */
  spent(credentials: string, api: string, priority: string, code: number | string): void;
  /** No object uses the credentials Secret any more: its series go. */
  forget(credentials: string): void;
}

/**
 * Fed by the drift planner: per credentials Secret (`namespace/name`), what a drift cycle of its objects
 * costs and what it may have of its key, which Secrets in other namespaces may hold too.
 */
export interface DriftMetrics {
  planned(credentials: string, plan: DriftPlan): void;
  /** The Secret has no objects any more: its series go. */
  forget(credentials: string): void;
}

/** How old one of a key's snapshots is: `list` is the kind of list (services, pipes, …). */
export interface SnapshotAge {
  credentials: string;
  list: string;
  ageSeconds: number;
}

/** One sluice object as the operator's cache holds it, for the readiness gauges. */
export interface ObjectReadiness {
  /** The credentials Secret's `namespace/name`; empty when the object has none usable. */
  credentials: string;
  kind: string;
  /** The Ready condition's status, `Unknown` without one. */
  ready: string;
  /** The Ready condition's reason, `None` without one. */
  reason: string;
  /** Seconds since Ready last changed (since creation without a condition). */
  sinceSeconds: number;
}

export interface OperatorMetricsOptions {
  /** Add prom-client's process_* and nodejs_* metrics. Off by default: they install observers per call. */
  processMetrics?: boolean;
}

// controller-runtime's buckets, so histograms line up with Go operators' dashboards.
const RECONCILE_TIME_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25,
  1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
const WORKQUEUE_BUCKETS = Array.from({ length: 12 }, (_, i) => 1e-8 * 10 ** i);
const CLOUD_REQUEST_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const QUOTA_WAIT_BUCKETS = [0.001, 0.01, 0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];
// Fine below the 100 ms a responsive operator keeps to, coarse above it where only "stuck for how long" matters.
const EVENT_LOOP_DELAY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const RECONCILE_RESULTS: readonly ReconcileResult[] = ['success', 'error', 'requeue', 'requeue_after'];

export class OperatorMetrics {
  readonly registry = new Registry();
  readonly cloud: CloudMetrics;
  readonly drift: DriftMetrics;

  private readonly inFlightProbes = new Map<string, Set<() => InFlightWork>>();
  private snapshotProbe: () => Iterable<SnapshotAge> = () => [];
  private objectsProbe: () => Iterable<ObjectReadiness> = () => [];
  private secretsProbe: () => { metadata: number; data: number; dataBytes: number } = () => ({
    metadata: 0,
    data: 0,
    dataBytes: 0,
  });

  private readonly eventLoopDelay = new Histogram({
    name: 'sluice_event_loop_delay_seconds',
    help: 'How late the main event loop ran a timer: the time a watch event, an answer or a scrape waited for the loop',
    buckets: EVENT_LOOP_DELAY_BUCKETS,
    registers: [this.registry],
  });
  private readonly leader = this.gauge(
    'sluice_leader',
    '1 while this process reconciles: it holds the leader Lease, or runs without leader election',
    [],
  );

  private readonly events = this.counter(
    'sluice_events_total',
    'Kubernetes Events the operator recorded, by the kind of object, type and reason',
    ['kind', 'type', 'reason'],
  );

  private readonly reconcileTotal = this.counter(
    'controller_runtime_reconcile_total',
    'Total number of reconciliations per controller',
    ['controller', 'result'],
  );
  private readonly reconcileErrors = this.counter(
    'controller_runtime_reconcile_errors_total',
    'Total number of reconciliation errors per controller',
    ['controller'],
  );
  private readonly reconcileTime = new Histogram({
    name: 'controller_runtime_reconcile_time_seconds',
    help: 'Length of time per reconciliation per controller',
    labelNames: ['controller'],
    buckets: RECONCILE_TIME_BUCKETS,
    registers: [this.registry],
  });
  private readonly maxConcurrent = this.gauge(
    'controller_runtime_max_concurrent_reconciles',
    'Maximum number of concurrent reconciles per controller',
    ['controller'],
  );
  private readonly activeWorkers = this.gauge(
    'controller_runtime_active_workers',
    'Number of currently used workers per controller',
    ['controller'],
  );

  private readonly queueDepth = this.gauge('workqueue_depth', 'Current depth of workqueue', ['name']);
  private readonly queueAdds = this.counter(
    'workqueue_adds_total',
    'Total number of adds handled by workqueue',
    ['name'],
  );
  private readonly queueRetries = this.counter(
    'workqueue_retries_total',
    'Total number of retries handled by workqueue',
    ['name'],
  );
  private readonly queueLatency = new Histogram({
    name: 'workqueue_queue_duration_seconds',
    help: 'How long in seconds an item stays in workqueue before being requested',
    labelNames: ['name'],
    buckets: WORKQUEUE_BUCKETS,
    registers: [this.registry],
  });
  private readonly workDuration = new Histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'How long in seconds processing an item from workqueue takes',
    labelNames: ['name'],
    buckets: WORKQUEUE_BUCKETS,
    registers: [this.registry],
  });

  constructor(options: OperatorMetricsOptions = {}) {
    const probes = this.inFlightProbes;
    const measure = (name: string): InFlightWork => {
      let unfinishedSeconds = 0;
      let longestRunningSeconds = 0;
      for (const probe of probes.get(name) ?? []) {
        const work = probe();
        unfinishedSeconds += work.unfinishedSeconds;
        longestRunningSeconds = Math.max(longestRunningSeconds, work.longestRunningSeconds);
      }
      return { unfinishedSeconds, longestRunningSeconds };
    };
    // Computed at scrape time instead of by a ticking timer, which would keep processes and tests alive.
    new Gauge({
      name: 'workqueue_unfinished_work_seconds',
      help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads.",
      labelNames: ['name'],
      registers: [this.registry],
      collect() {
        for (const name of probes.keys()) this.set({ name }, measure(name).unfinishedSeconds);
      },
    });
    new Gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'How many seconds has the longest running processor for workqueue been running.',
      labelNames: ['name'],
      registers: [this.registry],
      collect() {
        for (const name of probes.keys()) this.set({ name }, measure(name).longestRunningSeconds);
      },
    });

    const requests = this.counter(
      'sluice_cloud_requests_total',
      'Cloud API requests by API, HTTP method, route template and HTTP status',
      ['api', 'method', 'route', 'code'],
    );
    const requestDuration = new Histogram({
      name: 'sluice_cloud_request_duration_seconds',
      help: 'Cloud API request latency by API, HTTP method and route template',
      labelNames: ['api', 'method', 'route'],
      buckets: CLOUD_REQUEST_BUCKETS,
      registers: [this.registry],
    });
    const quotaWait = new Histogram({
      name: 'sluice_cloud_quota_wait_seconds',
      help: 'Time a cloud API call waited for request quota',
      labelNames: ['api'],
      buckets: QUOTA_WAIT_BUCKETS,
      registers: [this.registry],
    });
    const quotaSpent = this.counter(
      'sluice_cloud_quota_spent_total',
      'Cloud API requests per credentials Secret (namespace/name), API, priority and HTTP status: what each key’s request budget was spent on',
      ['credentials', 'api', 'priority', 'code'],
    );
    const quotaRemaining = this.gauge(
      'sluice_cloud_quota_remaining',
      'Requests left in the current cloud API quota window of a credentials Secret’s key (namespace/name)',
      ['credentials', 'api'],
    );
    /** The labels besides `credentials` of each spent series, by credentials: what forget removes. */
    const spentSeries = new Map<string, Map<string, { api: string; priority: string; code: string }>>();
    this.cloud = {
      request(api, method, route, code, seconds) {
        requests.inc({ api, method, route, code: String(code) });
        requestDuration.observe({ api, method, route }, seconds);
      },
      quotaWaited: (api, seconds) => quotaWait.observe({ api }, seconds),
      quotaRemaining: (credentials, api, remaining) => quotaRemaining.set({ credentials, api }, remaining),
      spent: (credentials, api, priority, code) => {
        const labels = { api, priority, code: String(code) };
        quotaSpent.inc({ credentials, ...labels });
        const series = spentSeries.get(credentials) ?? new Map();
        spentSeries.set(credentials, series.set(JSON.stringify(labels), labels));
      },
      forget: (credentials) => {
        for (const labels of spentSeries.get(credentials)?.values() ?? []) {
          quotaSpent.remove({ credentials, ...labels });
          quotaRemaining.remove({ credentials, api: labels.api });
        }
        spentSeries.delete(credentials);
      },
    };
    this.drift = this.driftMetrics();
    this.readinessMetrics();

    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** Registers how to read every key's snapshot ages at scrape time (one probe: the operator's clients). */
  observeSnapshots(probe: () => Iterable<SnapshotAge>): void {
    this.snapshotProbe = probe;
  }

  /** Registers how to read every sluice object's readiness at scrape time (the operator's caches). */
  observeObjects(probe: () => Iterable<ObjectReadiness>): void {
    this.objectsProbe = probe;
  }

  /** Registers how to read what the operator's Secret cache holds at scrape time. */
  observeSecrets(probe: () => { metadata: number; data: number; dataBytes: number }): void {
    this.secretsProbe = probe;
  }

  /** The main event loop ran a timer `seconds` late. */
  eventLoopDelayed(seconds: number): void {
    this.eventLoopDelay.observe(seconds);
  }

  /** Whether this process reconciles now (it leads, or runs without leader election). */
  leading(leads: boolean): void {
    this.leader.set(leads ? 1 : 0);
  }

  /** An Event was recorded about an object of `kind`. */
  eventRecorded(kind: string, type: string, reason: string): void {
    this.events.inc({ kind, type, reason });
  }

  workQueue(name: string): WorkQueueMetrics {
    const labels = { name };
    // Zero-valued series from the start, so rate() and absent() behave before the first event.
    this.queueAdds.inc(labels, 0);
    this.queueRetries.inc(labels, 0);
    this.queueDepth.set(labels, 0);
    return {
      added: () => this.queueAdds.inc(labels),
      depth: (current) => this.queueDepth.set(labels, current),
      retried: () => this.queueRetries.inc(labels),
      queued: (seconds) => this.queueLatency.observe(labels, seconds),
      worked: (seconds) => this.workDuration.observe(labels, seconds),
      observeInFlight: (probe) => {
        const probes = this.inFlightProbes.get(name) ?? new Set();
        this.inFlightProbes.set(name, probes.add(probe));
        return () => probes.delete(probe);
      },
    };
  }

  reconciler(controller: string): ReconcileMetrics {
    for (const result of RECONCILE_RESULTS) this.reconcileTotal.inc({ controller, result }, 0);
    this.reconcileErrors.inc({ controller }, 0);
    this.activeWorkers.set({ controller }, 0);
    return {
      maxConcurrentReconciles: (workers) => this.maxConcurrent.set({ controller }, workers),
      reconcileStarted: () => this.activeWorkers.inc({ controller }),
      reconcileFinished: (result, seconds) => {
        this.activeWorkers.dec({ controller });
        this.reconcileTotal.inc({ controller, result });
        if (result === 'error') this.reconcileErrors.inc({ controller });
        this.reconcileTime.observe({ controller }, seconds);
      },
    };
  }

  private driftMetrics(): DriftMetrics {
    const calls = this.gauge(
      'sluice_drift_cycle_calls',
      'Cloud calls one drift cycle of a credentials Secret’s objects costs, per API (lists once, GETs per object)',
      ['credentials', 'api'],
    );
    const objects = this.gauge(
      'sluice_drift_cycle_objects',
      'Objects drift-checked with a credentials Secret',
      ['credentials'],
    );
    const cycle = this.gauge(
      'sluice_drift_cycle_seconds',
      'How long one drift cycle of a credentials Secret’s objects takes at the share of its key’s quota the ' +
        'other namespaces on the key leave it: the shortest sync interval it allows',
      ['credentials'],
    );
    const paced = this.gauge(
      'sluice_drift_paced_interval_seconds',
      'The shortest interval a credentials Secret’s objects are drift-checked at: the interval the cycle ' +
        'must fit, or longer while their namespace is paced to its fair share of a key other namespaces use',
      ['credentials'],
    );
    const share = this.gauge(
      'sluice_drift_budget_share',
      'Share (0–1) of its key’s request budget a credentials Secret’s drift checks are planned to spend, per API',
      ['credentials', 'api'],
    );
    const interval = this.gauge(
      'sluice_drift_interval_seconds',
      'The sync interval a credentials Secret’s drift cycle must fit (the shortest of its objects)',
      ['credentials'],
    );
    // The APIs seen in a plan, whose series a forgotten Secret leaves.
    const apis = new Set<DriftApi>();
    return {
      planned: (credentials, plan) => {
        for (const api of Object.keys(plan.calls)) apis.add(api);
        for (const api of apis) {
          calls.set({ credentials, api }, plan.calls[api] ?? 0);
          share.set({ credentials, api }, plan.share[api] ?? 0);
        }
        objects.set({ credentials }, plan.objects);
        cycle.set({ credentials }, plan.cycleMs / 1000);
        paced.set({ credentials }, plan.pacedIntervalMs / 1000);
        interval.set({ credentials }, plan.intervalMs / 1000);
      },
      forget: (credentials) => {
        for (const api of apis) for (const gauge of [calls, share]) gauge.remove({ credentials, api });
        for (const gauge of [objects, cycle, interval, paced]) gauge.remove({ credentials });
      },
    };
  }

  /** Gauges computed at scrape time from the probes: no timer, and never a series left behind. */
  private readinessMetrics(): void {
    const snapshots = () => this.snapshotProbe();
    const objects = () => this.objectsProbe();
    const secrets = () => this.secretsProbe();
    new Gauge({
      name: 'sluice_secrets_cached',
      help: 'Secrets the operator holds: by metadata only, or with their data (those sluice objects use)',
      labelNames: ['held'],
      registers: [this.registry],
      collect() {
        const { metadata, data } = secrets();
        this.set({ held: 'metadata' }, metadata);
        this.set({ held: 'data' }, data);
      },
    });
    new Gauge({
      name: 'sluice_secret_data_bytes',
      help: 'Bytes of Secret data the operator holds (of the Secrets sluice objects use)',
      registers: [this.registry],
      collect() {
        this.set(secrets().dataBytes);
      },
    });
    new Gauge({
      name: 'sluice_snapshot_age_seconds',
      help: 'Age of the oldest cloud list of each kind a credentials Secret observes from',
      labelNames: ['credentials', 'list'],
      registers: [this.registry],
      collect() {
        this.reset();
        const ages = [...snapshots()].map(({ credentials, list, ageSeconds }) => ({
          labels: { credentials, list },
          value: ageSeconds,
        }));
        for (const { labels, value } of largestPerLabels(ages)) this.set(labels, value);
      },
    });
    new Gauge({
      name: 'sluice_objects',
      help: 'sluice objects by credentials Secret, kind and Ready status and reason',
      labelNames: ['credentials', 'kind', 'ready', 'reason'],
      registers: [this.registry],
      collect() {
        this.reset();
        // Counted per label set first: a gauge's inc() hashes its labels, once per object would cost a
        // scrape milliseconds per thousand objects on the one event loop.
        const counts = new Map<string, { labels: Record<string, string>; count: number }>();
        for (const { credentials, kind, ready, reason } of objects()) {
          const id = `${credentials}\n${kind}\n${ready}\n${reason}`;
          const entry = counts.get(id) ?? { labels: { credentials, kind, ready, reason }, count: 0 };
          entry.count++;
          counts.set(id, entry);
        }
        for (const { labels, count } of counts.values()) this.set(labels, count);
      },
    });
    new Gauge({
      name: 'sluice_objects_not_ready_oldest_seconds',
      help: 'How long the longest-waiting object not Ready has been so, by credentials Secret, kind and reason',
      labelNames: ['credentials', 'kind', 'reason'],
      registers: [this.registry],
      collect() {
        this.reset();
        const waiting = [...objects()]
          .filter(({ ready }) => ready !== 'True')
          .map(({ credentials, kind, reason, sinceSeconds }) => ({
            labels: { credentials, kind, reason },
            value: sinceSeconds,
          }));
        for (const { labels, value } of largestPerLabels(waiting)) this.set(labels, value);
      },
    });
  }

  private counter<L extends string>(name: string, help: string, labelNames: L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  private gauge<L extends string>(name: string, help: string, labelNames: L[]): Gauge<L> {
    return new Gauge({ name, help, labelNames, registers: [this.registry] });
  }
}

/** The largest value of each label set: the oldest snapshot of a kind, the longest wait of a reason. */
function largestPerLabels<L extends Record<string, string>>(
  samples: readonly { labels: L; value: number }[],
): { labels: L; value: number }[] {
  const largest = new Map<string, { labels: L; value: number }>();
  for (const sample of samples) {
    const key = JSON.stringify(sample.labels);
    if ((largest.get(key)?.value ?? -Infinity) < sample.value) largest.set(key, sample);
  }
  return [...largest.values()];
}

export const noopWorkQueueMetrics: WorkQueueMetrics = {
  added: () => {},
  depth: () => {},
  retried: () => {},
  queued: () => {},
  worked: () => {},
  observeInFlight: () => () => {},
};

export const noopReconcileMetrics: ReconcileMetrics = {
  maxConcurrentReconciles: () => {},
  reconcileStarted: () => {},
  reconcileFinished: () => {},
};
