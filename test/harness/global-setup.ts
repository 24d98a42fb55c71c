// vitest globalSetup: one control plane for the whole test run (starting one
// per file would cost seconds each; files isolate themselves by namespace,
// see namespace.ts). Tests reach it through test-cluster.ts.
//
// Wire-up (vitest.config.ts):  test: { globalSetup: ['test/harness/global-setup.ts'] }
import type { TestProject } from 'vitest/node';
import { ensureControlPlaneBinaries } from '../../tools/cluster/assets.ts';
import {
  ClusterUnavailableError,
  startControlPlane,
  type ControlPlane,
} from '../../tools/cluster/control-plane.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let cp: ControlPlane | undefined;
  // The local control plane is built on first use; an existing cluster or K3s needs no binaries.
  if (!process.env.SLUICE_TEST_KUBECONFIG && process.env.SLUICE_TEST_K3S !== '1')
    ensureControlPlaneBinaries();
  try {
    cp = await startControlPlane({ log: (m) => console.log(`[test-cluster] ${m}`) });
  } catch (err) {
    if (!(err instanceof ClusterUnavailableError)) throw err;
    // Only an explicitly optional cluster kind (K3s) ends here: skip, loudly.
    console.warn(`[test-cluster] SKIPPING cluster tests: ${err.message}`);
    project.provide('sluiceKubeconfigPath', null);
    project.provide('sluiceClusterSkipReason', err.message);
    return async () => {};
  }
  console.log(
    `[test-cluster] ${cp.kind} cluster ready at ${cp.server} in ${(cp.startupMs / 1000).toFixed(1)} s`,
  );
  process.env.SLUICE_TEST_KUBECONFIG_PATH = cp.kubeconfig;
  project.provide('sluiceKubeconfigPath', cp.kubeconfig);
  project.provide('sluiceClusterSkipReason', null);
  const started = cp;
  return async () => {
    await started.stop();
  };
}
