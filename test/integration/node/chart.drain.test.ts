// `kubectl drain` of the real node with the chart's PodDisruptionBudget on and two replicas (the production
// shape: a leader and a standby), under the real quota (10 requests / 10 s). The drain evicts the leader: the
// kubelet sends it SIGTERM, it finishes its reconciles, releases the Lease and exits, and the standby takes over,
// all inside the pod's termination grace period and with creates in flight. The budget then refuses to evict the
// last pod, which keeps leading; uncordoned, the replacement pod runs as a standby.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  KubernetesObjectApi,
  PolicyV1Api,
  Watch,
  type KubernetesObject,
  type V1Pod,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  podReady,
  RELEASE,
  RELEASE_NAMESPACE,
  type ChartOnNode,
} from '../../../tools/cluster/chart-on-node.ts';
import { kubectlBin } from '../../../tools/cluster/install.ts';
import { RESTRICTED } from '../install/support.ts';
import { chartOnSharedNode } from './shared-node.ts';
import { eventually, isReady, nodeSkipReason, serviceCreates, type Sluice } from './support.ts';

const WORK_NS = 'drained';
/** Generous: two cores shared with other builds and test runs. */
const SETTLE_MS = 240_000;
/** The label the test puts on the leader so that the first drain evicts it and nothing else. */
const EVICT_LABEL = 'sluice.dev/test-evict';

const podName = (identity: string) => identity.split('_')[0] ?? '';

describe.skipIf(nodeSkipReason())('kubectl drain of the node with the chart’s PodDisruptionBudget', () => {
  let chart: ChartOnNode;
  /** The pod that led before the drain and the one that took over. */
  let leader: V1Pod;
  let standby: V1Pod;

  beforeAll(async () => {
    chart = await chartOnSharedNode({ log: (msg) => console.log(`[drain] ${msg}`) });
  }, 900_000);
  afterAll(async () => {
    await chart?.stop();
  });

  const kubectl = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await promisify(execFile)(
        kubectlBin(),
        ['--kubeconfig', chart.cp.kubeconfig, ...args],
        { encoding: 'utf8' },
      );
      return { ok: true, out: `${stdout}${stderr}` };
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      return { ok: false, out: `${stdout ?? ''}${stderr ?? ''}` };
    }
  };
  const services = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      apiVersion: 'sluice.dev/v1alpha1',
      kind: 'DatabaseService',
      metadata: { name: `${prefix}-${i}`, namespace: WORK_NS },
      spec: { name: `${prefix} ${i}`, provider: 'aws', region: 'us-east-1' },
    }));
  const allReady = async (objects: KubernetesObject[]) => {
    const api = KubernetesObjectApi.makeApiClient(chart.kc);
    for (const object of objects) if (!isReady((await api.read(object as never)) as Sluice)) return undefined;
    return true;
  };

  it(
    'evicts the leader, which releases the Lease to the standby and exits (not killed) inside its grace period, with creates in flight: no duplicate, no 429',
    async () => {
      await chart.core.createNamespace({
        body: { metadata: { name: RELEASE_NAMESPACE, labels: RESTRICTED } },
      });
      chart.helm('install', { replicas: 2, podDisruptionBudget: { enabled: true } });
      const pods = await eventually(
        'both pods Ready',
        async () => {
          const found = await chart.operatorPods();
          return found.length === 2 && found.every(podReady) ? found : undefined;
        },
        SETTLE_MS,
      );
      const holder = await eventually(
        'the Lease held',
        async () => (await chart.leaseHolder()) || undefined,
        SETTLE_MS,
      );
      leader = pods.find((pod) => pod.metadata!.name === podName(holder))!;
      standby = pods.find((pod) => pod !== leader)!;
      expect(leader).toBeDefined();
      // The disruption controller has counted both pods: one may go.
      const policy = chart.kc.makeApiClient(PolicyV1Api);
      await eventually(
        'the budget allows one disruption',
        async () => {
          const pdb = await policy.readNamespacedPodDisruptionBudget({
            name: RELEASE,
            namespace: RELEASE_NAMESPACE,
          });
          return pdb.status?.disruptionsAllowed === 1 ? pdb : undefined;
        },
        SETTLE_MS,
      );

      // Watched from before the drain: the leader's deletion, its container's exit and the Lease's holders.
      const seen: {
        evictedAt?: number;
        exitedAt?: number;
        goneAt?: number;
        exitCode?: number;
        reason?: string;
      } = {};
      const watch = await new Watch(chart.kc).watch(
        `/api/v1/namespaces/${RELEASE_NAMESPACE}/pods`,
        {},
        (type, pod: V1Pod) => {
          if (pod.metadata?.uid !== leader.metadata!.uid) return;
          const now = Date.now();
          if (pod.metadata?.deletionTimestamp) seen.evictedAt ??= now;
          const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
          if (terminated && seen.exitedAt === undefined) {
            seen.exitedAt = now;
            seen.exitCode = terminated.exitCode;
            seen.reason = terminated.reason;
          }
          if (type === 'DELETED') seen.goneAt ??= now;
        },
        () => undefined,
      );
      const holders: { at: number; holder: string }[] = [];
      let watching = true;
      const leasePoll = (async () => {
        while (watching) {
          const current = await chart.leaseHolder().catch(() => undefined);
          if (current !== undefined && holders.at(-1)?.holder !== current)
            holders.push({ at: Date.now(), holder: current });
          await new Promise((r) => setTimeout(r, 100));
        }
      })();

      await chart.core.createNamespace({ body: { metadata: { name: WORK_NS } } });
      const burst = services('drain', 20);
      const api = KubernetesObjectApi.makeApiClient(chart.kc);
      for (const service of burst) await api.create(service);
      expect(
        (await kubectl('label', 'pod', '-n', RELEASE_NAMESPACE, leader.metadata!.name!, `${EVICT_LABEL}=yes`))
          .ok,
      ).toBe(true);
      const drain = await kubectl(
        'drain',
        chart.nodeName,
        `--pod-selector=${EVICT_LABEL}=yes`,
        // The chart's pod has an emptyDir (/tmp, the root filesystem is read-only): drain asks before deleting it.
        '--delete-emptydir-data',
        '--ignore-daemonsets',
        '--timeout=120s',
      );
      expect(drain.out).toContain(`pod/${leader.metadata!.name} evicted`);
      expect(drain.ok).toBe(true);
      // The quota allows 10 requests per 10 s: most creates were still to come when the leader was told to stop.
      const createdAtDrain = serviceCreates(await chart.calls(), 'drain ');
      await eventually(
        'the standby leads',
        async () => (podName(holders.at(-1)?.holder ?? '') === standby.metadata!.name ? true : undefined),
        SETTLE_MS,
      );
      watching = false;
      await leasePoll;
      watch.abort();

      const grace = (leader.spec!.terminationGracePeriodSeconds ?? 30) * 1000;
      const evictedAt = seen.evictedAt!;
      const releasedAt = holders.find((h) => h.holder !== holder)!.at;
      const takenAt = holders.find((h) => podName(h.holder) === standby.metadata!.name)!.at;
      console.log(
        `[drain] grace ${grace / 1000} s; from eviction: Lease released +${releasedAt - evictedAt} ms, taken by the standby +${takenAt - evictedAt} ms, container exited +${(seen.exitedAt ?? NaN) - evictedAt} ms (code ${seen.exitCode}, ${seen.reason}), pod gone +${(seen.goneAt ?? NaN) - evictedAt} ms; ${createdAtDrain.length} of 20 creates made before the drain`,
      );
      expect(evictedAt).toBeDefined();
      expect(releasedAt - evictedAt).toBeLessThan(grace);
      expect(takenAt - evictedAt).toBeLessThan(grace);
      expect(releasedAt).toBeLessThanOrEqual(takenAt);
      // Exit code 0: the operator stopped on SIGTERM; 137 would be the kubelet's SIGKILL at the end of the grace.
      expect(seen.exitCode).toBe(0);
      expect(seen.exitedAt! - evictedAt).toBeLessThan(grace);
      expect(seen.goneAt! - evictedAt).toBeLessThan(grace);
      expect(createdAtDrain.length).toBeLessThan(burst.length);

      await eventually('every burst service Ready', () => allReady(burst), SETTLE_MS * 2);
      const log = await chart.calls();
      expect(log.filter((c) => c.status === 429)).toEqual([]);
      expect(serviceCreates(log, 'drain ').sort()).toEqual(burst.map((s) => s.spec.name).sort());
    },
    SETTLE_MS * 5,
  );

  it(
    'refuses a drain that would evict the last pod: kubectl names the disruption budget, and the pod keeps leading and reconciling',
    async () => {
      const drain = await kubectl(
        'drain',
        chart.nodeName,
        '--delete-emptydir-data',
        '--ignore-daemonsets',
        // kubectl tries an eviction the budget refuses again every 5 s until this: the first refusal is its answer.
        '--timeout=10s',
      );
      expect(drain.ok).toBe(false);
      expect(drain.out).toMatch(/Cannot evict pod as it would violate the pod's disruption budget/);
      expect(drain.out).toContain(standby.metadata!.name);

      const running = await chart.operatorPods();
      const survivor = running.find((pod) => pod.metadata!.uid === standby.metadata!.uid);
      expect(podReady(survivor)).toBe(true);
      expect(podName(await chart.leaseHolder())).toBe(standby.metadata!.name);
      const after = services('refused', 1);
      await KubernetesObjectApi.makeApiClient(chart.kc).create(after[0]!);
      await eventually('a service created after the refusal Ready', () => allReady(after), SETTLE_MS);
    },
    SETTLE_MS * 2,
  );

  it(
    'runs the replacement pod as a standby once the node is uncordoned',
    async () => {
      expect((await kubectl('uncordon', chart.nodeName)).ok).toBe(true);
      const pods = await eventually(
        'two pods Ready again',
        async () => {
          const found = await chart.operatorPods();
          return found.length === 2 && found.every(podReady) ? found : undefined;
        },
        SETTLE_MS,
      );
      const replacement = pods.find((pod) => pod.metadata!.uid !== standby.metadata!.uid)!;
      expect(replacement.metadata!.uid).not.toBe(leader.metadata!.uid);
      expect(podName(await chart.leaseHolder())).toBe(standby.metadata!.name);
      expect((await chart.calls()).filter((c) => c.status === 429)).toEqual([]);
    },
    SETTLE_MS * 2,
  );
});
