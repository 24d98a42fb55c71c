import { CoordinationV1Api } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperatorConfig } from '../../../../src/operator/config.ts';
import { startOperator, type RunningOperator } from '../../../../src/operator/run.ts';
import { clusterSkipReason, testKubeconfigPath } from '../../../harness/test-cluster.ts';
import { CREDENTIALS_SECRET, isReady, startOperatorEnv, type OperatorEnv } from '../support.ts';
import { until } from '../../../support/wait.ts';

/** Reconciles counted by an operator's own metrics: what it did, not what the cluster shows. */
async function reconciles(operator: RunningOperator): Promise<number> {
  const text = await (await fetch(`${operator.metrics!.url}/metrics`)).text();
  return [
    ...text.matchAll(/^controller_runtime_reconcile_total\{controller="databaseservice",[^}]*\} (\d+)$/gm),
  ]
    .map((m) => Number(m[1]))
    .reduce((a, b) => a + b, 0);
}

describe.skipIf(clusterSkipReason())('leader election', () => {
  let env: OperatorEnv;
  const operators: RunningOperator[] = [];

  beforeAll(async () => {
    env = await startOperatorEnv('leader');
  });
  afterAll(async () => {
    await Promise.all(operators.map((o) => o.stop()));
    await env?.close();
  });

  /** Each operator's log lines, by the order they were started. */
  const logs: string[][] = [];
  const start = async () => {
    const lines: string[] = [];
    logs.push(lines);
    const operator = await startOperator(
      OperatorConfig.parse({
        kubeconfig: testKubeconfigPath(),
        namespace: env.namespace,
        credentialsSecret: `${env.namespace}/${CREDENTIALS_SECRET}`,
        pollInterval: '200ms',
        managementQuota: 'off',
        leaderElect: true,
        leaderElectionNamespace: env.namespace,
        metricsBindAddress: ':0',
        healthProbeBindAddress: ':0',
      }),
      pino({ level: 'info' }, { write: (line: string) => lines.push(line) }),
    );
    operators.push(operator);
    return operator;
  };

  it('lets only the Lease holder reconcile, and hands over when the holder stops', async () => {
    const first = await start();
    await env.apply('one', { name: 'one' });
    await env.waitFor('one', 'Ready under the first leader', isReady);
    const lease = await env.kc
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ name: 'sluice-operator', namespace: env.namespace });
    expect(lease.spec?.holderIdentity).toBeTruthy();

    const second = await start();
    // The standby has read the Lease and seen the first hold it: it looked, and stays out.
    await until('the standby seeing the leader', () =>
      logs[1]!.some(
        (line) => line.includes('new leader observed') && line.includes(lease.spec!.holderIdentity!),
      ),
    );
    expect(await reconciles(first)).toBeGreaterThan(0);
    expect(await reconciles(second)).toBe(0);
    // A standby is ready (with two replicas, a rollout or `helm --wait` must not wait on it forever).
    expect((await fetch(`${second.health!.url}/readyz`)).status).toBe(200);

    await first.stop();
    await env.apply('two', { name: 'two' });
    await env.waitFor('two', 'Ready under the second leader', isReady, 30_000);
    expect(await reconciles(second)).toBeGreaterThan(0);
  });
});
