// One real node for the local control plane: containerd + runc (Debian packages), a CNI bridge, the kubelet,
// kube-scheduler and kube-proxy built by `npm run envtest:setup`. Pods get an address on a bridge this module
// makes (nothing leaves the machine) and reach the apiserver as any pod does, through the `kubernetes`
// Service that kube-proxy programs into iptables. Needs root.
//
// What this machine kind needs beyond the defaults (measured; see docs/development.md):
// - containerd's CRI plugin with `restrict_oom_score_adj`: the kernel refuses the sandbox's negative score;
// - a sandbox ("pause") image made here (no registry is reachable), under a fully qualified name;
// - the kubelet on cgroupfs (cgroup v1), without QoS cgroups, node allocatable or swap checks.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { releasePidLock, takePidLock } from './pid-lock.ts';
import { freePort, logTail, startProcess, stopProcess, type Managed } from './processes.ts';

/** The bridge and the pods' subnet; the bridge's own address is the node's, and the apiserver's for pods. */
export const NODE_NETWORK = {
  bridge: 'sluice0',
  subnet: '10.244.0.0/24',
  nodeIp: '10.244.0.1',
} as const;

/** The sandbox image containerd runs for every pod, made here by `buildImageFromScratch`. */
export const PAUSE_IMAGE = 'registry.k8s.io/pause:sluice';

const NODE_PACKAGES = {
  containerd: 'containerd',
  runc: 'runc',
  ctr: 'containerd',
  buildah: 'buildah',
  iptables: 'iptables',
  conntrack: 'conntrack',
  gcc: 'gcc',
} as const;

/** Why a node cannot run here, or undefined when it can. */
export function nodeUnavailableReason(): string | undefined {
  if (process.getuid?.() !== 0) return 'a real node needs root (containerd, runc, iptables)';
  const missing = Object.keys(NODE_PACKAGES).filter((tool) => !onPath(tool));
  if (missing.length) {
    const packages = [...new Set(missing.map((t) => NODE_PACKAGES[t as keyof typeof NODE_PACKAGES]))];
    return `missing ${missing.join(', ')} (apt-get install ${packages.join(' ')} containernetworking-plugins)`;
  }
  if (!existsSync(CNI_BIN))
    return `no CNI plugins in ${CNI_BIN} (apt-get install containernetworking-plugins)`;
  return undefined;
}

const CNI_BIN = '/usr/lib/cni';

/** Whether `tool` is a command on PATH. */
export function onPath(tool: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0;
}

function run(cmd: string, args: string[], input?: string | Buffer): string {
  return execFileSync(cmd, args, { encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Runs `cmd`, ignoring failure: for taking down what may already be gone. */
function tryRun(cmd: string, args: string[]): void {
  spawnSync(cmd, args, { stdio: 'ignore' });
}

/** Who holds the machine's one node network: the bridge, the pod subnet and kube-proxy's rules are global. */
const NODE_LOCK = '/run/sluice-node.pid';

/**
 * The bridge pods attach to, made before the apiserver starts so it can listen on the node's address. One node
 * cluster at a time per machine: a second one fails here, naming the process that holds the first.
 */
export function createNodeNetwork(): () => void {
  takeNodeLock();
  const { bridge, nodeIp } = NODE_NETWORK;
  try {
    // Left by a process that died without cleaning up (the lock said so).
    tryRun('ip', ['link', 'del', bridge]);
    run('ip', ['link', 'add', bridge, 'type', 'bridge']);
    run('ip', ['addr', 'add', `${nodeIp}/24`, 'dev', bridge]);
    run('ip', ['link', 'set', bridge, 'up']);
  } catch (error) {
    releasePidLock(NODE_LOCK);
    throw error;
  }
  return () => {
    tryRun('ip', ['link', 'del', bridge]);
    releasePidLock(NODE_LOCK);
  };
}

function takeNodeLock(): void {
  const lock = takePidLock(NODE_LOCK);
  if (!lock.taken)
    throw new Error(`another node cluster runs on this machine (process ${lock.holder}, ${NODE_LOCK})`);
}

export interface NodeOptions {
  /** Scratch directory of the control plane; the node's state goes below it. */
  dir: string;
  /** Admin kubeconfig reaching the apiserver from the host. */
  kubeconfig: string;
  bin: { kubelet: string; kubeScheduler: string; kubeProxy: string };
  processes: Managed[];
  log?: ((msg: string) => void) | undefined;
}

export interface RunningNode {
  name: string;
  /** The containerd socket, for `ctr` and `crictl`. */
  containerdAddress: string;
  /** Imports an OCI archive into the node's image store under `name` (a fully qualified reference). */
  loadImage(archive: string, name: string): void;
  /** Deletes every pod on the node and waits until the kubelet has stopped them (their network included). */
  removePods(): Promise<void>;
  /** Takes down what the node set up outside its processes (iptables rules, pods' network, the bridge). */
  cleanup(): void;
}

export async function startNode(opts: NodeOptions): Promise<RunningNode> {
  const { dir, kubeconfig, processes, log } = opts;
  const name = 'sluice-node';
  const root = join(dir, 'node');
  const cniConf = join(root, 'cni');
  mkdirSync(cniConf, { recursive: true });

  // containerd as a plain process with its own root, state and socket.
  const containerdAddress = join(root, 'containerd.sock');
  writeFileSync(
    join(root, 'containerd.toml'),
    `version = 2
root = "${join(root, 'containerd-root')}"
state = "${join(root, 'containerd-state')}"
[grpc]
  address = "${containerdAddress}"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${PAUSE_IMAGE}"
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "native"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "${CNI_BIN}"
    conf_dir = "${cniConf}"
`,
  );
  writeFileSync(
    join(cniConf, '10-sluice.conflist'),
    JSON.stringify({
      cniVersion: '0.4.0',
      name: 'sluice',
      plugins: [
        {
          type: 'bridge',
          bridge: NODE_NETWORK.bridge,
          isGateway: true,
          ipMasq: false,
          ipam: {
            type: 'host-local',
            ranges: [[{ subnet: NODE_NETWORK.subnet, gateway: NODE_NETWORK.nodeIp }]],
            // Service addresses are not on the bridge: they go to the node, where kube-proxy's rules are.
            routes: [{ dst: '0.0.0.0/0' }],
            dataDir: join(root, 'cni-ipam'),
          },
        },
        { type: 'portmap', capabilities: { portMappings: true } },
      ],
    }),
  );
  const containerd = startProcess(
    'containerd',
    'containerd',
    ['--config', join(root, 'containerd.toml')],
    join(dir, 'containerd.log'),
  );
  processes.push(containerd);
  await waitFor('containerd', () => existsSync(containerdAddress), [containerd]);

  const netnsBefore = new Set(listNetns());
  const ctr = ['--address', containerdAddress, '--namespace', 'k8s.io'];
  const node: RunningNode = {
    name,
    containerdAddress,
    async removePods() {
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfig);
      const core = kc.makeApiClient(CoreV1Api);
      try {
        const pods = await core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${name}` });
        await Promise.all(
          pods.items.map((pod) =>
            core
              .deleteNamespacedPod({
                name: pod.metadata!.name!,
                namespace: pod.metadata!.namespace!,
                gracePeriodSeconds: 0,
              })
              .catch(() => undefined),
          ),
        );
        const deadline = Date.now() + 30_000;
        while (Date.now() < deadline && run('ctr', [...ctr, 'tasks', 'ls', '-q']).trim() !== '') {
          await new Promise((r) => setTimeout(r, 250));
        }
      } catch (error) {
        log?.(`could not remove the node's pods through the kubelet: ${String(error)}`);
      }
    },
    loadImage(archive, image) {
      const out = run('ctr', [...ctr, 'images', 'import', '--all-platforms', archive]);
      const imported = /unpacking (\S+) /.exec(out)?.[1];
      if (!imported) throw new Error(`${archive} holds no named image: ${out}`);
      if (imported !== image) {
        tryRun('ctr', [...ctr, 'images', 'rm', image]);
        run('ctr', [...ctr, 'images', 'tag', imported, image]);
      }
    },
    cleanup() {
      // Containers the kubelet did not stop: their shims serve our containerd's address, nobody else's.
      for (const pid of pidsWithArgument(containerdAddress)) tryRun('kill', ['-9', String(pid)]);
      // A sandbox outlives its killed shim (it is its PID namespace's init): whatever is left in the pods' cgroups.
      killPodCgroups();
      for (const netns of listNetns()) if (!netnsBefore.has(netns)) tryRun('ip', ['netns', 'delete', netns]);
      // kube-proxy's own cleanup removes every rule and chain it made; the kubelet's are removed here.
      tryRun(opts.bin.kubeProxy, ['--cleanup']);
      removeKubeletChains();
      tryRun('ip', ['link', 'del', NODE_NETWORK.bridge]);
      // The kubelet bind-mounts its root directory (and volumes below it): unmount before it is removed.
      for (const mount of mountsUnder(root)) tryRun('umount', ['-l', mount]);
    },
  };

  // The sandbox image, before the kubelet asks for it.
  node.loadImage(pauseImageArchive(root), PAUSE_IMAGE);

  const [kubeletPort, healthzPort, schedulerPort, proxyMetrics, proxyHealthz] = await ports(5);
  const kubeletConfig = join(root, 'kubelet.yaml');
  writeFileSync(
    kubeletConfig,
    JSON.stringify({
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      kind: 'KubeletConfiguration',
      address: NODE_NETWORK.nodeIp,
      port: kubeletPort,
      readOnlyPort: 0,
      healthzBindAddress: '127.0.0.1',
      healthzPort,
      containerRuntimeEndpoint: `unix://${containerdAddress}`,
      cgroupDriver: 'cgroupfs',
      cgroupsPerQOS: false,
      enforceNodeAllocatable: [],
      failSwapOn: false,
      localStorageCapacityIsolation: false,
      // The test apiserver reaches the kubelet (logs, exec) without client certificates.
      authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
      authorization: { mode: 'AlwaysAllow' },
      // Pods resolve names with the host's resolver; nothing else is reachable anyway.
      resolvConf: '/etc/resolv.conf',
      // Evictions would start on a busy, small disk; the tests own the pods.
      evictionHard: { 'memory.available': '1Mi', 'nodefs.available': '1%', 'imagefs.available': '1%' },
      imageGCHighThresholdPercent: 100,
      imageGCLowThresholdPercent: 99,
      serializeImagePulls: false,
      shutdownGracePeriod: '0s',
      podLogsDir: join(root, 'pod-logs'),
      // Every pod synced each second, not each minute: a sync probes the readiness of a container not yet Ready,
      // so a pod is Ready about a second after its process is, not at the probe's next period (up to 10 s later).
      syncFrequency: '1s',
    }),
  );
  processes.push(
    startProcess(
      'kubelet',
      opts.bin.kubelet,
      [
        `--config=${kubeletConfig}`,
        `--kubeconfig=${kubeconfig}`,
        `--root-dir=${join(root, 'kubelet')}`,
        `--cert-dir=${join(root, 'kubelet-pki')}`,
        `--hostname-override=${name}`,
        `--node-ip=${NODE_NETWORK.nodeIp}`,
        '--v=1',
      ],
      join(dir, 'kubelet.log'),
    ),
    startProcess(
      'kube-scheduler',
      opts.bin.kubeScheduler,
      [
        `--kubeconfig=${kubeconfig}`,
        `--authentication-kubeconfig=${kubeconfig}`,
        `--authorization-kubeconfig=${kubeconfig}`,
        '--leader-elect=false',
        '--bind-address=127.0.0.1',
        `--secure-port=${schedulerPort}`,
      ],
      join(dir, 'kube-scheduler.log'),
    ),
    startProcess(
      'kube-proxy',
      opts.bin.kubeProxy,
      [
        `--kubeconfig=${kubeconfig}`,
        `--hostname-override=${name}`,
        '--proxy-mode=iptables',
        `--cluster-cidr=${NODE_NETWORK.subnet}`,
        // Leave the machine's conntrack table as it is.
        '--conntrack-max-per-core=0',
        `--metrics-bind-address=127.0.0.1:${proxyMetrics}`,
        `--healthz-bind-address=127.0.0.1:${proxyHealthz}`,
      ],
      join(dir, 'kube-proxy.log'),
    ),
  );
  await untaintWhenReady(kubeconfig, name, processes);
  log?.(`node ${name}: Ready (containerd, kubelet, kube-scheduler, kube-proxy)`);
  return node;
}

/**
 * Waits for the node to report Ready, then lifts the not-ready taint it registered with: the node lifecycle
 * controller would, and there may be no controller-manager.
 */
async function untaintWhenReady(kubeconfig: string, name: string, processes: Managed[]): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const readNode = () => core.readNode({ name }).catch(() => undefined);
  let ready = false;
  await waitFor(
    `node ${name} Ready`,
    () => ready,
    processes,
    60_000,
    async () => {
      const node = await readNode();
      ready = node?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
    },
  );
  const node = (await readNode())!;
  const taints = (node.spec?.taints ?? []).filter((t) => t.key !== 'node.kubernetes.io/not-ready');
  await core.patchNode(
    { name, body: [{ op: 'replace', path: '/spec/taints', value: taints }] },
    setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
  );
}

/** Builds the sandbox image from pause.c into an OCI archive (gcc -static, then buildah from scratch). */
function pauseImageArchive(root: string): string {
  const binary = join(root, 'pause');
  run('gcc', ['-static', '-O2', '-o', binary, join(import.meta.dirname, 'node', 'pause.c')]);
  const archive = join(root, 'pause.tar');
  buildImageFromScratch(root, {
    name: PAUSE_IMAGE,
    files: [[binary, '/pause']],
    entrypoint: ['/pause'],
    archive,
  });
  return archive;
}

/**
 * An image `FROM scratch` holding `files`, written with buildah (no daemon) as an OCI archive that names it
 * `name`, a fully qualified reference: the one the CRI looks up.
 */
export function buildImageFromScratch(
  root: string,
  spec: { name: string; files: [string, string][]; entrypoint: string[]; archive: string },
): void {
  const buildah = buildahArgs(root);
  const container = run('buildah', [...buildah, 'from', 'scratch']).trim();
  try {
    for (const [from, to] of spec.files) run('buildah', [...buildah, 'copy', container, from, to]);
    run('buildah', [...buildah, 'config', `--entrypoint=${JSON.stringify(spec.entrypoint)}`, container]);
    run('buildah', [...buildah, 'commit', '--quiet', container, `oci-archive:${spec.archive}:${spec.name}`]);
  } finally {
    tryRun('buildah', [...buildah, 'rm', container]);
  }
}

/** buildah with its own storage under `root`; vfs works on any filesystem. */
export function buildahArgs(root: string): string[] {
  return ['--root', join(root, 'buildah'), '--runroot', join(root, 'buildah-run'), '--storage-driver', 'vfs'];
}

/** The chains the kubelet makes in both address families, and the jumps to them. */
function removeKubeletChains(): void {
  for (const iptables of ['iptables', 'ip6tables']) {
    for (const hook of ['INPUT', 'OUTPUT'])
      tryRun(iptables, ['-t', 'filter', '-D', hook, '-j', 'KUBE-FIREWALL']);
    for (const table of ['filter', 'nat', 'mangle']) {
      for (const chain of ['KUBE-FIREWALL', 'KUBE-KUBELET-CANARY', 'KUBE-IPTABLES-HINT']) {
        tryRun(iptables, ['-t', table, '-F', chain]);
        tryRun(iptables, ['-t', table, '-X', chain]);
      }
    }
  }
}

/** Mount points at or below `dir`, deepest first. */
function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .filter((mount) => mount === dir || mount.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
}

function listNetns(): string[] {
  return existsSync('/var/run/netns') ? readdirSync('/var/run/netns') : [];
}

/**
 * Processes in the pods' cgroups (containerd's `k8s.io` parent; one node per machine, so all of them are this
 * node's): a sandbox whose shim is gone keeps running, as its PID namespace's init.
 */
export function podCgroupPids(): number[] {
  const parent = '/sys/fs/cgroup/pids/k8s.io';
  if (!existsSync(parent)) return [];
  return readdirSync(parent, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      try {
        return readFileSync(join(parent, entry.name, 'cgroup.procs'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map(Number);
      } catch {
        return []; // removed meanwhile
      }
    });
}

/** Kills what is left in the pods' cgroups, waits (up to 5 s) until they are empty and removes them. */
function killPodCgroups(): void {
  for (const pid of podCgroupPids()) tryRun('kill', ['-9', String(pid)]);
  const deadline = Date.now() + 5_000;
  while (podCgroupPids().length > 0 && Date.now() < deadline)
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  for (const controller of existsSync('/sys/fs/cgroup') ? readdirSync('/sys/fs/cgroup') : []) {
    const parent = join('/sys/fs/cgroup', controller, 'k8s.io');
    if (!existsSync(parent)) continue;
    for (const entry of readdirSync(parent, { withFileTypes: true }))
      if (entry.isDirectory()) tryRun('rmdir', [join(parent, entry.name)]);
  }
}

/** Processes whose command line holds `argument` (a path only this node uses). */
export function pidsWithArgument(argument: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args.includes(argument)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

async function ports(n: number): Promise<number[]> {
  const found = new Set<number>();
  while (found.size < n) found.add(await freePort());
  return [...found];
}

async function waitFor(
  what: string,
  ready: () => boolean,
  watched: Managed[],
  timeoutMs = 30_000,
  look?: () => Promise<void>,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await look?.();
    if (ready()) return;
    const dead = watched.find((p) => p.child.exitCode !== null || p.child.signalCode !== null);
    if (dead) throw new Error(`${dead.name} exited:\n${logTail(dead)}`);
    if (Date.now() > deadline) throw new Error(`${what} not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export { stopProcess };
