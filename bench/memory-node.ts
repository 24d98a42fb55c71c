// `npm run bench:memory -- --node [--objects 10000]`: the operator as users run it, the chart's pod on the real
// node with the chart's default resources, while N objects of every kind (as bench:memory applies them) become
// Ready against the emulator on the node's bridge. Reports the container's memory as the kubelet counts it
// (cgroup: working set and RSS, idle, peak and settled), its OOM kills and restarts (both must be 0), and the
// wall time. The node's test runs the same code at a size CI affords.
import { CoreV1Api, type V1ContainerStateTerminated } from '@kubernetes/client-node';
import { parseArgs } from 'node:util';
import {
  containerMemory,
  operatorPids,
  podReady,
  RELEASE_NAMESPACE,
  startChartOnNode,
  type ChartOnNode,
  type ContainerMemory,
} from '../tools/cluster/chart-on-node.ts';
import {
  applyAll,
  benchObjects,
  clusterOf,
  createNamespace,
  createUnrelatedSecrets,
  figure,
  printTable,
  ReadyTracker,
  sleep,
  writeResult,
  type Figure,
  type Mix,
} from './harness.ts';

export interface NodeMemoryOptions {
  objects: number;
  mix?: Mix;
  /** Secrets of `unrelatedSecretKib` KiB no object uses, made before the operator starts (its first list). */
  unrelatedSecrets?: number;
  unrelatedSecretKib?: number;
  /** Seconds to wait before idle and after all are Ready: V8 gives a burst's garbage back after about 30 s. */
  settleS?: number;
  timeoutS?: number;
  log?: (msg: string) => void;
}

export interface NodeMemoryResult {
  objects: number;
  unrelatedSecrets: number;
  unrelatedSecretKib: number;
  /** The container's memory limit (the chart's default), in bytes. */
  limit: number;
  idle: ContainerMemory;
  /** The highest of each figure sampled every 250 ms from the first create until settled. */
  peak: { workingSet: number; rss: number; processRss: number; maxUsage: number };
  settled: ContainerMemory;
  oomKills: number;
  restarts: number;
  /** Why the container last ended, and the pod's Warning events (a failed probe, a kill): empty with no restart. */
  restartCauses: string[];
  /** From the first create until every object was Ready. */
  readyMs: number;
}

/**
 * Installs the chart (quota off on both sides, as bench:memory runs, so memory and not the quota is measured)
 * and measures the pod while `objects` become Ready. `chart` is a node cluster the release is not installed in.
 */
export async function measureMemoryOnNode(
  chart: ChartOnNode,
  opts: NodeMemoryOptions,
): Promise<NodeMemoryResult> {
  const settleMs = (opts.settleS ?? 60) * 1000;
  await chart.core.createNamespace({ body: { metadata: { name: RELEASE_NAMESPACE } } });
  const unrelatedSecrets = opts.unrelatedSecrets ?? 0;
  const unrelatedSecretKib = opts.unrelatedSecretKib ?? 1023;
  if (unrelatedSecrets > 0) {
    // A tenant's namespace full of Secrets sluice never uses, there before the pod's first list.
    const cluster = clusterOf(chart.cp);
    await createUnrelatedSecrets(
      cluster,
      await createNamespace(cluster, 'unrelated'),
      unrelatedSecrets,
      unrelatedSecretKib,
    );
    opts.log?.(`${unrelatedSecrets} unrelated Secrets of ${unrelatedSecretKib} KiB made`);
  }
  chart.helm('install', {
    operator: { managementQuota: 'off', alertingQuota: 'off', logLevel: 'warn' },
  });
  const core = chart.kc.makeApiClient(CoreV1Api);
  const pod = async () => (await chart.operatorPods())[0];
  const deadline = Date.now() + 300_000;
  while (!podReady(await pod())) {
    if (Date.now() > deadline) throw new Error('the operator pod was not Ready within 300 s');
    await sleep(500);
  }
  opts.log?.('operator pod Ready');
  const sample = () => {
    const [pid] = operatorPids();
    return pid ? containerMemory(pid) : undefined;
  };
  await sleep(settleMs);
  const idle = sample()!;

  const peak = { workingSet: 0, rss: 0, processRss: 0, maxUsage: 0 };
  let oomKills = 0;
  const sampler = setInterval(() => {
    const now = (() => {
      try {
        return sample();
      } catch {
        return undefined; // the process is gone (an OOM kill, say): its restart count tells
      }
    })();
    if (!now) return;
    for (const key of Object.keys(peak) as (keyof typeof peak)[]) peak[key] = Math.max(peak[key], now[key]);
    oomKills = Math.max(oomKills, now.oomKills);
  }, 250);
  try {
    const cluster = clusterOf(chart.cp);
    const namespace = await createNamespace(cluster, 'memory');
    const tracker = new ReadyTracker(cluster, namespace);
    await tracker.ready();
    const started = Date.now();
    await applyAll(cluster, namespace, benchObjects(opts.objects, opts.mix ?? 'all'));
    opts.log?.(`${opts.objects} objects applied in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    await tracker.waitFor(opts.objects, (opts.timeoutS ?? 1800) * 1000);
    const readyMs = Date.now() - started;
    await tracker.stop();
    opts.log?.(`${opts.objects} objects Ready in ${(readyMs / 1000).toFixed(0)} s`);
    await sleep(settleMs);
    const settled = sample()!;
    const podName = (await pod())!.metadata!.name!;
    const status = (await core.readNamespacedPod({ name: podName, namespace: RELEASE_NAMESPACE })).status
      ?.containerStatuses?.[0];
    const oomKilled = status?.lastState?.terminated?.reason === 'OOMKilled' ? 1 : 0;
    const restarts = status?.restartCount ?? 0;
    return {
      objects: opts.objects,
      unrelatedSecrets,
      unrelatedSecretKib,
      limit: settled.limit,
      idle,
      peak,
      settled,
      oomKills: Math.max(oomKills, settled.oomKills, oomKilled),
      restarts,
      restartCauses: restarts > 0 ? await restartCauses(core, podName, status?.lastState?.terminated) : [],
      readyMs,
    };
  } finally {
    clearInterval(sampler);
  }
}

/** What ended the container last (reason, exit code) and the kubelet's Warning events about the pod. */
async function restartCauses(
  core: CoreV1Api,
  podName: string,
  terminated: V1ContainerStateTerminated | undefined,
): Promise<string[]> {
  const events = await core.listNamespacedEvent({
    namespace: RELEASE_NAMESPACE,
    fieldSelector: `involvedObject.name=${podName},type=Warning`,
  });
  return [
    `last ended: ${terminated?.reason ?? 'unknown'} (exit ${terminated?.exitCode ?? '?'})`,
    ...events.items.map((event) => `${event.reason}: ${event.message ?? ''} (×${event.count ?? 1})`),
  ];
}

/** The result as the benchmarks' figures (MiB). */
export function nodeMemoryFigures(result: NodeMemoryResult): Figure[] {
  const beside = result.unrelatedSecrets
    ? `, ${result.unrelatedSecrets} unrelated Secrets of ${result.unrelatedSecretKib} KiB`
    : '';
  const name = `memory (chart pod, ${result.objects} objects${beside})`;
  const mib = (bytes: number) => bytes / 1048576;
  const limit = mib(result.limit);
  return [
    figure(name, 'container memory limit', limit, { unit: 'MiB' }),
    figure(name, 'working set idle, 0 objects', mib(result.idle.workingSet), { unit: 'MiB' }),
    figure(name, 'RSS idle (container)', mib(result.idle.rss), { unit: 'MiB' }),
    figure(name, 'process RSS idle', mib(result.idle.processRss), { unit: 'MiB' }),
    figure(name, 'working set peak', mib(result.peak.workingSet), { unit: 'MiB', max: limit }),
    figure(name, 'RSS peak (container)', mib(result.peak.rss), { unit: 'MiB', max: limit }),
    figure(name, 'process RSS peak', mib(result.peak.processRss), { unit: 'MiB' }),
    figure(name, 'cgroup max usage (page cache included)', mib(result.peak.maxUsage), { unit: 'MiB' }),
    figure(name, 'working set settled', mib(result.settled.workingSet), { unit: 'MiB', max: limit }),
    figure(name, 'RSS settled (container)', mib(result.settled.rss), { unit: 'MiB' }),
    figure(name, 'process RSS settled', mib(result.settled.processRss), { unit: 'MiB' }),
    figure(name, 'OOM kills', result.oomKills, { max: 0 }),
    figure(name, 'restarts', result.restarts, { max: 0 }),
    figure(name, 'all Ready after the first create', result.readyMs / 1000, { unit: 's' }),
  ];
}

/** The script: its own node cluster, the table, bench/results/memory-node.json. */
export async function mainOnNode(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      node: { type: 'boolean' },
      objects: { type: 'string', default: '10000' },
      mix: { type: 'string', default: 'all' },
      'settle-s': { type: 'string', default: '60' },
      'timeout-s': { type: 'string', default: '1800' },
      'unrelated-secrets': { type: 'string', default: '500' },
      'unrelated-secret-kib': { type: 'string', default: '1023' },
    },
  });
  const started = Date.now();
  const log = (msg: string) => console.log(`[memory --node] ${msg}`);
  // Quota off on the cloud's side too: memory, not the quota, is measured.
  const chart = await startChartOnNode({ rateLimit: 'off', transitionMs: 0, log });
  try {
    const result = await measureMemoryOnNode(chart, {
      objects: Number(values.objects),
      mix: values.mix as Mix,
      settleS: Number(values['settle-s']),
      timeoutS: Number(values['timeout-s']),
      unrelatedSecrets: Number(values['unrelated-secrets']),
      unrelatedSecretKib: Number(values['unrelated-secret-kib']),
      log,
    });
    const figures = nodeMemoryFigures(result);
    figures.push(
      figure('memory (chart pod)', 'wall time of the run', (Date.now() - started) / 1000, { unit: 's' }),
    );
    printTable(figures);
    writeResult('memory-node', values, figures);
  } finally {
    await chart.stop();
  }
}
