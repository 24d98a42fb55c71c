// The demo's install step: sluice the way a user installs it. `helm install` of charts/sluice into the demo
// cluster (CRDs, ServiceAccount, RBAC, the credentials Secret, the Deployment), then, because this control
// plane has no kubelet to run the Deployment, `sluice run` started here with exactly the Deployment's
// arguments and a kubeconfig holding only a token of the chart's ServiceAccount (TokenRequest), so the operator
// has the chart's RBAC and nothing more.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { GROUP } from '../src/kinds/shared/common.ts';
import { KINDS } from '../src/kinds/index.ts';
import type { Emulator } from '../src/emulator/server.ts';
import { repoRoot } from '../tools/cluster/assets.ts';
import { waitEstablished } from '../tools/cluster/crds.ts';
import {
  chartCredentials,
  chartDir,
  helmBin,
  helmWithValues,
  LOCAL_IMAGE,
  kubectlBin,
  operatorArgs,
  operatorPodTemplate,
  parseManifests,
  run,
  serviceAccountKubeconfig,
  spawnSluiceRun,
} from '../tools/cluster/install.ts';
import { freePort } from '../tools/cluster/processes.ts';

export interface InstalledOperator {
  /** The Deployment's arguments the operator runs with. */
  args: string[];
  metricsUrl: string;
  /** The health probe server: `/healthz`, `/readyz`. */
  probeUrl: string;
  logFile: string;
  /** The ServiceAccount's kubeconfig the operator runs with (a token of this cluster only). */
  kubeconfigFile: string;
  stop(): Promise<void>;
}

export async function installWithHelm(opts: {
  kubeconfig: string;
  kc: KubeConfig;
  emulator: Emulator;
  namespace: string;
  /** The chart's `clusterName`: the owner recorded in the cloud for what the operator creates. */
  clusterName: string;
  release?: string;
  say: (message: string) => void;
}): Promise<InstalledOperator> {
  const { kubeconfig, kc, emulator, namespace, clusterName, release = 'sluice', say } = opts;
  helmWithValues(
    [
      'install',
      release,
      chartDir,
      '--namespace',
      namespace,
      '--create-namespace',
      '--kubeconfig',
      kubeconfig,
    ],
    {
      image: LOCAL_IMAGE,
      credentials: chartCredentials(emulator),
      clusterName,
      operator: { pollInterval: '500ms' },
    },
  );
  await waitEstablished(
    kc,
    KINDS.map((k) => `${k.plural}.${GROUP}`),
  );
  // helm cached the apiserver's discovery (~/.kube/cache) before the CRDs existed; kubectl would trust that
  // cache and not know `kubectl get sluice`. api-resources always rediscovers and rewrites it.
  run(kubectlBin(), ['api-resources', '--api-group', GROUP, '--kubeconfig', kubeconfig]);
  say(
    `helm install ${release} charts/sluice -n ${namespace} --set clusterName=${clusterName}: CRDs, RBAC, credentials Secret, Deployment`,
  );

  const manifests = parseManifests(
    run(helmBin(), ['get', 'manifest', release, '--namespace', namespace, '--kubeconfig', kubeconfig]),
  );
  const args = operatorArgs(manifests);
  const serviceAccount = operatorPodTemplate(manifests).spec.serviceAccountName!;
  const operatorKubeconfig = join(repoRoot, '.sluice', 'operator-kubeconfig');
  writeFileSync(operatorKubeconfig, await serviceAccountKubeconfig(kc, namespace, serviceAccount), {
    mode: 0o600,
  });

  // The Deployment's ports may be taken on this machine: the probe and metrics servers move to free ones.
  const [metricsPort, probePort] = [await freePort(), await freePort()];
  const logFile = join(repoRoot, '.sluice', 'operator.log');
  const operator = spawnSluiceRun({
    args,
    kubeconfig: operatorKubeconfig,
    logFile,
    metricsAddress: `127.0.0.1:${metricsPort}`,
    probeAddress: `127.0.0.1:${probePort}`,
  });

  // Ready once every cache has synced: the ServiceAccount could list and watch what it needs.
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (operator.child.exitCode !== null)
      throw new Error(`sluice run exited (${operator.child.exitCode}); see ${logFile}`);
    const ready = await fetch(`http://127.0.0.1:${probePort}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`sluice run not ready after 30 s; see ${logFile}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  // The arguments as run: the chart's, with the bind addresses this machine had free.
  const bound = {
    '--metrics-bind-address': `127.0.0.1:${metricsPort}`,
    '--health-probe-bind-address': `127.0.0.1:${probePort}`,
  };
  const ran = args
    .slice(1)
    .map((arg) => {
      const flag = arg.split('=')[0]! as keyof typeof bound;
      return flag in bound ? `${flag}=${bound[flag]}` : arg;
    })
    .join(' ');
  say(`sluice run ${ran}  (as ServiceAccount ${namespace}/${serviceAccount}; log ${logFile})`);
  return {
    args,
    metricsUrl: `http://127.0.0.1:${metricsPort}`,
    probeUrl: `http://127.0.0.1:${probePort}`,
    logFile,
    kubeconfigFile: operatorKubeconfig,
    stop: operator.stop,
  };
}
