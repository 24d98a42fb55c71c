// The chart as users install it, on the real node: the image built from the project's Dockerfile (buildah, bases
// made here), `helm install` with only the image set besides the cloud credentials, and the operator running as
// the chart's pod under the real quota (10 requests / 10 s), reaching the apiserver through the `kubernetes`
// Service with its ServiceAccount token and the cloud (the emulator) on the node's bridge.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  type KubernetesObject,
  type V1Pod,
} from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../../src/emulator/server.ts';
import type { CallRecord } from '../../../src/emulator/call-log.ts';
import { repoRoot } from '../../../tools/cluster/assets.ts';
import { startControlPlane, type ControlPlane } from '../../../tools/cluster/controlPlane.ts';
import { operatorImage, type OperatorImage } from '../../../tools/cluster/image.ts';
import { chartCredentials, chartDir, helmWithValues, kubectlApply } from '../../../tools/cluster/install.ts';
import { NODE_NETWORK, pidsWithArgument } from '../../../tools/cluster/node.ts';
import { node24 } from '../../support/node24.ts';
import { RESTRICTED } from '../install/support.ts';
import { eventually, nodeSkipReason } from './support.ts';

const RELEASE = 'sluice';
const RELEASE_NS = 'sluice-system';
const SERVICES_ROUTE = '/v1/organizations/:organizationId/services';
const EXAMPLES_NS = 'examples';
/** Generous: two cores shared with other builds and test runs. */
const SETTLE_MS = 240_000;

type Sluice = KubernetesObject & { status?: { conditions?: { type: string; status: string }[] } };

const examples = readdirSync(join(repoRoot, 'deploy', 'examples'))
  .filter((file) => file.endsWith('.yaml'))
  .sort()
  .flatMap((file) =>
    parseAllDocuments(readFileSync(join(repoRoot, 'deploy', 'examples', file), 'utf8')).map(
      (document) => document.toJS() as KubernetesObject,
    ),
  )
  .map((object) => ({ ...object, metadata: { ...object.metadata, namespace: EXAMPLES_NS } }));
const sluiceExamples = examples.filter((object) => object.kind !== 'Secret');

const isReady = (object: Sluice | undefined) =>
  object?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

describe.skipIf(nodeSkipReason())('the chart installed with helm on the real node', () => {
  let image: OperatorImage;
  let cp: ControlPlane;
  let emulator: Emulator;
  let kc: KubeConfig;
  let core: CoreV1Api;

  beforeAll(async () => {
    image = operatorImage({ node: node24() });
    console.log(
      `[node] image ${image.repository}:${image.tag} ${image.built ? 'built' : 'from the cache'} in ${(image.ms / 1000).toFixed(1)} s`,
    );
    // The chart installs the CRDs itself.
    cp = await startControlPlane({ node: true, crdDir: false });
    cp.node!.loadImage(image.archive, `${image.repository}:${image.tag}`);
    // The real quota (10 requests / 10 s per key). On every address: the pod reaches it on the bridge's, and the
    // call log answers loopback callers only.
    emulator = await startEmulator({ host: '0.0.0.0', port: 0, transitionMs: 500, logger: false });
    kc = new KubeConfig();
    kc.loadFromString(cp.kubeconfigYaml);
    core = kc.makeApiClient(CoreV1Api);
  }, 900_000);
  afterAll(async () => {
    await cp?.stop();
    await emulator?.stop();
  });

  /** Only the image and the cloud credentials set, besides `extra`. */
  const helm = (command: 'install' | 'upgrade', extra: Record<string, unknown> = {}) =>
    helmWithValues([command, RELEASE, chartDir, '--kubeconfig', cp.kubeconfig, '-n', RELEASE_NS], {
      image: { repository: image.repository, tag: image.tag, pullPolicy: 'Never' },
      credentials: chartCredentials({ ...emulator, url: `http://${NODE_NETWORK.nodeIp}:${emulator.port}` }),
      ...extra,
    });
  const operatorPod = async (): Promise<V1Pod | undefined> => {
    const pods = await core.listNamespacedPod({
      namespace: RELEASE_NS,
      labelSelector: `app.kubernetes.io/instance=${RELEASE}`,
    });
    return pods.items.find((pod) => !pod.metadata?.deletionTimestamp);
  };
  const podReady = (pod: V1Pod | undefined) =>
    pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
  const calls = async (): Promise<CallRecord[]> =>
    ((await (await fetch(`${emulator.url}/_emulator/calls`)).json()) as { calls: CallRecord[] }).calls;
  const examplesReady = async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    for (const object of sluiceExamples) {
      if (!isReady((await objects.read(object as never)) as Sluice)) return undefined;
    }
    return true;
  };

  it(
    'becomes Ready through its readiness probe under the restricted profile, leads under its pod name, serves /metrics and makes the examples Ready',
    async () => {
      // The restricted Pod Security profile, enforced: the pod is admitted only if the chart complies.
      await core.createNamespace({ body: { metadata: { name: RELEASE_NS, labels: RESTRICTED } } });
      helm('install');
      const pod = await eventually(
        'the operator pod Ready',
        async () => {
          const found = await operatorPod();
          return podReady(found) ? found : undefined;
        },
        SETTLE_MS,
      );
      const podName = pod.metadata!.name!;
      expect(pod.spec!.nodeName).toBe(cp.node!.name);
      expect(pod.spec!.containers[0]!.securityContext?.readOnlyRootFilesystem).toBe(true);

      const coordination = kc.makeApiClient(CoordinationV1Api);
      const holder = await eventually(
        'the Lease held',
        async () => {
          const lease = await coordination.readNamespacedLease({ name: RELEASE, namespace: RELEASE_NS });
          return lease.spec?.holderIdentity || undefined;
        },
        SETTLE_MS,
      );
      expect(holder.split('_')[0]).toBe(podName);

      const metrics = await (await fetch(`http://${pod.status!.podIP}:8080/metrics`)).text();
      expect(metrics).toContain('sluice_');

      await core.createNamespace({ body: { metadata: { name: EXAMPLES_NS } } });
      kubectlApply(cp.kubeconfig, examples as never);
      await eventually('every example Ready', examplesReady, SETTLE_MS);
      expect((await calls()).filter((c) => c.status === 429)).toEqual([]);

      console.log(`[node] operator at rest with the examples: ${memoryReport()}`);
    },
    SETTLE_MS * 4,
  );

  it(
    'is restarted by the kubelet after a kill -9, with no duplicate, no 429 and no password reset',
    async () => {
      const before = await operatorPod();
      expect(podReady(before)).toBe(true);
      const creates = (log: CallRecord[]) =>
        log.filter((c) => c.method === 'POST' && c.status < 300 && !/\/(start|stop|password)$/.test(c.path));
      const createsBefore = creates(await calls()).length;
      const coordination = kc.makeApiClient(CoordinationV1Api);
      const holder = async () =>
        (await coordination.readNamespacedLease({ name: RELEASE, namespace: RELEASE_NS })).spec
          ?.holderIdentity;
      const holderBefore = await holder();

      const [pid] = operatorPids();
      expect(pid).toBeDefined();
      const killedAt = new Date().toISOString();
      process.kill(pid!, 'SIGKILL');

      const after = await eventually(
        'the container restarted and Ready',
        async () => {
          const found = await operatorPod();
          const restarts = found?.status?.containerStatuses?.[0]?.restartCount ?? 0;
          return restarts >= 1 && podReady(found) ? found : undefined;
        },
        SETTLE_MS,
      );
      expect(after.metadata!.uid).toBe(before!.metadata!.uid);
      // The new process leads (the killed one never released the Lease) and works: it calls the cloud again.
      await eventually(
        'a new Lease holder',
        async () => {
          const current = await holder();
          return current && current !== holderBefore ? current : undefined;
        },
        SETTLE_MS,
      );
      const since = await eventually(
        'calls from the restarted operator',
        async () => {
          const found = (await calls()).filter((c) => c.timestamp > killedAt);
          return found.length > 0 ? found : undefined;
        },
        SETTLE_MS,
      );
      await eventually('every example Ready', examplesReady, SETTLE_MS);

      const log = await calls();
      expect(log.filter((c) => c.status === 429)).toEqual([]);
      expect(creates(log)).toHaveLength(createsBefore);
      expect(since.filter((c) => c.path.endsWith('/password'))).toEqual([]);
    },
    SETTLE_MS * 3,
  );

  it(
    'rolls out a helm upgrade with 20 creates in flight under the real quota: no duplicate, no 429',
    async () => {
      const before = await operatorPod();
      expect(podReady(before)).toBe(true);
      const objects = KubernetesObjectApi.makeApiClient(kc);
      const services = Array.from({ length: 20 }, (_, i) => ({
        apiVersion: 'sluice.dev/v1alpha1',
        kind: 'DatabaseService',
        metadata: { name: `burst-${i}`, namespace: EXAMPLES_NS },
        spec: { name: `burst ${i}`, provider: 'aws', region: 'us-east-1' },
      }));
      for (const service of services) await objects.create(service);
      // A changed value changes the pod template: the Deployment's Recreate rollout replaces the pod.
      helm('upgrade', { operator: { logLevel: 'debug' } });
      // The quota allows 10 requests per 10 s: most creates are still to come when the old pod is told to stop.
      const createdAtUpgrade = burstCreates(await calls());
      expect(createdAtUpgrade.length).toBeLessThan(services.length);

      const after = await eventually(
        'the replacement pod Ready',
        async () => {
          const found = await operatorPod();
          return found && found.metadata!.uid !== before!.metadata!.uid && podReady(found)
            ? found
            : undefined;
        },
        SETTLE_MS,
      );
      expect(after.spec!.containers[0]!.args).toContain('--log-level=debug');
      await eventually(
        'every burst service Ready',
        async () => {
          for (const service of services)
            if (!isReady((await objects.read(service as never)) as Sluice)) return undefined;
          return true;
        },
        SETTLE_MS * 2,
      );

      const log = await calls();
      expect(log.filter((c) => c.status === 429)).toEqual([]);
      const created = burstCreates(log);
      expect(created.sort()).toEqual(services.map((s) => s.spec.name).sort());
    },
    SETTLE_MS * 4,
  );
});

/** The names of the burst services the cloud created, one per successful create. */
function burstCreates(log: CallRecord[]): string[] {
  return log
    .filter((c) => c.method === 'POST' && c.route === SERVICES_ROUTE && c.status < 300)
    .map((c) => (c.body as { name: string }).name)
    .filter((name) => name.startsWith('burst '));
}

/** The operator's processes on this machine (the image's entrypoint names its script). */
function operatorPids(): number[] {
  return pidsWithArgument('/app/bin/sluice.js');
}

/** The operator's resident memory and its container's working set (what the kubelet reports), from cgroup v1. */
function memoryReport(): string {
  const [pid] = operatorPids();
  if (!pid) return 'no process';
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  const cgroup = /^\d+:memory:(.*)$/m.exec(readFileSync(`/proc/${pid}/cgroup`, 'utf8'))?.[1];
  let workingSet = 'unknown';
  if (cgroup) {
    const dir = join('/sys/fs/cgroup/memory', cgroup);
    const usage = Number(readFileSync(join(dir, 'memory.usage_in_bytes'), 'utf8'));
    const inactive = Number(
      /^total_inactive_file (\d+)$/m.exec(readFileSync(join(dir, 'memory.stat'), 'utf8'))?.[1] ?? 0,
    );
    workingSet = `${((usage - inactive) / 1048576).toFixed(1)} MiB`;
  }
  return `RSS ${(Number(rss) / 1024).toFixed(1)} MiB, container working set ${workingSet}`;
}
