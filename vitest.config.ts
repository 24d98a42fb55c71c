import { defineConfig } from 'vitest/config';
import { TestFileOrder } from './test/harness/sequencer.ts';

/**
 * Cluster test files at once. Their time goes on waiting (for the apiserver's watches, the emulator's
 * transitions, quota windows), not on the cores, so more files than cores share the machine: on 2 cores, in
 * `npm test` with the node project beside them, the cluster files took 560 s with 5 at once against 626-651 s
 * with 4. `SLUICE_TEST_CLUSTER_WORKERS` sets it for a larger machine.
 */
const clusterWorkers = Number(process.env.SLUICE_TEST_CLUSTER_WORKERS) || 5;

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    sequence: { sequencer: TestFileOrder },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Unit, emulator and image files keep a core busy each: more forks than the 2 cores only add contention.
    // Projects with their own worker count run as their own group (sequence.groupOrder), one group after another.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // Pure code: no child process, no network. Five files open a server on loopback, as fast as pure
          // code: the fake kube API (`test/unit/kube/fake-kube-api.ts`) of the manager, kube-writer,
          // reflector-fault and plan-admission tests, and the health and metrics servers' own test.
          include: ['test/unit/**/*.test.ts'],
          // No file leaves global state behind, so a worker keeps its modules from file to file instead of
          // importing zod, the schemas and the kinds again for each: a third of the time.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'emulator',
          // The emulator's contract and the cloud clients over real HTTP (an emulator per file on a free port).
          include: ['test/contract/**/*.test.ts', 'test/integration/cloud/**/*.test.ts'],
          // Each file starts and closes its own emulators: the modules can stay loaded between files.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'cluster',
          include: [
            'test/integration/*.test.ts',
            'test/integration/kube/**/*.test.ts',
            'test/integration/operator/**/*.test.ts',
            'test/integration/install/**/*.test.ts',
          ],
          // One real kube-apiserver + etcd for the whole run; each file works in its own namespace.
          globalSetup: ['test/harness/global-setup.ts'],
          // A worker keeps its modules from file to file: isolated, each of the ~100 files spent over half a second
          // of CPU importing the operator again (12 small files: 17.7 CPU-s isolated, 10.4 shared), on a machine the
          // suite keeps busy.
          // What a file changes process-wide it sets at its start (the operator's time scale at each start).
          isolate: false,
          maxWorkers: clusterWorkers,
          // A test here is a chain of waits on state, each with its own bound and a message naming what did
          // not happen; the test's own timeout only catches a hang. At 30 s a loaded machine (a fresh CI
          // machine's first run) ended chains whose every step was within its bound, saying nothing useful.
          testTimeout: 90_000,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'node',
          // One control plane with one real node (containerd, kubelet, kube-proxy; root only) for the run,
          // started while the operator's image builds; each file installs its release and clears it at its end.
          // node.smoke starts and stops nodes of its own: it runs first (test/harness/sequencer.ts), and the
          // shared node cluster starts when the next file asks.
          include: ['test/integration/node/**/*.test.ts'],
          globalSetup: ['test/harness/node-global-setup.ts'],
          // One node cluster per machine (a lock): its files run one after the other. vitest runs a project
          // without file parallelism as a group of its own after the others, so it does not overlap the
          // cluster files although it mostly waits on its kubelet: in their group it would have to take their
          // worker count, and node files waiting for the lock would hold worker slots the cluster files need.
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'image',
          // The operator's image built from the Dockerfile (buildah, as root; elsewhere the layout script's run of
          // its steps) and started under Node 24 (npm's node@24); the layout script on a Dockerfile of its own.
          include: ['test/image/**/*.test.ts'],
        },
      },
    ],
  },
});
