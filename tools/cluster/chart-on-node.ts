// sluice as users run it, on the local control plane's real node: the image built from the project's Dockerfile
// (tools/cluster/image.ts), loaded into the node's containerd, and `helm install` of charts/sluice with nothing
// set but the image and the cloud credentials. The cloud is the emulator, listening on every address: the pod
// reaches it on the node's bridge, and its call log answers loopback callers only. Shared by the node's tests
// (one node cluster for the run, a release after another: test/harness/node-global-setup.ts),
// `bench:memory -- --node`, `bench:pressure` and `npm run demo -- --node`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Pod,
} from '@kubernetes/client-node';
import { startEmulator, type Emulator, type RateLimitOption } from '../../src/emulator/server.ts';
import type { CallRecord } from '../../src/emulator/call-log.ts';
import { KINDS } from '../../src/kinds/index.ts';
import { releaseFinalizers } from '../../src/uninstall/release.ts';
import { startControlPlane, type ControlPlane } from './control-plane.ts';
import { operatorImage, type OperatorImage } from './image.ts';
import { chartCredentials, chartDir, helmBin, helmWithValues, run, runAsync } from './install.ts';
import { NODE_NETWORK, pidsWithArgument } from './node.ts';
import { node24 } from './node24.ts';

export const RELEASE = 'sluice';
export const RELEASE_NAMESPACE = 'sluice-system';

export interface ChartOnNodeOptions {
  /** Also write the admin kubeconfig here. */
  kubeconfigPath?: string;
  log?: (msg: string) => void;
  /** The emulator's management limit per key: default the real 10 requests / 10 s; `'off'` lifts both. */
  rateLimit?: RateLimitOption;
  /** The emulator's time per state step (default 500 ms). */
  transitionMs?: number;
}

/** A control plane with its one node, the operator's image loaded into the node: what a release runs on. */
export interface NodeCluster {
  image: OperatorImage;
  cp: ControlPlane;
  /** The node's name (pods' `spec.nodeName`). */
  nodeName: string;
}

/** What another process needs to use a node cluster it did not start (JSON: the node project's global setup). */
export interface NodeClusterHandle {
  image: OperatorImage;
  kubeconfig: string;
  kubeconfigYaml: string;
  server: string;
  nodeName: string;
}

/** The namespaces a node cluster starts with: every other one belongs to a release's run and goes with it. */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export interface ChartOnNode extends NodeCluster {
  emulator: Emulator;
  kc: KubeConfig;
  core: CoreV1Api;
  /** `helm install|upgrade` of the release with only the image and the credentials set, besides `values`. */
  helm(command: 'install' | 'upgrade', values?: Record<string, unknown>): string;
  /** `helm uninstall` of the release, waiting for its hooks and resources to go. */
  uninstall(): string;
  /** The release's pods that are not being deleted, oldest first. */
  operatorPods(): Promise<V1Pod[]>;
  /** The Lease's holder identity (`<pod>_<uuid>`), or '' when released or not yet taken. */
  leaseHolder(): Promise<string>;
  /** Every call the emulator logged. */
  calls(): Promise<CallRecord[]>;
  /**
   * Leaves the node cluster as it started: the release uninstalled (its hook takes sluice's finalizers off),
   * every namespace made since deleted and gone, the node schedulable. The CRDs stay (the chart keeps them):
   * a later release of the same name takes them over.
   */
  clear(): Promise<void>;
  /** Stops the emulator, and the node cluster when this started it. */
  stop(): Promise<void>;
}

/**
 * Builds (or takes from the cache) the image while the control plane and its node start, then loads it into
 * the node: the build mostly waits on buildah's children, the start on the kubelet.
 */
export async function startNodeCluster(
  opts: Pick<ChartOnNodeOptions, 'kubeconfigPath' | 'log'> & {
    /** A build already under way, to use instead of starting one. */
    image?: Promise<OperatorImage>;
  } = {},
): Promise<NodeCluster> {
  const building = opts.image ?? operatorImage({ node: node24(), ...(opts.log ? { log: opts.log } : {}) });
  // Settled either way before this returns; a failure is reported below, after the control plane's.
  building.catch(() => undefined);
  // The chart installs the CRDs itself.
  let cp: ControlPlane;
  try {
    cp = await startControlPlane({
      node: true,
      crdDir: false,
      ...(opts.kubeconfigPath ? { kubeconfigPath: opts.kubeconfigPath } : {}),
      ...(opts.log ? { log: opts.log } : {}),
    });
  } catch (error) {
    await building.catch(() => undefined);
    throw error;
  }
  try {
    const image = await building;
    opts.log?.(
      `image ${image.repository}:${image.tag} ${image.built ? 'built' : 'from the cache'} in ${(image.ms / 1000).toFixed(1)} s`,
    );
    cp.node!.loadImage(image.archive, `${image.repository}:${image.tag}`);
    return { image, cp, nodeName: cp.node!.name };
  } catch (error) {
    await cp.stop();
    throw error;
  }
}

/** The node cluster a handle names, as this process uses it: stopping it is its owner's business. */
export function nodeClusterOf(handle: NodeClusterHandle): NodeCluster {
  const { image, kubeconfig, kubeconfigYaml, server, nodeName } = handle;
  const cp: ControlPlane = {
    kind: 'existing',
    kubeconfig,
    kubeconfigYaml,
    server,
    startupMs: 0,
    stop: async () => {},
  };
  return { image, cp, nodeName };
}

/** What a process that started a node cluster hands to others. */
export function nodeClusterHandle(cluster: NodeCluster): NodeClusterHandle {
  const { image, cp, nodeName } = cluster;
  return { image, kubeconfig: cp.kubeconfig, kubeconfigYaml: cp.kubeconfigYaml, server: cp.server, nodeName };
}

/** Builds (or takes from the cache) the image, starts the control plane with its node and the emulator. */
export async function startChartOnNode(opts: ChartOnNodeOptions = {}): Promise<ChartOnNode> {
  const cluster = await startNodeCluster(opts);
  try {
    const chart = await chartOn(cluster, opts);
    return {
      ...chart,
      stop: async () => {
        await cluster.cp.stop();
        await chart.stop();
      },
    };
  } catch (error) {
    await cluster.cp.stop();
    throw error;
  }
}

/**
 * The release on a running node cluster, with an emulator of its own listening on the node's bridge. `stop()`
 * stops the emulator only; `clear()` leaves the cluster to the next release.
 */
export async function chartOn(
  cluster: NodeCluster,
  opts: Pick<ChartOnNodeOptions, 'rateLimit' | 'transitionMs' | 'log'> = {},
): Promise<ChartOnNode> {
  const { image, cp } = cluster;
  const emulator = await startEmulator({
    host: '0.0.0.0',
    port: 0,
    transitionMs: opts.transitionMs ?? 500,
    logger: false,
    ...(opts.rateLimit ? { rateLimit: opts.rateLimit } : {}),
  });
  const kc = new KubeConfig();
  kc.loadFromString(cp.kubeconfigYaml);
  const core = kc.makeApiClient(CoreV1Api);
  const coordination = kc.makeApiClient(CoordinationV1Api);
  return {
    ...cluster,
    emulator,
    kc,
    core,
    helm: (command, values = {}) =>
      helmWithValues([command, RELEASE, chartDir, '--kubeconfig', cp.kubeconfig, '-n', RELEASE_NAMESPACE], {
        image: { repository: image.repository, tag: image.tag, pullPolicy: 'Never' },
        credentials: chartCredentials({ ...emulator, url: `http://${NODE_NETWORK.nodeIp}:${emulator.port}` }),
        ...values,
      }),
    uninstall: () => run(helmBin(), uninstallArgs(cp.kubeconfig, '5m')),
    operatorPods: async () => {
      const pods = await core.listNamespacedPod({
        namespace: RELEASE_NAMESPACE,
        labelSelector: `app.kubernetes.io/instance=${RELEASE}`,
      });
      return pods.items
        .filter((pod) => !pod.metadata?.deletionTimestamp)
        .sort((a, b) => +a.metadata!.creationTimestamp! - +b.metadata!.creationTimestamp!);
    },
    leaseHolder: async () =>
      (await coordination.readNamespacedLease({ name: RELEASE, namespace: RELEASE_NAMESPACE })).spec
        ?.holderIdentity ?? '',
    calls: async () =>
      ((await (await fetch(`${emulator.url}/_emulator/calls`)).json()) as { calls: CallRecord[] }).calls,
    clear: () => clearRelease(cluster, opts.log),
    stop: () => emulator.stop(),
  };
}

/** `helm uninstall` of the release, waiting for its pre-delete hook and its resources to go. */
function uninstallArgs(kubeconfig: string, timeout: string): string[] {
  return [
    'uninstall',
    RELEASE,
    '--kubeconfig',
    kubeconfig,
    '-n',
    RELEASE_NAMESPACE,
    '--wait',
    '--timeout',
    timeout,
  ];
}

/**
 * Leaves a node cluster as it started (`ChartOnNode.clear()`): the release uninstalled if there is one, the node
 * uncordoned, every namespace made since deleted and gone. sluice's finalizers are taken off here, by the code
 * the chart's pre-delete hook runs (`sluice uninstall`), and the release then uninstalled without its hooks: the
 * hook's Job runs under the release's CPU limit (100m in the pressure test: 21-32 s for 1,000 objects), and this
 * process has the machine's cores. Every step is tried, and each one's time logged: namespaces deleted after a
 * failed uninstall may still go (or be named).
 */
export async function clearRelease(cluster: NodeCluster, log?: (msg: string) => void): Promise<void> {
  const { cp } = cluster;
  const kc = new KubeConfig();
  kc.loadFromString(cp.kubeconfigYaml);
  const core = kc.makeApiClient(CoreV1Api);
  const failures: unknown[] = [];
  const took: string[] = [];
  const attempt = async (what: string, step: () => unknown) => {
    const started = Date.now();
    try {
      await step();
    } catch (error) {
      failures.push(error);
    }
    took.push(`${what} ${((Date.now() - started) / 1000).toFixed(1)} s`);
  };
  // Timed apart: the operator stopped and its finalizers released, then Helm's uninstall of the rest.
  let released = false;
  await attempt('finalizers', async () => {
    const releases = await runAsync(helmBin(), [
      'list',
      '-a',
      '-q',
      '--kubeconfig',
      cp.kubeconfig,
      '-n',
      RELEASE_NAMESPACE,
    ]);
    if (!releases.split('\n').includes(RELEASE)) return;
    await releaseFinalizers({
      kubeConfig: kc,
      kinds: KINDS,
      operator: { namespace: RELEASE_NAMESPACE, name: RELEASE },
      log: () => undefined,
    });
    released = true;
  });
  if (released) {
    await attempt('uninstall', () =>
      runAsync(helmBin(), [...uninstallArgs(cp.kubeconfig, '2m'), '--no-hooks']),
    );
  }
  await attempt('uncordon', () => uncordon(core, cluster.nodeName));
  await attempt('namespaces', () => deleteNamespaces(core, 180_000));
  if (failures.length > 0) throw new AggregateError(failures, 'the release was not cleared from the node');
  log?.(`release uninstalled, its namespaces gone (${took.join(', ')})`);
}

/** Makes the node schedulable again (a drain cordons it). */
export async function uncordon(core: CoreV1Api, nodeName: string): Promise<void> {
  const node = await core.readNode({ name: nodeName });
  if (!node.spec?.unschedulable) return;
  await core.patchNode(
    { name: nodeName, body: [{ op: 'replace', path: '/spec/unschedulable', value: false }] },
    setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
  );
}

/** The namespaces a release's run made (every one but the cluster's own). */
export async function runNamespaces(core: CoreV1Api): Promise<string[]> {
  return (await core.listNamespace()).items
    .map((namespace) => namespace.metadata!.name!)
    .filter((name) => !SYSTEM_NAMESPACES.includes(name));
}

/** Deletes the namespaces a release's run made and waits until they are gone, naming those that are not. */
export async function deleteNamespaces(core: CoreV1Api, timeoutMs: number): Promise<void> {
  for (const name of await runNamespaces(core))
    await core.deleteNamespace({ name }).catch((error: { code?: number }) => {
      if (error.code !== 404) throw error;
    });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = await runNamespaces(core);
    if (left.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(`namespaces ${left.join(', ')} not gone after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

export const podReady = (pod: V1Pod | undefined): boolean =>
  pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/** The operator's processes on this machine (the image's entrypoint names its script). */
export function operatorPids(): number[] {
  return pidsWithArgument('/app/bin/sluice.js');
}

/** A process's memory and its container's, in bytes, as the kubelet counts them (cgroup v1). */
export interface ContainerMemory {
  /** The process's resident set (VmRSS). */
  processRss: number;
  /** The container's usage less its inactive page cache: what the kubelet reports and evicts on. */
  workingSet: number;
  /** The container's anonymous memory (`total_rss`): what the kubelet reports as RSS. */
  rss: number;
  /** The highest usage the cgroup has seen (page cache included). */
  maxUsage: number;
  /** The cgroup's limit. */
  limit: number;
  /** Processes the kernel's OOM killer has killed in this cgroup. */
  oomKills: number;
}

/** The memory of process `pid` and of the container (memory cgroup) it runs in. */
export function containerMemory(pid: number): ContainerMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const cgroup = /^\d+:memory:(.*)$/m.exec(readFileSync(`/proc/${pid}/cgroup`, 'utf8'))?.[1];
  if (!cgroup) throw new Error(`process ${pid} is in no memory cgroup (cgroup v1)`);
  const dir = join('/sys/fs/cgroup/memory', cgroup);
  const read = (file: string) => readFileSync(join(dir, file), 'utf8');
  const stat = read('memory.stat');
  const field = (text: string, name: string) =>
    Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  const usage = Number(read('memory.usage_in_bytes'));
  return {
    processRss: Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024,
    workingSet: Math.max(0, usage - field(stat, 'total_inactive_file')),
    rss: field(stat, 'total_rss'),
    maxUsage: Number(read('memory.max_usage_in_bytes')),
    limit: Number(read('memory.limit_in_bytes')),
    oomKills: field(read('memory.oom_control'), 'oom_kill'),
  };
}

export const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;
