// sluice as users run it, on the local control plane's real node: the image built from the project's Dockerfile
// (tools/cluster/image.ts), loaded into the node's containerd, and `helm install` of charts/sluice with nothing
// set but the image and the cloud credentials. The cloud is the emulator, listening on every address: the pod
// reaches it on the node's bridge, and its call log answers loopback callers only. Shared by the node's tests,
// `bench:memory -- --node` and `npm run demo -- --node`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinationV1Api, CoreV1Api, KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { startEmulator, type Emulator, type RateLimitOption } from '../../src/emulator/server.ts';
import type { CallRecord } from '../../src/emulator/call-log.ts';
import { startControlPlane, type ControlPlane } from './control-plane.ts';
import { operatorImage, type OperatorImage } from './image.ts';
import { chartCredentials, chartDir, helmBin, helmWithValues, run } from './install.ts';
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

export interface ChartOnNode {
  image: OperatorImage;
  cp: ControlPlane;
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
  stop(): Promise<void>;
}

/** Builds (or takes from the cache) the image, starts the control plane with its node and the emulator. */
export async function startChartOnNode(opts: ChartOnNodeOptions = {}): Promise<ChartOnNode> {
  const image = operatorImage({ node: node24(), ...(opts.log ? { log: opts.log } : {}) });
  opts.log?.(
    `image ${image.repository}:${image.tag} ${image.built ? 'built' : 'from the cache'} in ${(image.ms / 1000).toFixed(1)} s`,
  );
  // The chart installs the CRDs itself.
  const cp = await startControlPlane({
    node: true,
    crdDir: false,
    ...(opts.kubeconfigPath ? { kubeconfigPath: opts.kubeconfigPath } : {}),
    ...(opts.log ? { log: opts.log } : {}),
  });
  let emulator: Emulator;
  try {
    cp.node!.loadImage(image.archive, `${image.repository}:${image.tag}`);
    emulator = await startEmulator({
      host: '0.0.0.0',
      port: 0,
      transitionMs: opts.transitionMs ?? 500,
      logger: false,
      ...(opts.rateLimit ? { rateLimit: opts.rateLimit } : {}),
    });
  } catch (error) {
    await cp.stop();
    throw error;
  }
  const kc = new KubeConfig();
  kc.loadFromString(cp.kubeconfigYaml);
  const core = kc.makeApiClient(CoreV1Api);
  const coordination = kc.makeApiClient(CoordinationV1Api);
  return {
    image,
    cp,
    emulator,
    kc,
    core,
    helm: (command, values = {}) =>
      helmWithValues([command, RELEASE, chartDir, '--kubeconfig', cp.kubeconfig, '-n', RELEASE_NAMESPACE], {
        image: { repository: image.repository, tag: image.tag, pullPolicy: 'Never' },
        credentials: chartCredentials({ ...emulator, url: `http://${NODE_NETWORK.nodeIp}:${emulator.port}` }),
        ...values,
      }),
    uninstall: () =>
      run(helmBin(), [
        'uninstall',
        RELEASE,
        '--kubeconfig',
        cp.kubeconfig,
        '-n',
        RELEASE_NAMESPACE,
        '--wait',
        '--timeout',
        '5m',
      ]),
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
    stop: async () => {
      await cp.stop();
      await emulator.stop();
    },
  };
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
