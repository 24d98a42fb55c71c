// Finds the control-plane binaries built by `npm run envtest:setup`
// (scripts/envtest-setup.mjs). Kept in step with that script: same cache
// root, same version directory taken from test/envtest/go.mod.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Assets {
  dir: string;
  kubeApiserver: string;
  /** Runs the namespace controller and the garbage collector (see controller-manager.ts). */
  kubeControllerManager: string;
  etcd: string;
  /** Present after a full setup; the harness itself does not need it. */
  kubectl: string;
  /** The node's binaries (`npm run cluster -- --node`). */
  kubelet: string;
  kubeScheduler: string;
  kubeProxy: string;
}

/** The Kubernetes release the control plane is built from, e.g. "v1.34.4". */
export function k8sVersion(): string {
  const goMod = readFileSync(join(repoRoot, 'test', 'envtest', 'go.mod'), 'utf8');
  const m = goMod.match(/^\s*(?:require\s+)?k8s\.io\/kubernetes\s+(v\S+)/m);
  if (!m?.[1]) throw new Error('test/envtest/go.mod does not require k8s.io/kubernetes');
  return m[1];
}

/** KUBEBUILDER_ASSETS when set, else the setup script's cache directory. */
export function assetsDir(): string {
  if (process.env.KUBEBUILDER_ASSETS) return resolve(process.env.KUBEBUILDER_ASSETS);
  const root = process.env.SLUICE_CACHE_DIR
    ? resolve(process.env.SLUICE_CACHE_DIR)
    : join(homedir(), '.cache', 'sluice', 'envtest');
  return join(root, k8sVersion(), 'bin');
}

export function findAssets(): Assets {
  const dir = assetsDir();
  const assets: Assets = {
    dir,
    kubeApiserver: join(dir, 'kube-apiserver'),
    kubeControllerManager: join(dir, 'kube-controller-manager'),
    etcd: join(dir, 'etcd'),
    kubectl: join(dir, 'kubectl'),
    kubelet: join(dir, 'kubelet'),
    kubeScheduler: join(dir, 'kube-scheduler'),
    kubeProxy: join(dir, 'kube-proxy'),
  };
  const missing = [assets.kubeApiserver, assets.kubeControllerManager, assets.etcd].filter(
    (p) => !existsSync(p),
  );
  if (missing.length > 0) {
    throw new Error(
      `control-plane binaries not found (${missing.join(', ')}). ` +
        'Run `npm run envtest:setup` (builds them once, ~15 min cold) or point KUBEBUILDER_ASSETS at a directory ' +
        'holding kube-apiserver, kube-controller-manager and etcd.',
    );
  }
  return assets;
}

/**
 * Runs `scripts/envtest-setup.mjs` (idempotent: well under a second when the binaries are built, ~12 min the
 * first time; honours KUBEBUILDER_ASSETS) so a fresh checkout needs no separate set-up step. Progress goes to
 * stderr.
 */
export function ensureControlPlaneBinaries(): void {
  const setup = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'envtest-setup.mjs')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (setup.status !== 0)
    throw new Error(`npm run envtest:setup failed (exit ${setup.status ?? setup.signal})`);
}
