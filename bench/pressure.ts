// `npm run bench:pressure [-- --settings default,250m,100m --objects 1000,10000]`: the chart's pod on the real
// node under a burst, at the chart's resources and with `resources.limits.cpu` lowered (a CPU limit throttles the
// process: its event loop, its probes' answers and its Lease renewals wait). For each setting and size, N objects
// of every kind applied at once, quota off on both sides (the burst, not the quota, is the load); reports the
// container's restarts and why (liveness probe, Lease loss, OOM kill, read from the pod's status, its container's
// last state, its previous log and its Events), the kubelet's probe failures, the largest gap between two renewals
// of the Lease, the event loop's p99 delay (the operator's `sluice_event_loop_delay_seconds`) and the time until
// every object is Ready. The target at every setting: no restart. The node's test runs the same code at 100m and a
// size CI affords.
import { parseArgs } from 'node:util';
import { CoordinationV1Api, Watch, type CoreV1Event, type V1Lease } from '@kubernetes/client-node';
import {
  chartOn,
  podReady,
  RELEASE,
  RELEASE_NAMESPACE,
  startNodeCluster,
  type ChartOnNode,
} from '../tools/cluster/chart-on-node.ts';
import { nodeUnavailableReason } from '../tools/cluster/node.ts';
import {
  applyAll,
  benchObjects,
  clusterOf,
  createNamespace,
  figure,
  isMain,
  printTable,
  ReadyTracker,
  sleep,
  writeResult,
  type Benchmark,
  type Figure,
  type Mix,
} from './harness.ts';

/** The setting that leaves the chart's resources as they are. */
export const CHART_DEFAULTS = 'default';

/** The histogram of the operator's event-loop delay (its metrics port). */
export const EVENT_LOOP_DELAY = 'sluice_event_loop_delay_seconds';

export interface PressureOptions {
  objects: number;
  /** `resources.limits.cpu` of the chart (`250m`), or undefined for the chart's defaults. */
  cpuLimit?: string | undefined;
  mix?: Mix;
  /** How long the objects may take to be Ready; the figures are reported either way. */
  timeoutS?: number;
  /** How long the pod is still watched once every object is Ready (a probe fails on the load's tail too). */
  afterS?: number;
  log?: (msg: string) => void;
}

/** One end of the operator's container, as its status and log told it when the kubelet restarted it. */
interface Termination {
  reason: string;
  exitCode: number;
  leaseLost: boolean;
}

export interface PressureResult {
  setting: string;
  objects: number;
  restarts: number;
  /** Why each restart happened, empty with none. */
  restartCauses: string[];
  livenessFailures: number;
  readinessFailures: number;
  /** The largest time between two renewals of the Lease seen during the burst. */
  maxRenewGapMs: number;
  /** The worst p99 event-loop delay of the operator's processes, or undefined where it reports none. */
  eventLoopP99S: number | undefined;
  /** Objects Ready by the end, and from the first create until all were (undefined: not all were). */
  ready: number;
  readyMs: number | undefined;
}

/**
 * Installs the chart on `chart`'s node (no release there yet) with `cpuLimit`, applies the burst and watches the
 * pod, its Lease and its metrics until every object is Ready and `afterS` more.
 */
export async function measurePressure(chart: ChartOnNode, opts: PressureOptions): Promise<PressureResult> {
  const setting = opts.cpuLimit ?? CHART_DEFAULTS;
  const log = (msg: string) => opts.log?.(`${setting}, ${opts.objects} objects: ${msg}`);
  await chart.core.createNamespace({ body: { metadata: { name: RELEASE_NAMESPACE } } });
  chart.helm('install', {
    operator: { managementQuota: 'off', alertingQuota: 'off', logLevel: 'warn' },
    ...(opts.cpuLimit ? { resources: { limits: { cpu: opts.cpuLimit } } } : {}),
  });
  const deadline = Date.now() + 300_000;
  let pod = (await chart.operatorPods())[0];
  while (!podReady(pod)) {
    if (Date.now() > deadline) throw new Error('the operator pod was not Ready within 300 s');
    await sleep(500);
    pod = (await chart.operatorPods())[0];
  }
  const podName = pod!.metadata!.name!;
  log(`pod ${podName} Ready`);

  const lease = await watchLease(chart);
  const delay = scrapeEventLoopDelay(pod!.status!.podIP!);
  const restarts = watchRestarts(chart, podName);
  const cluster = clusterOf(chart.cp);
  let ready = 0;
  let readyMs: number | undefined;
  try {
    const namespace = await createNamespace(cluster, 'pressure');
    const tracker = new ReadyTracker(cluster, namespace);
    try {
      await tracker.ready();
      const started = Date.now();
      const objects = benchObjects(opts.objects, opts.mix ?? 'all');
      // At once: every create in flight, the burst as one batch.
      await applyAll(cluster, namespace, objects, undefined, objects.length);
      log(`applied in ${((Date.now() - started) / 1000).toFixed(0)} s`);
      try {
        await tracker.waitFor(objects.length, (opts.timeoutS ?? 1800) * 1000);
        readyMs = Date.now() - started;
        log(`all Ready in ${(readyMs / 1000).toFixed(0)} s`);
      } catch (error) {
        log(String(error));
      }
      ready = tracker.readyAt.size;
    } finally {
      await tracker.stop();
    }
    await sleep((opts.afterS ?? 30) * 1000);
  } finally {
    lease.stop();
    delay.stop();
    restarts.stop();
  }
  const events = await chart.core.listNamespacedEvent({
    namespace: RELEASE_NAMESPACE,
    fieldSelector: `involvedObject.name=${podName}`,
  });
  const status = (await chart.core.readNamespacedPod({ name: podName, namespace: RELEASE_NAMESPACE })).status
    ?.containerStatuses?.[0];
  const restartCount = status?.restartCount ?? 0;
  const terminations = await restarts.terminations();
  return {
    setting,
    objects: opts.objects,
    restarts: restartCount,
    restartCauses: restartCount > 0 ? restartCauses(restartCount, terminations, events.items) : [],
    livenessFailures: probeFailures(events.items, 'Liveness'),
    readinessFailures: probeFailures(events.items, 'Readiness'),
    maxRenewGapMs: lease.maxGapMs(),
    eventLoopP99S: delay.worstP99(),
    ready,
    readyMs,
  };
}

/** The kubelet's Unhealthy events of one probe, counted with their repeats. */
function probeFailures(events: CoreV1Event[], probe: 'Liveness' | 'Readiness'): number {
  return events
    .filter((event) => event.reason === 'Unhealthy' && event.message?.startsWith(`${probe} probe failed`))
    .reduce((sum, event) => sum + (event.count ?? 1), 0);
}

/**
 * Each restart's cause: an OOM kill or a Lease loss as the container's end says, else the kubelet's kill after
 * a failed liveness probe as its Killing events say, else the end as it was.
 */
function restartCauses(restarts: number, terminations: Termination[], events: CoreV1Event[]): string[] {
  let livenessKills = events
    .filter((event) => event.reason === 'Killing' && /liveness/i.test(event.message ?? ''))
    .reduce((sum, event) => sum + (event.count ?? 1), 0);
  const causes = terminations.map((end) => {
    if (end.reason === 'OOMKilled') return 'OOM kill';
    if (end.leaseLost) return `Lease lost (exit ${end.exitCode})`;
    if (livenessKills > 0) {
      livenessKills--;
      return `liveness probe (${end.reason}, exit ${end.exitCode})`;
    }
    return `${end.reason} (exit ${end.exitCode})`;
  });
  // Restarts the watch did not see end (too close together): only the count is known.
  for (let i = causes.length; i < restarts; i++) causes.push('not seen');
  const counted = new Map<string, number>();
  for (const cause of causes) counted.set(cause, (counted.get(cause) ?? 0) + 1);
  return [...counted].map(([cause, n]) => (n > 1 ? `${cause} ×${n}` : cause));
}

/** Every end of the pod's container from now on (status polled each second), with its log's last word. */
function watchRestarts(chart: ChartOnNode, podName: string) {
  const ends: Promise<Termination>[] = [];
  let seen: number | undefined;
  let running = true;
  const polling = (async () => {
    while (running) {
      const status = await chart.core
        .readNamespacedPod({ name: podName, namespace: RELEASE_NAMESPACE })
        .then((pod) => pod.status?.containerStatuses?.[0])
        .catch(() => undefined);
      const count = status?.restartCount;
      if (count !== undefined) {
        if (seen !== undefined && count > seen) {
          const terminated = status?.lastState?.terminated;
          ends.push(
            chart.core
              .readNamespacedPodLog({
                name: podName,
                namespace: RELEASE_NAMESPACE,
                previous: true,
                tailLines: 50,
              })
              .catch(() => '')
              .then((text) => ({
                reason: terminated?.reason ?? 'unknown',
                exitCode: terminated?.exitCode ?? NaN,
                leaseLost: /lost leadership/.test(text),
              })),
          );
        }
        seen = count;
      }
      await sleep(1000);
    }
  })();
  return {
    stop: () => void (running = false),
    terminations: async () => {
      await polling;
      return Promise.all(ends);
    },
  };
}

/**
 * The release's Lease once it exists: a pod is Ready as a standby before it has campaigned, so the Lease may
 * not be there yet when the pod is.
 */
async function firstLease(chart: ChartOnNode): Promise<V1Lease> {
  const leases = chart.kc.makeApiClient(CoordinationV1Api);
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await leases.readNamespacedLease({ name: RELEASE, namespace: RELEASE_NAMESPACE });
    } catch (error) {
      if ((error as { code?: number }).code !== 404 || Date.now() > deadline) throw error;
      await sleep(200);
    }
  }
}

/** The Lease watched from now on: the largest time between two renewals (a change of holder included). */
async function watchLease(chart: ChartOnNode) {
  let last = renewedAt(await firstLease(chart));
  let maxGapMs = 0;
  let running = true;
  let abort: (() => void) | undefined;
  const onLease = (lease: V1Lease) => {
    const at = renewedAt(lease);
    if (at === undefined || (last !== undefined && at <= last)) return;
    if (last !== undefined) maxGapMs = Math.max(maxGapMs, at - last);
    last = at;
  };
  // A watch ends now and then (the apiserver's timeout): it is opened again while the burst lasts.
  const open = async () => {
    if (!running) return;
    const request = await new Watch(chart.kc).watch(
      `/apis/coordination.k8s.io/v1/namespaces/${RELEASE_NAMESPACE}/leases`,
      { fieldSelector: `metadata.name=${RELEASE}` },
      (_type, lease: V1Lease) => onLease(lease),
      () => void open().catch(() => setTimeout(() => void open(), 1000)),
    );
    abort = () => request.abort();
  };
  await open();
  return {
    stop: () => {
      running = false;
      abort?.();
    },
    /** Up to now, counting the time since the last renewal too: a Lease no longer renewed is a gap. */
    maxGapMs: () => Math.max(maxGapMs, last === undefined ? 0 : Date.now() - last),
  };
}

/** When the Lease was last renewed (a watch gives the timestamp as a string, a read as a Date). */
function renewedAt(lease: V1Lease): number | undefined {
  const at = lease.spec?.renewTime;
  return at === undefined ? undefined : new Date(at as Date | string).getTime();
}

/**
 * The operator's event-loop delay, scraped every 5 s from its metrics port: the p99 of each process's histogram
 * (a restart starts a new one), the worst of them reported.
 */
function scrapeEventLoopDelay(podIP: string) {
  const lives: number[] = [];
  let current: { count: number; p99: number } | undefined;
  let running = true;
  const scrape = async () => {
    const text = await fetch(`http://${podIP}:8080/metrics`, { signal: AbortSignal.timeout(3000) })
      .then((response) => response.text())
      .catch(() => undefined);
    const now = text === undefined ? undefined : histogramP99(text, EVENT_LOOP_DELAY);
    if (!now) return;
    if (current && now.count < current.count) lives.push(current.p99);
    current = now;
  };
  void (async () => {
    while (running) {
      await scrape();
      await sleep(5000);
    }
  })();
  return {
    stop: () => void (running = false),
    worstP99: () => {
      const all = [...lives, ...(current ? [current.p99] : [])];
      return all.length > 0 ? Math.max(...all) : undefined;
    },
  };
}

/**
 * The p99 of a Prometheus histogram in a scrape (the upper bound of the first bucket holding 99 % of the
 * observations), or its `quantile="0.99"` line if it is a summary; undefined when the scrape has neither.
 */
export function histogramP99(text: string, name: string): { count: number; p99: number } | undefined {
  const value = (line: string) => Number(line.slice(line.lastIndexOf(' ') + 1));
  const lines = text.split('\n');
  const count = lines
    .filter((line) => line.startsWith(`${name}_count`))
    .reduce((sum, l) => sum + value(l), 0);
  const quantile = lines.find((line) => line.startsWith(`${name}{`) && line.includes('quantile="0.99"'));
  if (quantile) return { count, p99: value(quantile) };
  const buckets = new Map<number, number>();
  for (const line of lines) {
    if (!line.startsWith(`${name}_bucket{`)) continue;
    const le = /le="([^"]+)"/.exec(line)?.[1];
    if (le === undefined) continue;
    const bound = le === '+Inf' ? Infinity : Number(le);
    buckets.set(bound, (buckets.get(bound) ?? 0) + value(line));
  }
  if (buckets.size === 0 || count === 0) return undefined;
  const [p99] = [...buckets].sort(([a], [b]) => a - b).find(([, cumulative]) => cumulative >= 0.99 * count)!;
  return { count, p99 };
}

/** The result as the benchmarks' figures. */
export function pressureFigures(result: PressureResult): Figure[] {
  const name = `pressure (chart pod, cpu limit ${result.setting}, ${result.objects} objects)`;
  return [
    figure(name, 'restarts', result.restarts, { max: 0 }),
    figure(name, 'liveness probe failures', result.livenessFailures),
    figure(name, 'readiness probe failures', result.readinessFailures),
    figure(name, 'largest gap between Lease renewals', result.maxRenewGapMs / 1000, { unit: 's' }),
    ...(result.eventLoopP99S === undefined
      ? []
      : [figure(name, 'event-loop delay p99', result.eventLoopP99S * 1000, { unit: 'ms' })]),
    figure(name, 'objects Ready', result.ready),
    ...(result.readyMs === undefined
      ? []
      : [figure(name, 'all Ready after the first create', result.readyMs / 1000, { unit: 's' })]),
  ];
}

/** One line per setting: what the issue asks of each. */
export function printPressureTable(results: readonly PressureResult[]): void {
  const header = [
    'cpu limit',
    'objects',
    'restarts (why)',
    'Lease gap',
    'loop p99',
    'probe failures',
    'all Ready',
  ];
  const rows = results.map((r) => [
    r.setting,
    String(r.objects),
    r.restarts === 0 ? '0' : `${r.restarts} (${r.restartCauses.join('; ')})`,
    `${(r.maxRenewGapMs / 1000).toFixed(1)} s`,
    r.eventLoopP99S === undefined ? 'n/a' : `${(r.eventLoopP99S * 1000).toFixed(0)} ms`,
    `liveness ${r.livenessFailures}, readiness ${r.readinessFailures}`,
    r.readyMs === undefined ? `${r.ready} of ${r.objects} Ready` : `${(r.readyMs / 1000).toFixed(0)} s`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  for (const row of [header, ...rows]) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  '));
}

const list = (value: string | undefined) => (value ?? '').split(',').filter(Boolean);

/**
 * Every size at every setting on one node cluster of its own (a node cannot join a running control plane), a
 * release after another, each cleared before the next.
 */
async function runPressure(args: Record<string, string>): Promise<Figure[]> {
  const unavailable = nodeUnavailableReason();
  if (unavailable) {
    console.log(`pressure: skipped, ${unavailable}`);
    return [];
  }
  const log = (msg: string) => console.log(`[pressure] ${msg}`);
  const cluster = await startNodeCluster({ log });
  const results: PressureResult[] = [];
  try {
    for (const objects of list(args.objects).map(Number)) {
      for (const setting of list(args.settings)) {
        const chart = await chartOn(cluster, { rateLimit: 'off', transitionMs: 0 });
        try {
          results.push(
            await measurePressure(chart, {
              objects,
              cpuLimit: setting === CHART_DEFAULTS ? undefined : setting,
              mix: args.mix as Mix,
              timeoutS: Number(args['timeout-s']),
              afterS: Number(args['after-s']),
              log,
            }),
          );
        } finally {
          await chart.clear();
          await chart.stop();
        }
      }
    }
  } finally {
    await cluster.cp.stop();
  }
  printPressureTable(results);
  return results.flatMap(pressureFigures);
}

/** In `npm run bench` the control plane it is given stays idle: this one needs a node. */
export const pressure: Benchmark = {
  name: 'pressure',
  flags: {
    settings: `${CHART_DEFAULTS},250m,100m`,
    objects: '1000,10000',
    mix: 'all',
    'timeout-s': '1800',
    'after-s': '30',
  },
  run: (_cluster, args) => runPressure(args),
};

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: Object.fromEntries(
      Object.entries(pressure.flags).map(([flag, value]) => [
        flag,
        { type: 'string' as const, default: value },
      ]),
    ),
  });
  const args = values as Record<string, string>;
  const figures = await runPressure(args);
  printTable(figures);
  writeResult(pressure.name, args, figures);
}
