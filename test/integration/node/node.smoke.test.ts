// The one-node cluster (`npm run cluster -- --node`): a pod on the real kubelet, containerd and runc, with an
// address on the node's bridge, reaches the apiserver the way every in-cluster client does (the `kubernetes`
// Service through kube-proxy, a projected ServiceAccount token, the cluster CA); and stopping the cluster takes
// every piece down.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api, KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAssets, repoRoot } from '../../../tools/cluster/assets.ts';
import { startControlPlane, type ControlPlane } from '../../../tools/cluster/control-plane.ts';
import {
  buildImageFromScratch,
  NODE_NETWORK,
  PAUSE_IMAGE,
  pidsWithArgument,
  podCgroupPids,
} from '../../../tools/cluster/node.ts';
import { yieldSharedNode } from './shared-node.ts';
import { nodeSkipReason } from './support.ts';

const PROBE_IMAGE = 'docker.io/library/kubectl:sluice-probe';

const kubeChains = () =>
  ['iptables', 'ip6tables'].flatMap((iptables) =>
    ['filter', 'nat', 'mangle'].flatMap((table) =>
      (spawnSync(iptables, ['-t', table, '-S'], { encoding: 'utf8' }).stdout ?? '')
        .split('\n')
        .filter((rule) => rule.includes('KUBE-')),
    ),
  );

describe.skipIf(nodeSkipReason())('one real node', () => {
  let cp: ControlPlane;
  let core: CoreV1Api;
  let kc: KubeConfig;
  const scratch = mkdtempSync(join(tmpdir(), 'sluice-node-test-'));
  const namespace = 'node-smoke';

  beforeAll(async () => {
    // This file starts, stops and crashes nodes of its own: the machine has room for one.
    await yieldSharedNode();
    cp = await startControlPlane({ node: true, crdDir: false });
    kc = new KubeConfig();
    kc.loadFromString(cp.kubeconfigYaml);
    core = kc.makeApiClient(CoreV1Api);
    // kubectl is a static binary: an image of it alone is an in-cluster client.
    const archive = join(scratch, 'probe.tar');
    const files: [string, string][] = [[findAssets().kubectl, '/kubectl']];
    buildImageFromScratch(scratch, { name: PROBE_IMAGE, files, entrypoint: ['/kubectl'], archive });
    cp.node!.loadImage(archive, PROBE_IMAGE);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'probe' } } });
  }, 180_000);
  afterAll(async () => {
    await cp?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('a pod on the bridge reaches the apiserver through the kubernetes Service with the token its ServiceAccount admission mounts', async () => {
    const pod: V1Pod = {
      metadata: { name: 'whoami' },
      spec: {
        restartPolicy: 'Never',
        serviceAccountName: 'probe',
        containers: [
          {
            name: 'kubectl',
            image: PROBE_IMAGE,
            imagePullPolicy: 'Never',
            // No kubeconfig: kubectl takes the in-cluster config (KUBERNETES_SERVICE_HOST, token, CA).
            args: ['auth', 'whoami'],
          },
        ],
      },
    };
    await core.createNamespacedPod({ namespace, body: pod });
    let done: V1Pod | undefined;
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      done = await core.readNamespacedPod({ name: 'whoami', namespace });
      if (done.status?.phase === 'Succeeded' || done.status?.phase === 'Failed') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const logs = await core.readNamespacedPodLog({ name: 'whoami', namespace });
    expect(done?.status?.phase, logs).toBe('Succeeded');
    expect(logs).toContain(`system:serviceaccount:${namespace}:probe`);
    expect(done!.spec!.nodeName).toBe(cp.node!.name);
    expect(done!.status!.podIP).toMatch(/^10\.244\.0\.\d+$/);
    expect(done!.status!.podIP).not.toBe(NODE_NETWORK.nodeIp);
  }, 120_000);

  it("a Deployment's ReplicaSet runs its pod under the namespace's default ServiceAccount", async () => {
    const apps = kc.makeApiClient(AppsV1Api);
    const labels = { app: 'idle' };
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: 'idle' },
        spec: {
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: { containers: [{ name: 'idle', image: PAUSE_IMAGE, imagePullPolicy: 'Never' }] },
          },
        },
      },
    });
    let available = 0;
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline && available < 1) {
      available =
        (await apps.readNamespacedDeployment({ name: 'idle', namespace })).status?.availableReplicas ?? 0;
      if (available < 1) await new Promise((r) => setTimeout(r, 250));
    }
    expect(available).toBe(1);
    const [pod] = (await core.listNamespacedPod({ namespace, labelSelector: 'app=idle' })).items;
    expect(pod!.metadata!.ownerReferences![0]!.kind).toBe('ReplicaSet');
    expect(pod!.spec!.serviceAccountName).toBe('default');
    expect(pod!.spec!.volumes!.map((v) => v.name)).toContainEqual(expect.stringMatching(/^kube-api-access-/));
  }, 120_000);

  it('refuses a second node cluster on the machine while this one runs, naming its process', async () => {
    await expect(startControlPlane({ node: true, crdDir: false })).rejects.toThrow(
      `another node cluster runs on this machine (process ${process.pid}`,
    );
    // The refused one took nothing down: this node still serves.
    expect((await core.readNode({ name: cp.node!.name })).metadata?.name).toBe(cp.node!.name);
    expect(spawnSync('ip', ['link', 'show', NODE_NETWORK.bridge]).status).toBe(0);
  });

  it('stopping the cluster takes down every process, the bridge, the rules and the mounts', async () => {
    const dir = join(cp.kubeconfig, '..');
    const socket = cp.node!.containerdAddress;
    await cp.stop();
    expect(existsSync(dir)).toBe(false);
    expect(spawnSync('ip', ['link', 'show', NODE_NETWORK.bridge]).status).not.toBe(0);
    expect(kubeChains()).toEqual([]);
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(dir);
    expect(pidsWithArgument(socket)).toEqual([]);
    expect(podCgroupPids()).toEqual([]);
  }, 120_000);

  it('a crash of the process running the node takes every piece down too', () => {
    // Another process starts a node, runs a pod on it and throws: only its exit hook is left to clean up.
    const script = `
      import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
      import { startControlPlane } from ${JSON.stringify(join(repoRoot, 'tools/cluster/control-plane.ts'))};
      const cp = await startControlPlane({ node: true, crdDir: false });
      console.log(JSON.stringify({ dir: cp.kubeconfig, socket: cp.node.containerdAddress }));
      const kc = new KubeConfig();
      kc.loadFromString(cp.kubeconfigYaml);
      const core = kc.makeApiClient(CoreV1Api);
      const image = ${JSON.stringify(PAUSE_IMAGE)};
      // ServiceAccount admission refuses a pod until the controller-manager has made the namespace's default.
      for (;;) {
        const found = await core.readNamespacedServiceAccount({ name: 'default', namespace: 'default' })
          .then(() => true, () => false);
        if (found) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      await core.createNamespacedPod({ namespace: 'default', body: { metadata: { name: 'left' },
        spec: { nodeName: cp.node.name, containers: [{ name: 'c', image, imagePullPolicy: 'Never' }] } } });
      for (;;) {
        const pod = await core.readNamespacedPod({ name: 'left', namespace: 'default' });
        if (pod.status?.phase === 'Running') break;
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error('crashed with a pod running');
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 150_000,
    });
    expect(child.stderr).toContain('crashed with a pod running');
    const { dir, socket } = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as {
      dir: string;
      socket: string;
    };
    const scratchDir = join(dir, '..');
    expect(existsSync(scratchDir)).toBe(false);
    expect(spawnSync('ip', ['link', 'show', NODE_NETWORK.bridge]).status).not.toBe(0);
    expect(kubeChains()).toEqual([]);
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(scratchDir);
    expect(pidsWithArgument(socket)).toEqual([]);
    expect(podCgroupPids()).toEqual([]);
    // The machine's one node is free again.
    expect(existsSync('/run/sluice-node.pid')).toBe(false);
  }, 180_000);
});
