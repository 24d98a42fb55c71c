// `npm run cluster`: the test control plane in the foreground, for people. `npm run cluster -- --node` adds
// one real node (containerd, kubelet, kube-scheduler, kube-proxy; needs root).
// Writes an admin kubeconfig to .sluice/kubeconfig (git-ignored) and stops
// cleanly (processes and temp files) on Ctrl-C or SIGTERM.
import { join, relative } from 'node:path';
import { repoRoot } from '../tools/cluster/assets.ts';
import { startControlPlane } from '../tools/cluster/control-plane.ts';
import { nodeUnavailableReason } from '../tools/cluster/node.ts';

const kubeconfigPath = join(repoRoot, '.sluice', 'kubeconfig');
const log = (msg: string): void => console.error(`[cluster] ${msg}`);

async function main(): Promise<void> {
  const node = process.argv.includes('--node');
  if (node) {
    const reason = nodeUnavailableReason();
    if (reason) throw new Error(`cannot run a node here: ${reason}`);
  }
  const cp = await startControlPlane({ kubeconfigPath, log, node });

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping ...`);
    cp.stop().then(
      () => {
        log('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, shutdown);

  log(`${cp.kind} cluster ready at ${cp.server} in ${(cp.startupMs / 1000).toFixed(1)} s`);
  log(`kubeconfig: ${relative(process.cwd(), kubeconfigPath) || kubeconfigPath} (Ctrl-C stops the cluster)`);
  console.log(`export KUBECONFIG=${kubeconfigPath}`);
  // The children are unref'd; this timer keeps us in the foreground until a signal.
  setInterval(() => {}, 1 << 30);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
