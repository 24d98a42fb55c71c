import { CoordinationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { microTime } from '../../../../src/kube/leader-election.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { startOperatorEnv, type OperatorEnv } from '../support.ts';

const SERVICES = '/v1/organizations/:organizationId/services';

describe.skipIf(clusterSkipReason())('losing the Lease', () => {
  let env: OperatorEnv;

  beforeAll(async () => {
    env = await startOperatorEnv('leader-lost');
  });
  afterAll(async () => env?.close());

  it('aborts the cloud calls in flight at once instead of letting them finish', async () => {
    const leases = env.kc.makeApiClient(CoordinationV1Api);
    const operator = await env.startOperator({ leaderElect: true, leaderElectionNamespace: env.namespace });
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const held = await leases
        .readNamespacedLease({ name: 'sluice-operator', namespace: env.namespace })
        .catch(() => undefined);
      if (held?.spec?.holderIdentity) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // The cloud never answers the reconcile's lookup: without an abort it would wait out every timeout.
    await env.fault({ method: 'GET', route: SERVICES, hang: true });
    await env.apply('stuck', { name: 'stuck' });
    while ((await env.calls()).length === 0) await new Promise((r) => setTimeout(r, 50));

    // Another process takes the Lease over.
    const lease = await leases.readNamespacedLease({ name: 'sluice-operator', namespace: env.namespace });
    const now = microTime(new Date());
    await leases.replaceNamespacedLease({
      name: 'sluice-operator',
      namespace: env.namespace,
      body: { ...lease, spec: { ...lease.spec, holderIdentity: 'someone-else', renewTime: now as never } },
    });
    const stolenAt = Date.now();

    expect(await operator.done).toBe('lost-leadership');
    // Noticed at the next renewal (2 s, plus jitter); the hung call did not hold the shutdown up.
    expect(Date.now() - stolenAt).toBeLessThan(8_000);
    env.operator = undefined;
    await env.fault();
  });
});
