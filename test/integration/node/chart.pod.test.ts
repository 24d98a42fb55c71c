// The chart as users install it, on the real node: the image built from the project's Dockerfile (buildah, bases
// made here), `helm install` with only the image set besides the cloud credentials, and the operator running as
// the chart's pod under the real quota (10 requests / 10 s), reaching the apiserver through the `kubernetes`
// Service with its ServiceAccount token and the cloud (the emulator) on the node's bridge.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallRecord } from '../../../src/emulator/call-log.ts';
import { repoRoot } from '../../../tools/cluster/assets.ts';
import {
  containerMemory,
  mib,
  operatorPids,
  podReady,
  RELEASE_NAMESPACE as RELEASE_NS,
  type ChartOnNode,
} from '../../../tools/cluster/chart-on-node.ts';
import { kubectlApply } from '../../../tools/cluster/install.ts';
import { RESTRICTED } from '../install/support.ts';
import { chartOnSharedNode } from './shared-node.ts';
import { eventually, isReady, nodeSkipReason, serviceCreates, type Sluice } from './support.ts';

const EXAMPLES_NS = 'examples';
/** Generous: two cores shared with other builds and test runs. */
const SETTLE_MS = 240_000;

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

describe.skipIf(nodeSkipReason())('the chart installed with helm on the real node', () => {
  let chart: ChartOnNode;
  let cp: ChartOnNode['cp'];
  let kc: ChartOnNode['kc'];
  let core: ChartOnNode['core'];

  beforeAll(async () => {
    chart = await chartOnSharedNode({ log: (msg) => console.log(`[node] ${msg}`) });
    ({ cp, kc, core } = chart);
  }, 900_000);
  afterAll(async () => {
    await chart?.stop();
  });

  const helm = (command: 'install' | 'upgrade', extra: Record<string, unknown> = {}) =>
    chart.helm(command, extra);
  const operatorPod = async () => (await chart.operatorPods())[0];
  const calls = () => chart.calls();
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
      expect(pod.spec!.nodeName).toBe(chart.nodeName);
      expect(pod.spec!.containers[0]!.securityContext?.readOnlyRootFilesystem).toBe(true);

      const holder = await eventually(
        'the Lease held',
        async () => (await chart.leaseHolder()) || undefined,
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
      const holder = () => chart.leaseHolder();
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
      const createdAtUpgrade = serviceCreates(await calls(), 'burst ');
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
      const created = serviceCreates(log, 'burst ');
      expect(created.sort()).toEqual(services.map((s) => s.spec.name).sort());
    },
    SETTLE_MS * 4,
  );
});

/** The operator's resident memory and its container's working set (what the kubelet reports). */
function memoryReport(): string {
  const [pid] = operatorPids();
  if (!pid) return 'no process';
  const memory = containerMemory(pid);
  return `RSS ${mib(memory.processRss)}, container working set ${mib(memory.workingSet)}`;
}
