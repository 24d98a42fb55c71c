// A real Kubernetes control plane for tests, the demo and `npm run cluster`.
//
// Which cluster you get is chosen by the environment:
//   SLUICE_TEST_KUBECONFIG=<path>  use that existing cluster (kind, k3d, ...); start nothing
//   SLUICE_TEST_K3S=1              K3s in a container via @testcontainers/k3s (needs Docker);
//                                  when that cannot work, ClusterUnavailableError (callers skip)
//   otherwise                      etcd + kube-apiserver built by `npm run envtest:setup`,
//                                  the way controller-runtime's envtest runs them, and
//                                  kube-controller-manager (controller-manager.ts)
//
// The local control plane runs kube-controller-manager's namespace controller
// and garbage collector: namespace deletion and garbage collection happen as
// in a real cluster. Without `node: true` it has no scheduler and no node:
// nothing runs Pods (with it, see node.ts). What
// the apiserver does itself is all real: validation (OpenAPI and CEL),
// admission, RBAC, subresources, finalizers, watches.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type * as K3sModule from '@testcontainers/k3s';
import type { StartedK3sContainer } from '@testcontainers/k3s';
import { findAssets, repoRoot } from './assets.ts';
import { DEFAULT_CONTROLLERS, NODE_CONTROLLERS, startControllerManager } from './controller-manager.ts';
import { applyCrdDir } from './crds.ts';
import { renderKubeconfig } from './kubeconfig.ts';
import { ecdsaServingCertificate } from './serving-cert.ts';
import { createNodeNetwork, NODE_NETWORK, startNode, type RunningNode } from './node.ts';
import { freePort, guard, logTail, startProcess, stopProcess, type Managed } from './processes.ts';
import { processExists } from './pid-lock.ts';

export interface ControlPlaneOptions {
  /** Directory of CRD manifests to apply once ready; `false` applies none. Default `<repo>/crds` if it exists. */
  crdDir?: string | false;
  /** Also write the kubeconfig here (removed again by stop()). Default: only in the temp dir. */
  kubeconfigPath?: string;
  /** Give up waiting for /readyz after this long. */
  startTimeoutMs?: number;
  /** Progress messages (never secrets). Default: silent. */
  log?: (msg: string) => void;
  /** Extra kube-apiserver flags, e.g. `--feature-gates=...`. */
  apiserverArgs?: string[];
  /** Local control plane only: also run one real node (tools/cluster/node.ts; needs root). */
  node?: boolean;
  /**
   * Local control plane only: the kube-controller-manager controllers to run (`--controllers`), or `false`
   * for no controller-manager. Default: DEFAULT_CONTROLLERS, NODE_CONTROLLERS with `node`.
   */
  controllers?: readonly string[] | false;
}

export interface ControlPlane {
  kind: 'envtest' | 'existing' | 'k3s';
  /** Path of a kubeconfig file with cluster-admin rights. */
  kubeconfig: string;
  kubeconfigYaml: string;
  /** The apiserver URL, e.g. https://127.0.0.1:41234 */
  server: string;
  /** Milliseconds from start to ready (CRDs included). */
  startupMs: number;
  /** Stops what was started and deletes its temp files; idempotent. */
  stop(): Promise<void>;
  /**
   * Local control plane only: stops kube-apiserver (etcd and its data stay) and starts it again on the same
   * port with the same certificates and token, so clients keep their kubeconfig but lose every watch.
   */
  restartApiserver?(): Promise<void>;
  /** The real node, when started with `node: true`. */
  node?: RunningNode;
}

/** The requested kind of cluster cannot run here; callers should skip, not fail. */
export class ClusterUnavailableError extends Error {
  override name = 'ClusterUnavailableError';
}

export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const started = Date.now();
  let cp: ControlPlane;
  if (process.env.SLUICE_TEST_KUBECONFIG) cp = useExisting(resolve(process.env.SLUICE_TEST_KUBECONFIG), opts);
  else if (process.env.SLUICE_TEST_K3S === '1') cp = await startK3s(opts);
  else cp = await startLocal(opts);

  try {
    const crdDir = opts.crdDir === undefined ? join(repoRoot, 'crds') : opts.crdDir;
    if (crdDir && existsSync(crdDir)) {
      const kc = new KubeConfig();
      kc.loadFromString(cp.kubeconfigYaml);
      const names = await applyCrdDir(kc, crdDir);
      opts.log?.(`applied ${names.length} CRD(s) from ${crdDir}`);
    }
    // After the CRDs: the garbage collector discovers resources when it starts (then every 30 s), so it
    // knows sluice's kinds from the first test on.
    await (cp as LocalControlPlane).startControllers?.();
  } catch (err) {
    await cp.stop();
    throw err;
  }
  cp.startupMs = Date.now() - started;
  return cp;
}

// ---- existing cluster --------------------------------------------------------

function useExisting(path: string, opts: ControlPlaneOptions): ControlPlane {
  const kubeconfigYaml = readFileSync(path, 'utf8');
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfigYaml);
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error(`${path}: current context has no cluster server`);
  opts.log?.(`using existing cluster ${server} from SLUICE_TEST_KUBECONFIG`);
  if (opts.kubeconfigPath) writeKubeconfig(opts.kubeconfigPath, kubeconfigYaml);
  return {
    kind: 'existing',
    kubeconfig: path,
    kubeconfigYaml,
    server,
    startupMs: 0,
    stop: async () => {
      if (opts.kubeconfigPath) rmSync(opts.kubeconfigPath, { force: true });
    },
  };
}

// ---- K3s in a container (optional) --------------------------------------------

async function startK3s(opts: ControlPlaneOptions): Promise<ControlPlane> {
  // Dynamic import: the module (and Docker) are optional; the default path
  // must work without either.
  let mod: typeof K3sModule;
  try {
    mod = await import('@testcontainers/k3s');
  } catch {
    throw new ClusterUnavailableError('SLUICE_TEST_K3S=1 but @testcontainers/k3s is not installed');
  }
  const image = process.env.SLUICE_TEST_K3S_IMAGE ?? 'rancher/k3s:v1.34.1-k3s1';
  opts.log?.(`starting ${image} with testcontainers ...`);
  let container: StartedK3sContainer;
  try {
    container = await new mod.K3sContainer(image).start();
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new ClusterUnavailableError(
      `K3s via testcontainers is unavailable (is Docker running?): ${reason}`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'sluice-k3s-'));
  const kubeconfigYaml = container.getKubeConfig();
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, kubeconfigYaml, { mode: 0o600 });
  if (opts.kubeconfigPath) writeKubeconfig(opts.kubeconfigPath, kubeconfigYaml);
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfigYaml);
  let stopped = false;
  return {
    kind: 'k3s',
    kubeconfig,
    kubeconfigYaml,
    server: kc.getCurrentCluster()?.server ?? '',
    startupMs: 0,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await container.stop();
      rmSync(dir, { recursive: true, force: true });
      if (opts.kubeconfigPath) rmSync(opts.kubeconfigPath, { force: true });
    },
  };
}

// ---- local etcd + kube-apiserver + kube-controller-manager --------------------

/** The local control plane, before its controllers are started. */
interface LocalControlPlane extends ControlPlane {
  /** Starts the optional pieces that act on the cluster's objects (kube-controller-manager). */
  startControllers(): Promise<void>;
}

const SCRATCH_PREFIX = 'sluice-cp-';

/** RAM-backed when possible: etcd fsyncs, and tmpfs makes that free. */
function scratchRoot(): string {
  return existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
}

/**
 * Removes scratch dirs whose owning process died without cleaning up (only
 * SIGKILL/OOM can do that: exit hooks handle the rest, and setpriv's
 * parent-death signal has already killed the servers).
 */
function sweepStaleScratchDirs(root: string): void {
  for (const name of readdirSync(root)) {
    if (!name.startsWith(SCRATCH_PREFIX)) continue;
    const dir = join(root, name);
    try {
      const pid = Number(readFileSync(join(dir, 'owner.pid'), 'utf8'));
      if (pid > 0 && !processExists(pid)) rmSync(dir, { recursive: true, force: true });
    } catch {
      // no owner.pid (still being created, or not ours): leave it alone
    }
  }
}

function writeKubeconfig(path: string, yaml: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, yaml, { mode: 0o600 });
}

async function startLocal(opts: ControlPlaneOptions): Promise<LocalControlPlane> {
  const assets = findAssets();
  // A port picked by freePort() can be taken by someone else before our
  // server binds it; that is rare, so simply try again with new ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startLocalOnce(assets, opts);
    } catch (err) {
      const portClash = err instanceof Error && /address already in use/i.test(err.message);
      if (!portClash || attempt >= 3) throw err;
      opts.log?.('port taken between probe and bind; retrying with new ports');
    }
  }
}

async function startLocalOnce(
  assets: ReturnType<typeof findAssets>,
  opts: ControlPlaneOptions,
): Promise<LocalControlPlane> {
  sweepStaleScratchDirs(scratchRoot());
  const tmp = mkdtempSync(join(scratchRoot(), SCRATCH_PREFIX));
  writeFileSync(join(tmp, 'owner.pid'), String(process.pid));
  const processes: Managed[] = [];
  let node: RunningNode | undefined;
  let removeNodeNetwork: (() => void) | undefined;
  // A crash takes the node down too: its containers, bridge and rules would outlive the processes.
  const release = guard({
    processes,
    dirs: [tmp],
    cleanup: () => {
      node?.cleanup();
      removeNodeNetwork?.();
    },
  });
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    // The controllers first: a ReplicaSet would replace the pods removed next.
    const controllerManager = processes.find((p) => p.name === 'kube-controller-manager');
    if (controllerManager) await stopProcess(controllerManager);
    await node?.removePods();
    // The node before the apiserver, the apiserver before etcd: each logs errors and lingers without the next.
    for (const p of [...processes].reverse()) await stopProcess(p);
    node?.cleanup();
    removeNodeNetwork?.();
    rmSync(tmp, { recursive: true, force: true });
    if (opts.kubeconfigPath) rmSync(opts.kubeconfigPath, { force: true });
    release();
  };

  try {
    // The bridge exists before the apiserver starts: pods reach it at the bridge's address.
    if (opts.node) removeNodeNetwork = createNodeNetwork();
    const [etcdPort, peerPort, apiPort, controllerManagerPort] = await distinctFreePorts(4);
    const etcdUrl = `http://127.0.0.1:${etcdPort}`;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    const etcd = startProcess(
      'etcd',
      assets.etcd,
      [
        '--name=default',
        `--data-dir=${join(tmp, 'etcd')}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=default=${peerUrl}`,
        // Test data is disposable; skipping fsync removes etcd's main latency.
        '--unsafe-no-fsync',
        '--log-level=warn',
      ],
      join(tmp, 'etcd.log'),
    );
    processes.push(etcd);

    // Admin identity: a static bearer token in group system:masters. The
    // token never leaves the temp dir and the kubeconfig (mode 0600).
    const token = randomBytes(32).toString('hex');
    writeFileSync(join(tmp, 'tokens.csv'), `${token},sluice-admin,sluice-admin,"system:masters"\n`, {
      mode: 0o600,
    });
    // The apiserver refuses to start without a service-account signing key.
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(join(tmp, 'sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    writeFileSync(join(tmp, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
    const certDir = join(tmp, 'certs');
    mkdirSync(certDir, { recursive: true });
    const advertised = opts.node ? NODE_NETWORK.nodeIp : '127.0.0.1';
    // The `kubernetes` Service's address (the first of the service range) is how pods reach it.
    const serving = ecdsaServingCertificate(certDir, [...new Set(['127.0.0.1', advertised, '10.0.0.1'])]);

    // etcd and the apiserver start concurrently: the apiserver retries its
    // etcd connection, and overlapping the two startups saves seconds.
    const apiserverArgs = [
      `--etcd-servers=${etcdUrl}`,
      // Without our own certificate, the apiserver generates a self-signed one (and its CA) on start.
      ...(serving
        ? [`--tls-cert-file=${serving.certFile}`, `--tls-private-key-file=${serving.keyFile}`]
        : [`--cert-dir=${certDir}`]),
      // With a node, pods reach the apiserver on the bridge (the `kubernetes` Service's endpoint).
      `--bind-address=${opts.node ? '0.0.0.0' : '127.0.0.1'}`,
      `--advertise-address=${advertised}`,
      `--secure-port=${apiPort}`,
      '--service-cluster-ip-range=10.0.0.0/24',
      '--allow-privileged=true',
      '--authorization-mode=RBAC',
      `--token-auth-file=${join(tmp, 'tokens.csv')}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${join(tmp, 'sa.pub')}`,
      `--service-account-signing-key-file=${join(tmp, 'sa.key')}`,
      // Without a node, as envtest does: no serviceaccount controller creates the "default" ServiceAccount,
      // and this plugin would then reject every Pod. With one, pods get their token volume as in any cluster.
      ...(opts.node ? [] : ['--disable-admission-plugins=ServiceAccount']),
      // The node's name resolves nowhere; `kubectl logs` and `exec` reach the kubelet at its address.
      ...(opts.node ? ['--kubelet-preferred-address-types=InternalIP'] : []),
      ...(opts.apiserverArgs ?? []),
    ];
    const startApiserver = () =>
      startProcess('kube-apiserver', assets.kubeApiserver, apiserverArgs, join(tmp, 'kube-apiserver.log'));
    processes.push(startApiserver());

    // With a node the serving certificate names the node's address, not the loopback one.
    const server = `https://${opts.node ? NODE_NETWORK.nodeIp : '127.0.0.1'}:${apiPort}`;
    opts.log?.(`waiting for kube-apiserver at ${server} ...`);
    await waitReady(server, processes, opts.startTimeoutMs ?? 60_000);

    // The serving cert file holds the leaf and the CA that signed it.
    const caPem = readFileSync(join(certDir, 'apiserver.crt'), 'utf8');
    const kubeconfigYaml = renderKubeconfig({ name: 'sluice-test', server, caPem, token });
    const kubeconfig = join(tmp, 'kubeconfig');
    writeFileSync(kubeconfig, kubeconfigYaml, { mode: 0o600 });
    if (opts.kubeconfigPath) writeKubeconfig(opts.kubeconfigPath, kubeconfigYaml);
    const restartApiserver = async (): Promise<void> => {
      const index = processes.findIndex((p) => p.name === 'kube-apiserver');
      await stopProcess(processes[index]!);
      // The cert dir keeps the serving certificate it generated, so the kubeconfig's CA stays valid.
      processes[index] = startApiserver();
      await waitReady(server, processes, opts.startTimeoutMs ?? 60_000);
    };
    if (opts.node) {
      const { kubelet, kubeScheduler, kubeProxy } = assets;
      node = await startNode({
        dir: tmp,
        kubeconfig,
        processes,
        log: opts.log,
        bin: { kubelet, kubeScheduler, kubeProxy },
      });
    }
    const controllers = opts.controllers ?? (opts.node ? NODE_CONTROLLERS : DEFAULT_CONTROLLERS);
    const startControllers = async (): Promise<void> => {
      if (!controllers || controllers.length === 0) return;
      const controllerManager = startControllerManager({
        binary: assets.kubeControllerManager,
        kubeconfig,
        port: controllerManagerPort!,
        dir: tmp,
        controllers,
        serviceAccountKey: join(tmp, 'sa.key'),
        rootCa: join(certDir, 'apiserver.crt'),
      });
      processes.push(controllerManager);
      // Not waited for: its controllers list the cluster when they start, so whatever is deleted before
      // then is still handled; an early exit is reported with its log.
      void controllerManager.exited.then((how) => {
        if (!stopped) opts.log?.(`kube-controller-manager exited (${how}):\n${logTail(controllerManager)}`);
      });
      opts.log?.(`kube-controller-manager started (controllers: ${controllers.join(', ')})`);
    };
    return {
      kind: 'envtest',
      kubeconfig,
      kubeconfigYaml,
      server,
      startupMs: 0,
      stop,
      restartApiserver,
      node,
      startControllers,
    };
  } catch (err) {
    const logs = processes
      .map((p) => `--- ${p.name} (last lines of ${p.logFile}) ---\n${logTail(p)}`)
      .join('\n');
    await stop();
    const msg = err instanceof Error ? err.message : String(err);
    throw new Error(`control plane failed to start: ${msg}\n${logs}`, { cause: err });
  }
}

async function distinctFreePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

/** GET `url` without verifying TLS (the CA does not exist until the server has started). */
function probe(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false, timeout: 2_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** Polls /readyz (readable anonymously by default RBAC) until it answers "ok". */
async function waitReady(server: string, processes: Managed[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  let exited: string | undefined;
  for (const p of processes) void p.exited.then((how) => (exited ??= `${p.name} exited (${how})`));
  while (Date.now() < deadline) {
    if (exited)
      throw new Error(
        exited + (/address already in use/i.test(allLogs(processes)) ? ': address already in use' : ''),
      );
    try {
      const r = await probe(`${server}/readyz`);
      if (r.status === 200 && r.body.trim() === 'ok') return;
      last = `HTTP ${r.status}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`kube-apiserver not ready after ${timeoutMs} ms (last: ${last})`);
}

function allLogs(processes: Managed[]): string {
  return processes.map((p) => logTail(p, 50)).join('\n');
}
