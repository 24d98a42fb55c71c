import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBin } from '../../../../tools/cluster/install.ts';
import { clusterSkipReason, testKubeconfigPath } from '../../../harness/test-cluster.ts';
import { isReady, startOperatorEnv, writes, type OperatorEnv } from '../support.ts';

describe.skipIf(clusterSkipReason())('DatabaseService observed sizing', () => {
  let env: OperatorEnv;

  beforeAll(async () => {
    env = await startOperatorEnv('dbs-observed');
    await env.startOperator();
  });
  afterAll(async () => env?.close());

  it('shows the sizing the cloud runs in status and kubectl get -o wide, so an edit to what is already so reads as such', async () => {
    await env.apply('sized', { name: 'sized', minReplicaMemoryGb: 16, maxReplicaMemoryGb: 32 });
    const ready = await env.waitFor('sized', 'Ready', isReady);
    const cloud = await env.cloud.getService(ready.status!.id!);
    const observed = (ready.status as { observed?: Record<string, unknown> }).observed;
    expect(observed).toEqual({
      numReplicas: cloud.numReplicas,
      minReplicaMemoryGb: 16,
      maxReplicaMemoryGb: 32,
      idleScaling: cloud.idleScaling,
      idleTimeoutMinutes: cloud.idleTimeoutMinutes,
    });

    // The value the cloud already has: the new generation is acted on, nothing is sent, status shows it so.
    await env.clearCalls();
    await env.patchSpec('sized', { numReplicas: cloud.numReplicas });
    const again = await env.waitFor(
      'sized',
      'the edit observed',
      (r) => isReady(r) && r?.status?.observedGeneration === r?.metadata.generation,
    );
    expect(writes(await env.calls())).toEqual([]);
    expect((again.status as { observed?: { numReplicas?: number } }).observed?.numReplicas).toBe(
      cloud.numReplicas,
    );

    const wide = execFileSync(
      kubectlBin(),
      [
        '--kubeconfig',
        testKubeconfigPath()!,
        'get',
        'databaseservice',
        'sized',
        '-n',
        env.namespace,
        '-o',
        'wide',
      ],
      { encoding: 'utf8' },
    );
    const [header, row] = wide
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s{2,}/));
    const column = (name: string) => row![header!.indexOf(name)];
    expect(column('REPLICAS')).toBe(String(cloud.numReplicas));
    expect(column('MIN-MEM')).toBe('16');
    expect(column('MAX-MEM')).toBe('32');
    expect(column('IDLE')).toBe(String(cloud.idleScaling));
  });
});
