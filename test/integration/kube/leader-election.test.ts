// Leader election against the real kube-apiserver of the test harness: Lease writes, resourceVersion
// conflicts and MicroTime parsing are the server's, not a fake's.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { kubeRequestJson } from '../../../src/kube/kube-http.ts';
import { LeaderElector, microTime, type LeaderElectionOptions } from '../../../src/kube/leader-election.ts';
import { createTestNamespace, type TestNamespace } from '../../harness/namespace.ts';
import { clusterSkipReason } from '../../harness/test-cluster.ts';

interface Lease {
  metadata: { name: string; resourceVersion: string };
  spec: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    leaseTransitions?: number;
    renewTime?: string;
  };
}

const skip = clusterSkipReason();
const until = { timeout: 10_000, interval: 50 };

describe.skipIf(skip)('LeaderElector on a real apiserver', () => {
  let ns: TestNamespace;
  const electors: LeaderElector[] = [];
  let leaseNumber = 0;

  beforeAll(async () => {
    ns = await createTestNamespace('leader-election');
  });
  afterAll(async () => {
    await ns?.delete();
  });
  afterEach(async () => {
    await Promise.all(electors.splice(0).map((elector) => elector.stop()));
  });

  const leasePath = (name: string) => `/apis/coordination.k8s.io/v1/namespaces/${ns.name}/leases/${name}`;
  const readLease = (name: string) => kubeRequestJson<Lease>(ns.kc, { path: leasePath(name) });

  function candidate(name: string, identity: string, overrides: Partial<LeaderElectionOptions> = {}) {
    const stoppedLeading = vi.fn();
    const elector = new LeaderElector({
      kubeConfig: ns.kc,
      namespace: ns.name,
      name,
      identity,
      leaseDurationSeconds: 3,
      renewDeadlineSeconds: 2,
      retryPeriodSeconds: 0.2,
      onStartedLeading: () => {},
      onStoppedLeading: stoppedLeading,
      ...overrides,
    });
    electors.push(elector);
    return { elector, stoppedLeading, result: elector.run() };
  }

  const newLeaseName = () => `sluice-leader-${++leaseNumber}`;
  const renewedAt = (lease: Lease) => Date.parse(lease.spec.renewTime ?? '');

  it('creates the lease and holds it, with the timing and identity it was given', async () => {
    const name = newLeaseName();
    const { elector } = candidate(name, 'pod-a');
    await vi.waitFor(() => expect(elector.isLeader()).toBe(true), until);

    const lease = await readLease(name);
    expect(lease.spec).toMatchObject({
      holderIdentity: 'pod-a',
      leaseDurationSeconds: 3,
      leaseTransitions: 0,
    });
    const firstRenewal = lease.spec.renewTime;
    await vi.waitFor(
      async () => expect((await readLease(name)).spec.renewTime).not.toBe(firstRenewal),
      until,
    );
  });

  it('lets a second candidate wait while the leader renews, and take over once the leader stops', async () => {
    const name = newLeaseName();
    const a = candidate(name, 'pod-a');
    await vi.waitFor(() => expect(a.elector.isLeader()).toBe(true), until);
    const bStartedAt = Date.now();
    const b = candidate(name, 'pod-b');

    // Until pod-a renews more than a lease duration (3 s) after pod-b began: only renewals keep pod-b out.
    await vi.waitFor(
      async () => expect(renewedAt(await readLease(name))).toBeGreaterThan(bStartedAt + 3_000),
      until,
    );
    expect(b.elector.isLeader()).toBe(false);
    expect((await readLease(name)).spec.holderIdentity).toBe('pod-a');

    await a.elector.stop();
    expect(await a.result).toBe('stopped');
    expect(a.stoppedLeading).not.toHaveBeenCalled();
    await vi.waitFor(() => expect(b.elector.isLeader()).toBe(true), until);
    expect((await readLease(name)).spec).toMatchObject({ holderIdentity: 'pod-b', leaseTransitions: 1 });
  });

  it('takes over a lease abandoned by a crashed holder only after the lease duration', async () => {
    const name = newLeaseName();
    await kubeRequestJson(ns.kc, {
      method: 'POST',
      path: `/apis/coordination.k8s.io/v1/namespaces/${ns.name}/leases`,
      body: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name },
        spec: { holderIdentity: 'crashed-pod', leaseDurationSeconds: 2, renewTime: microTime(new Date()) },
      },
    });
    const startedAt = Date.now();
    const b = candidate(name, 'pod-b');

    await vi.waitFor(() => expect(b.elector.isLeader()).toBe(true), until);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(2_000);
    expect((await readLease(name)).spec).toMatchObject({ holderIdentity: 'pod-b', leaseTransitions: 1 });
  });

  it('calls onStoppedLeading and stops leading when another holder takes the lease', async () => {
    const name = newLeaseName();
    const leadingSignals: AbortSignal[] = [];
    const a = candidate(name, 'pod-a', { onStartedLeading: (signal) => leadingSignals.push(signal) });
    await vi.waitFor(() => expect(a.elector.isLeader()).toBe(true), until);

    const lease = await readLease(name);
    await kubeRequestJson(ns.kc, {
      method: 'PUT',
      path: leasePath(name),
      body: {
        ...lease,
        spec: { ...lease.spec, holderIdentity: 'usurper', renewTime: microTime(new Date()) },
      },
    });

    expect(await a.result).toBe('lost');
    expect(a.stoppedLeading).toHaveBeenCalledTimes(1);
    expect(a.elector.isLeader()).toBe(false);
    expect(leadingSignals[0]?.aborted).toBe(true);
    expect((await readLease(name)).spec.holderIdentity).toBe('usurper');
  });

  it('lets exactly one of several simultaneous candidates lead', async () => {
    const name = newLeaseName();
    const candidates = ['pod-a', 'pod-b', 'pod-c'].map((identity) => candidate(name, identity));
    await vi.waitFor(() => expect(candidates.some(({ elector }) => elector.isLeader())).toBe(true), until);
    // Two renewals later, every other candidate has tried again (each retries as often as the leader renews).
    const renewals = new Set([(await readLease(name)).spec.renewTime]);
    await vi.waitFor(async () => {
      renewals.add((await readLease(name)).spec.renewTime);
      expect(renewals.size).toBeGreaterThanOrEqual(3);
    }, until);
    const leaders = candidates.filter(({ elector }) => elector.isLeader());
    expect(leaders).toHaveLength(1);
    expect((await readLease(name)).spec.holderIdentity).toBe(leaders[0]!.elector.identity);
  });
});
