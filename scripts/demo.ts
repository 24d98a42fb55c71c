// `npm run demo [-- --keep] [-- --node]`: the whole of sluice on this machine. Builds the control plane when it
// is not cached yet, starts it and the emulator, installs sluice with its Helm chart and runs the operator from
// the chart's Deployment arguments and RBAC (scripts/demo-install.ts), applies deploy/examples/, waits for Ready,
// and shows what a user sees. With --node the operator is the chart's pod on one real node instead (the image
// built from the Dockerfile, or taken from the cache; needs root). Without --keep it stops everything and
// exits 0; with --keep it stays up for a person to play with kubectl.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { CoreV1Api, KubeConfig, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { startEmulator, type Emulator } from '../src/emulator/server.ts';
import { ensureControlPlaneBinaries, findAssets, repoRoot } from '../tools/cluster/assets.ts';
import { podReady, RELEASE_NAMESPACE, startChartOnNode } from '../tools/cluster/chart-on-node.ts';
import { startControlPlane } from '../tools/cluster/control-plane.ts';
import { nodeUnavailableReason } from '../tools/cluster/node.ts';
import { installWithHelm } from './demo-install.ts';

const NAMESPACE = 'sluice-demo';
const OPERATOR_NAMESPACE = RELEASE_NAMESPACE;
// Set as docs/disaster-recovery.md advises: a cluster rebuilt under the same name takes back its cloud objects.
const CLUSTER_NAME = 'demo-cluster';
const { values: flags } = parseArgs({
  options: { keep: { type: 'boolean', default: false }, node: { type: 'boolean', default: false } },
});
const say = (message: string) => console.log(`[demo] ${message}`);
const demoStarted = Date.now();

// 1. The control plane: built once from Go modules (minutes), then cached (seconds).
if (flags.node) {
  const reason = nodeUnavailableReason();
  if (reason) throw new Error(`npm run demo -- --node: ${reason}`);
}
ensureControlPlaneBinaries();
const kubeconfig = join(repoRoot, '.sluice', 'kubeconfig');
mkdirSync(join(repoRoot, '.sluice'), { recursive: true });

/** What the rest of the demo needs of the cluster, the cloud and the operator, either way they run. */
interface Running {
  emulator: Emulator;
  /** Files to remove when the demo stops. */
  files: string[];
  /** The `sluice plan` flag naming the credentials Secret. */
  credentialsSecret: string | undefined;
  stop(): Promise<void>;
}

// 2.-3. The cloud (the emulator, services taking a second per state change like a (fast) real cloud) and sluice.
const running: Running = flags.node ? await onNode() : await asProcess();

/** The operator as the chart's pod on one real node. */
async function onNode(): Promise<Running> {
  const chart = await startChartOnNode({ kubeconfigPath: kubeconfig, transitionMs: 1000, log: say });
  say(`control plane and node ready at ${chart.cp.server}; emulator at ${chart.emulator.url}`);
  await chart.core.createNamespace({
    body: {
      metadata: { name: OPERATOR_NAMESPACE, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } },
    },
  });
  chart.helm('install', { clusterName: CLUSTER_NAME });
  say(
    `helm install sluice charts/sluice -n ${OPERATOR_NAMESPACE} --set clusterName=${CLUSTER_NAME} (image ${chart.image.repository}:${chart.image.tag})`,
  );
  const deadline = Date.now() + 300_000;
  let [pod] = await chart.operatorPods();
  while (!podReady(pod)) {
    if (Date.now() > deadline) throw new Error('the operator pod was not Ready within 5 minutes');
    await new Promise((r) => setTimeout(r, 500));
    [pod] = await chart.operatorPods();
  }
  say(
    `operator pod ${pod!.metadata!.name} Ready on node ${pod!.spec!.nodeName} (pod IP ${pod!.status!.podIP})`,
  );
  return {
    emulator: chart.emulator,
    files: [],
    credentialsSecret: pod!.spec!.containers[0]!.args?.find((arg) => arg.startsWith('--credentials-secret=')),
    stop: () => chart.stop(),
  };
}

/** The operator from source with the chart's Deployment arguments and RBAC (no kubelet runs the pod). */
async function asProcess(): Promise<Running> {
  // No CRDs from crds/: the chart installs them.
  const cluster = await startControlPlane({ kubeconfigPath: kubeconfig, crdDir: false });
  say(`control plane ready at ${cluster.server} in ${(cluster.startupMs / 1000).toFixed(1)} s`);
  const emulator = await startEmulator({ port: 0, transitionMs: 1000, logger: false });
  say(`emulator at ${emulator.url}`);
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const operator = await installWithHelm({
    kubeconfig,
    kc,
    emulator,
    namespace: OPERATOR_NAMESPACE,
    clusterName: CLUSTER_NAME,
    say,
  });
  say(
    `operator running: metrics at ${operator.metricsUrl}/metrics, health probe at ${operator.probeUrl}/healthz and /readyz`,
  );
  return {
    emulator,
    // A token of a cluster that is gone, and the log of its operator: nothing to keep.
    files: [operator.kubeconfigFile, operator.logFile],
    credentialsSecret: operator.args.find((arg) => arg.startsWith('--credentials-secret=')),
    stop: async () => {
      await operator.stop();
      await emulator.stop();
      await cluster.stop();
    },
  };
}
const kc = new KubeConfig();
kc.loadFromFile(kubeconfig);
const core = kc.makeApiClient(CoreV1Api);

// 4. A namespace for the examples.
await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });

// 5. The examples, as `kubectl apply -f deploy/examples/` would create them.
const objects = KubernetesObjectApi.makeApiClient(kc);
const examplesDir = join(repoRoot, 'deploy', 'examples');
const applied: KubernetesObject[] = [];
for (const file of readdirSync(examplesDir)
  .filter((f) => f.endsWith('.yaml'))
  .sort()) {
  for (const document of parseAllDocuments(readFileSync(join(examplesDir, file), 'utf8'))) {
    const object = document.toJS() as KubernetesObject;
    object.metadata = { ...object.metadata, namespace: NAMESPACE };
    applied.push(await objects.create(object));
    say(`applied ${object.kind} ${object.metadata.name}`);
  }
}

// 6. Wait until every sluice resource is Ready (the examples also hold the Secrets pipes reference).
const started = Date.now();
const managed = applied.filter((o) => o.apiVersion?.startsWith('sluice.dev/'));
const isReady = (o: KubernetesObject & { status?: { conditions?: { type: string; status: string }[] } }) =>
  o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
for (const object of managed) {
  for (;;) {
    if (isReady(await objects.read(object as never))) break;
    if (Date.now() - started > 120_000)
      throw new Error(`${object.metadata!.name} did not become Ready in 2 minutes`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
say(`all resources Ready ${((Date.now() - started) / 1000).toFixed(1)} s after apply`);

// 7. What a user sees.
// Its own discovery cache: helm's install filled the shared one (~/.kube/cache) before the CRDs existed.
const kubeCache = join(repoRoot, '.sluice', 'kube-cache');
rmSync(kubeCache, { recursive: true, force: true });
const kubectl = (...args: string[]) =>
  execFileSync(findAssets().kubectl, ['--kubeconfig', kubeconfig, '--cache-dir', kubeCache, ...args], {
    encoding: 'utf8',
  });
console.log(`\n$ kubectl get sluice -n ${NAMESPACE}\n${kubectl('get', 'sluice', '-n', NAMESPACE)}`);
if (flags.node) {
  console.log(
    `\n$ kubectl get pods -n ${OPERATOR_NAMESPACE} -o wide\n${kubectl('get', 'pods', '-n', OPERATOR_NAMESPACE, '-o', 'wide')}`,
  );
}
for (const object of managed.filter((o) => o.kind === 'DatabaseService')) {
  const secret = await core.readNamespacedSecret({
    name: `${object.metadata!.name}-connection`,
    namespace: NAMESPACE,
  });
  console.log(
    `Secret ${object.metadata!.name}-connection keys: ${Object.keys(secret.data ?? {})
      .sort()
      .join(', ')}`,
  );
}

for (const key of managed.filter((o) => o.kind === 'ApiKey')) {
  const secretName = (key as { spec?: { credentialsSecret?: { name?: string } } }).spec?.credentialsSecret
    ?.name;
  const secret = await core.readNamespacedSecret({ name: secretName!, namespace: NAMESPACE });
  const users = managed
    .filter(
      (o) =>
        (o as { spec?: { credentialsRef?: { name?: string } } }).spec?.credentialsRef?.name === secretName,
    )
    .map((o) => `${o.kind} ${o.metadata!.name}`);
  console.log(
    `ApiKey ${key.metadata!.name}: Secret ${secretName} keys: ${Object.keys(secret.data ?? {})
      .sort()
      .join(', ')}; used by ${users.join(', ') || 'nothing'}`,
  );
}

say(`demo up ${((Date.now() - demoStarted) / 1000).toFixed(0)} s after start`);
/** Stops everything and removes what the demo wrote under .sluice/, saying so: the same on Ctrl-C with --keep. */
async function stopAndClean(): Promise<void> {
  await running.stop();
  const written = [...running.files, kubeCache, kubeconfig].filter((file) => existsSync(file));
  for (const file of written) rmSync(file, { recursive: true, force: true });
  say(
    `stopped the operator, the emulator and the control plane; removed ${
      written.map((file) => relative(repoRoot, file)).join(', ') || 'nothing'
    }`,
  );
}
if (!flags.keep) {
  await stopAndClean();
  say('done; run `npm run demo -- --keep` to stay up and use kubectl yourself');
  process.exit(0);
}
console.log(`\nexport KUBECONFIG=${kubeconfig}\n`);
say(
  `plan the examples in the demo's namespace: npx sluice plan -f deploy/examples/ -n ${NAMESPACE} ${running.credentialsSecret ?? ''}`,
);
say(
  `kubectl is at ${findAssets().kubectl}; the emulator at ${running.emulator.url}. Ctrl-C stops everything.`,
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    say(`${signal}: stopping`);
    void stopAndClean().then(() => process.exit(0));
  });
}
setInterval(() => {}, 1 << 30);
