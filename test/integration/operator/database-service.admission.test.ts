import { KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, type TestNamespace } from '../../harness/namespace.ts';
import { clusterSkipReason } from '../../harness/testCluster.ts';

const valid = { name: 'analytics', provider: 'aws', region: 'us-east-1' };

describe.skipIf(clusterSkipReason())(
  'DatabaseService admission (CRD schema and CEL rules on the real apiserver)',
  () => {
    let ns: TestNamespace;
    let objects: KubernetesObjectApi;
    let counter = 0;

    const manifest = (spec: Record<string, unknown>, name = `svc-${++counter}`) => ({
      apiVersion: 'sluice.dev/v1alpha1',
      kind: 'DatabaseService',
      metadata: { name, namespace: ns.name },
      spec,
    });
    /** The apiserver's refusal message, or 'accepted'. */
    const admit = async (spec: Record<string, unknown>): Promise<string> => {
      try {
        await objects.create(manifest(spec) as never);
        return 'accepted';
      } catch (error) {
        return String((error as { body?: string }).body ?? error);
      }
    };

    beforeAll(async () => {
      ns = await createTestNamespace('dbs-admission');
      objects = KubernetesObjectApi.makeApiClient(ns.kc);
    });
    afterAll(async () => ns?.delete());

    it('accepts a minimal valid manifest and fills in the defaults', async () => {
      const created = (await objects.create(manifest(valid, 'minimal') as never)) as unknown as {
        spec: Record<string, unknown>;
      };
      expect(created.spec).toMatchObject({ state: 'Running', deletionPolicy: 'Orphan' });
    });

    it.each([
      [{ ...valid, name: 'not-alnum' }, 'spec.name'],
      [{ ...valid, name: 'x'.repeat(51) }, 'spec.name'],
      [{ ...valid, region: 'mars-1' }, 'spec.region'],
      [{ ...valid, maxReplicaMemoryGb: 10 }, 'spec.maxReplicaMemoryGb'],
      [{ ...valid, maxReplicaMemoryGb: 360 }, 'spec.maxReplicaMemoryGb'],
      [{ ...valid, minTotalMemoryGb: 30 }, 'spec.minTotalMemoryGb'],
      [{ ...valid, numReplicas: 21 }, 'spec.numReplicas'],
      [{ ...valid, idleTimeoutMinutes: 4 }, 'spec.idleTimeoutMinutes'],
      [{ ...valid, ipAccessList: [{ source: 'not-an-ip' }] }, 'source must be an IP address or CIDR range'],
      [{ ...valid, isReadonly: true }, 'isReadonly is allowed only when dataWarehouseId is given'],
      [{ ...valid, numReplicas: 1 }, 'numReplicas must be at least 2 for the first service in a warehouse'],
      [
        { ...valid, byocId: 'b-1', minReplicaMemoryGb: 48 },
        'minReplicaMemoryGb and maxReplicaMemoryGb are required with byocId',
      ],
      [
        { ...valid, minReplicaMemoryGb: 64, maxReplicaMemoryGb: 32 },
        'minReplicaMemoryGb must not exceed maxReplicaMemoryGb',
      ],
      [
        { ...valid, tier: 'development', releaseChannel: 'fast' },
        'releaseChannel is allowed only for production services',
      ],
      [{ ...valid, state: 'Paused' }, 'spec.state'],
      [{ ...valid, deletionPolicy: 'Keep' }, 'spec.deletionPolicy'],
    ])('rejects %j naming %s', async (spec, named) => {
      const answer = await admit(spec);
      expect(answer).not.toBe('accepted');
      expect(answer).toContain(named);
    });

    it('accepts the boundary values just inside each bound', async () => {
      const edges = [
        { ...valid, name: 'x'.repeat(50), minReplicaMemoryGb: 8, maxReplicaMemoryGb: 356, numReplicas: 20 },
        { ...valid, minTotalMemoryGb: 24, maxTotalMemoryGb: 1068, idleTimeoutMinutes: 5, numReplicas: 2 },
        { ...valid, byocId: 'b-1', minReplicaMemoryGb: 48, maxReplicaMemoryGb: 232 },
        {
          ...valid,
          dataWarehouseId: '5f0c8e4a-1b2c-4d3e-8f90-123456789abc',
          isReadonly: true,
          numReplicas: 1,
        },
      ];
      for (const spec of edges) expect(await admit(spec)).toBe('accepted');
    });

    it('refuses to change, add or remove a field fixed at creation, and names it', async () => {
      await objects.create(manifest({ ...valid, idleScaling: true }, 'fixed') as never);
      const patch = async (spec: Record<string, unknown>) => {
        try {
          await objects.patch(
            manifest(spec, 'fixed') as never,
            undefined,
            undefined,
            'test',
            undefined,
            PatchStrategy.MergePatch,
          );
          return 'accepted';
        } catch (error) {
          return String((error as { body?: string }).body ?? error);
        }
      };
      expect(await patch({ region: 'eu-west-1' })).toContain(
        'region cannot change after the resource is created',
      );
      expect(await patch({ tier: 'production' })).toContain(
        'tier cannot change after the resource is created',
      );
      expect(await patch({ idleScaling: null })).toContain(
        'idleScaling cannot change after the resource is created',
      );
      expect(await patch({ name: 'renamed', ipAccessList: [{ source: '10.0.0.0/8' }] })).toBe('accepted');
    });
  },
);
