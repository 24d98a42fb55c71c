// How test files find the cluster that global-setup.ts started.
//
// Transport: vitest's provide()/inject(). Values provided in globalSetup are
// serialised to every worker, whatever the pool (forks or threads), which an
// environment variable set in the main process after the pool exists is not
// guaranteed to be. globalSetup also sets SLUICE_TEST_KUBECONFIG_PATH in its
// own process for plain child processes it might start; tests use this module.
import { KubeConfig } from '@kubernetes/client-node';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Kubeconfig file of the shared test cluster; null when there is none. */
    sluiceKubeconfigPath: string | null;
    /** Why there is no cluster (e.g. K3s requested without Docker); null when there is one. */
    sluiceClusterSkipReason: string | null;
  }
}

/** Path of the shared cluster's kubeconfig, or undefined when tests must skip. */
export function testKubeconfigPath(): string | undefined {
  return inject('sluiceKubeconfigPath') ?? undefined;
}

/** Non-null when the cluster is unavailable; use with describe.skipIf(). */
export function clusterSkipReason(): string | null {
  if (testKubeconfigPath()) return null;
  return (
    inject('sluiceClusterSkipReason') ??
    'no test cluster (is test/harness/global-setup.ts wired into vitest?)'
  );
}

/** An admin KubeConfig for the shared cluster. */
export function testKubeConfig(): KubeConfig {
  const path = testKubeconfigPath();
  if (!path) throw new Error(clusterSkipReason() ?? 'no test cluster');
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}
