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
      [{ ...valid, isReadonly: true }, 'isReadonly can be true only when dataWarehouseId is given'],
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
        { ...valid, isReadonly: false },
        {
          ...valid,
          dataWarehouseId: '5f0c8e4a-1b2c-4d3e-8f90-123456789abc',
          isReadonly: true,
          numReplicas: 1,
        },
      ];
      for (const spec of edges) expect(await admit(spec)).toBe('accepted');
    });

    /** A merge patch of the spec of `name`: 'accepted' or the apiserver's refusal. */
    const patch = async (name: string, spec: Record<string, unknown>): Promise<string> => {
      try {
        await objects.patch(
          manifest(spec, name) as never,
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

    it('refuses to change, add or remove a field fixed at creation, and names it', async () => {
      await objects.create(manifest({ ...valid, encryptionKey: 'key-1' }, 'fixed') as never);
      expect(await patch('fixed', { region: 'eu-west-1' })).toContain(
        'region cannot change after the resource is created',
      );
      expect(await patch('fixed', { tier: 'production' })).toContain(
        'tier cannot change after the resource is created',
      );
      expect(await patch('fixed', { encryptionKey: null })).toContain(
        'encryptionKey cannot change after the resource is created',
      );
      expect(await patch('fixed', { name: 'renamed', ipAccessList: [{ source: '10.0.0.0/8' }] })).toBe(
        'accepted',
      );
    });

    it('lets the sizing fields change in place, within the bounds of creation', async () => {
      await objects.create(manifest({ ...valid, idleScaling: true, numReplicas: 3 }, 'sized') as never);
      const resize = {
        minReplicaMemoryGb: 16,
        maxReplicaMemoryGb: 64,
        numReplicas: 4,
        idleScaling: false,
        idleTimeoutMinutes: 30,
      };
      expect(await patch('sized', resize)).toBe('accepted');
      expect(await patch('sized', { idleScaling: null })).toBe('accepted');
      for (const [change, named] of [
        [{ numReplicas: 21 }, 'spec.numReplicas'],
        [{ maxReplicaMemoryGb: 10 }, 'spec.maxReplicaMemoryGb'],
        [{ minReplicaMemoryGb: 4 }, 'spec.minReplicaMemoryGb'],
        [{ idleTimeoutMinutes: 4 }, 'spec.idleTimeoutMinutes'],
        [{ minReplicaMemoryGb: 128 }, 'minReplicaMemoryGb must not exceed maxReplicaMemoryGb'],
        [{ numReplicas: 1 }, 'numReplicas must be at least 2 for the first service in a warehouse'],
      ] as const) {
        const answer = await patch('sized', change);
        expect(answer, JSON.stringify(change)).not.toBe('accepted');
        expect(answer).toContain(named);
      }
    });

    it('keeps byoc replica memory to its fixed sizes on a resize', async () => {
      const byoc = { ...valid, byocId: 'b-1', minReplicaMemoryGb: 48, maxReplicaMemoryGb: 116 };
      await objects.create(manifest(byoc, 'byoc') as never);
      expect(await patch('byoc', { maxReplicaMemoryGb: 120 })).toContain(
        'minReplicaMemoryGb and maxReplicaMemoryGb are required with byocId and must each be one of',
      );
      expect(await patch('byoc', { maxReplicaMemoryGb: 172 })).toBe('accepted');
    });
  },
);
