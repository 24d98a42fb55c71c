// `npm run demo [-- --keep]`: the whole of sluice on this machine. Builds the control plane when it is not
// cached yet, starts it and the emulator, installs sluice with its Helm chart and runs the operator from the
// chart's Deployment arguments and RBAC (scripts/demo-install.ts), applies deploy/examples/, waits for Ready,
// and shows what a user sees. Without --keep it stops everything and
// exits 0; with --keep it stays up for a person to play with kubectl.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CoreV1Api, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { startEmulator } from '../src/emulator/server.ts';
import { ensureControlPlaneBinaries, findAssets, repoRoot } from '../tools/cluster/assets.ts';
import { startControlPlane } from '../tools/cluster/controlPlane.ts';
import { installWithHelm } from './demo-install.ts';

const NAMESPACE = 'sluice-demo';
const OPERATOR_NAMESPACE = 'sluice-system';
const { values: flags } = parseArgs({ options: { keep: { type: 'boolean', default: false } } });
const say = (message: string) => console.log(`[demo] ${message}`);

// 1. The control plane: built once from Go modules (minutes), then cached (seconds).
ensureControlPlaneBinaries();
const kubeconfig = join(repoRoot, '.sluice', 'kubeconfig');
mkdirSync(join(repoRoot, '.sluice'), { recursive: true });
// No CRDs from crds/: the chart installs them.
const cluster = await startControlPlane({ kubeconfigPath: kubeconfig, crdDir: false });
say(`control plane ready at ${cluster.server} in ${(cluster.startupMs / 1000).toFixed(1)} s`);

// 2. The cloud: the emulator, with services taking a second per state change like a (fast) real cloud.
const emulator = await startEmulator({ port: 0, transitionMs: 1000, logger: false });
say(`emulator at ${emulator.url}`);

// 3. sluice itself: `helm install`, then the operator with the chart's arguments and RBAC only.
const { KubeConfig } = await import('@kubernetes/client-node');
const kc = new KubeConfig();
kc.loadFromFile(kubeconfig);
const core = kc.makeApiClient(CoreV1Api);
const operator = await installWithHelm({ kubeconfig, kc, emulator, namespace: OPERATOR_NAMESPACE, say });
say(
  `operator running: metrics at ${operator.metricsUrl}/metrics, health probe at ${operator.probeUrl}/healthz and /readyz`,
);

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
const kubectl = (...args: string[]) =>
  execFileSync(findAssets().kubectl, ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8' });
console.log(`\n$ kubectl get sluice -n ${NAMESPACE}\n${kubectl('get', 'sluice', '-n', NAMESPACE)}`);
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

const stopAll = async () => {
  await operator.stop();
  await emulator.stop();
  await cluster.stop();
};
if (!flags.keep) {
  await stopAll();
  // A token of a cluster that is gone, and the log of its operator: nothing to keep.
  for (const file of [operator.kubeconfigFile, operator.logFile]) rmSync(file, { force: true });
  say('done; run `npm run demo -- --keep` to stay up and use kubectl yourself');
  process.exit(0);
}
console.log(`\nexport KUBECONFIG=${kubeconfig}\n`);
const credentialsSecret = operator.args.find((arg) => arg.startsWith('--credentials-secret='));
say(
  `plan the examples in the demo's namespace: npx sluice plan -f deploy/examples/ -n ${NAMESPACE} ${credentialsSecret ?? ''}`,
);
say(`kubectl is at ${findAssets().kubectl}; the emulator at ${emulator.url}. Ctrl-C stops everything.`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void stopAll().then(() => process.exit(0)));
}
setInterval(() => {}, 1 << 30);
