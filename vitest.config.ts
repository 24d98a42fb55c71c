import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // 2-core machines: integration files start servers; more forks than cores only adds contention.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // Pure code: no server, no child process, no network.
          include: ['test/unit/**/*.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'emulator',
          // The emulator's contract and the cloud clients over real HTTP (an emulator per file on a free port).
          include: ['test/contract/**/*.test.ts', 'test/integration/cloud/**/*.test.ts'],
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
          globalSetup: ['test/harness/globalSetup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'node',
          // Its own control plane with one real node (containerd, kubelet, kube-proxy; root only).
          include: ['test/integration/node/**/*.test.ts'],
          // One node cluster per machine (a lock): its files run one after the other.
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'image',
          // The Dockerfile's steps run without Docker, and the result started under Node 24 (npm's node@24).
          include: ['test/image/**/*.test.ts'],
        },
      },
    ],
  },
});
