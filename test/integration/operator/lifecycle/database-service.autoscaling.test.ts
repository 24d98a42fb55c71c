import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { isReady, useOperatorEnv } from '../support.ts';

const SERVICES = '/v1/organizations/:organizationId/services';
const REPLICA_SCALING = `${SERVICES}/:serviceId/replicaScaling`;

describe.skipIf(clusterSkipReason())('DatabaseService horizontal autoscaling', () => {
  const env = useOperatorEnv('dbs-autoscaling');

  it('creates a horizontally scaled service and switches it to vertical with one replicaScaling PATCH', async () => {
    const horizontal = {
      autoscalingMode: 'horizontal' as const,
      minReplicas: 2,
      maxReplicas: 6,
      minReplicaMemoryGb: 16,
      maxReplicaMemoryGb: 16,
    };
    await env.apply('scaled', { name: 'scaled', ...horizontal });
    const ready = await env.waitFor('scaled', 'Ready', isReady);
    const id = ready.status!.id!;
    expect(await env.cloud.getService(id)).toMatchObject(horizontal);
    const create = (await env.calls()).find((c) => c.method === 'POST' && c.route === SERVICES)!;
    expect(create.body).toMatchObject(horizontal);

    await env.clearCalls();
    await env.patchSpec('scaled', {
      autoscalingMode: 'vertical',
      minReplicas: null,
      maxReplicas: null,
      maxReplicaMemoryGb: 32,
    });
    await env.waitFor(
      'scaled',
      'the switch to be applied',
      (r) => isReady(r) && r!.status!.observedGeneration === ready.metadata.generation! + 1,
    );
    const resizes = (await env.calls()).filter((c) => c.route === REPLICA_SCALING);
    expect(resizes.map((c) => c.body)).toEqual([{ maxReplicaMemoryGb: 32, autoscalingMode: 'vertical' }]);
    const cloud = await env.cloud.getService(id);
    expect(cloud).toMatchObject({ autoscalingMode: 'vertical', maxReplicaMemoryGb: 32 });
    expect(cloud).not.toHaveProperty('minReplicas');
  });
});
