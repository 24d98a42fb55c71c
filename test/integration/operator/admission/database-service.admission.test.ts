import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { useAdmission } from './admission.ts';

const valid = { name: 'analytics', provider: 'aws', region: 'us-east-1' };
const horizontal = {
  ...valid,
  autoscalingMode: 'horizontal',
  minReplicas: 2,
  maxReplicas: 6,
  minReplicaMemoryGb: 16,
  maxReplicaMemoryGb: 16,
};

describe.skipIf(clusterSkipReason())(
  'DatabaseService admission (CRD schema and CEL rules on the real apiserver)',
  () => {
    const api = useAdmission('DatabaseService', 'svc');

    it('accepts a minimal valid manifest and fills in the defaults', async () => {
      const created = await api.create('minimal', valid);
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
      [{ ...valid, autoscalingMode: 'diagonal' }, 'spec.autoscalingMode'],
      [
        { ...valid, minReplicas: 2, maxReplicas: 4 },
        'minReplicas and maxReplicas are allowed only when autoscalingMode is horizontal',
      ],
      [
        { ...horizontal, maxReplicas: undefined },
        'autoscalingMode horizontal needs minReplicas and maxReplicas',
      ],
      [{ ...horizontal, minReplicas: 5, maxReplicas: 4 }, 'minReplicas not above maxReplicas'],
      [{ ...horizontal, maxReplicas: 21 }, 'spec.maxReplicas'],
      [
        { ...horizontal, maxReplicaMemoryGb: 32 },
        'autoscalingMode horizontal needs minReplicaMemoryGb and maxReplicaMemoryGb, and they must be equal',
      ],
      [{ ...valid, passwordSecretRef: { name: 'db-password' } }, 'spec.passwordSecretRef.key'],
      [
        { ...valid, passwordSecretRef: { name: 'Not_A_Name', key: 'password' } },
        'spec.passwordSecretRef.name',
      ],
      [{ ...valid, provider: 'gcp' }, 'spec.region us-east-1 is a region of aws, not of spec.provider gcp'],
      [
        { ...valid, provider: 'aws', region: 'germanywestcentral' },
        'spec.region germanywestcentral is a region of azure, not of spec.provider aws',
      ],
      [
        { ...valid, provider: 'azure', region: 'europe-west4' },
        'spec.region europe-west4 is a region of gcp, not of spec.provider azure',
      ],
      [
        {
          ...valid,
          backupId: '5f0c8e4a-1b2c-4d3e-8f90-123456789abc',
          restore: { fromBackupOf: 'analytics' },
        },
        // The path the rule names, then its message (quotes escaped in the JSON answer).
        'spec.restore.fromBackupOf: Invalid value: \\"object\\": restore.fromBackupOf and backupId cannot both be set',
      ],
      [{ ...valid, restore: { fromBackupOf: 'Not_A_Name' } }, 'spec.restore.fromBackupOf'],
      [{ ...valid, restore: {} }, 'spec.restore.fromBackupOf'],
      [{ ...valid, state: 'Paused' }, 'spec.state'],
      [{ ...valid, deletionPolicy: 'Keep' }, 'spec.deletionPolicy'],
    ])('rejects %j naming %s', async (spec, named) => {
      const answer = await api.admit(spec);
      expect(answer).not.toBe('accepted');
      expect(answer).toContain(named);
    });

    it('accepts the boundary values just inside each bound', async () => {
      const edges = [
        { ...valid, name: 'x'.repeat(50), minReplicaMemoryGb: 8, maxReplicaMemoryGb: 356, numReplicas: 20 },
        { ...valid, minTotalMemoryGb: 24, maxTotalMemoryGb: 1068, idleTimeoutMinutes: 5, numReplicas: 2 },
        { ...valid, byocId: 'b-1', minReplicaMemoryGb: 48, maxReplicaMemoryGb: 232 },
        { ...valid, isReadonly: false },
        { ...valid, restore: { fromBackupOf: 'analytics' } },
        { ...horizontal, minReplicas: 1, maxReplicas: 20 },
        {
          ...valid,
          autoscalingMode: 'vertical',
          passwordSecretRef: { name: 'db-password', key: 'password' },
        },
        {
          ...valid,
          dataWarehouseId: '5f0c8e4a-1b2c-4d3e-8f90-123456789abc',
          isReadonly: true,
          numReplicas: 1,
        },
      ];
      for (const spec of edges) expect(await api.admit(spec)).toBe('accepted');
    });

    it('refuses to change, add or remove a field fixed at creation, and names it', async () => {
      await api.create('fixed', { ...valid, encryptionKey: 'key-1' });
      expect(await api.patch('fixed', { region: 'eu-west-1' })).toContain(
        'region cannot change after the resource is created',
      );
      expect(await api.patch('fixed', { tier: 'production' })).toContain(
        'tier cannot change after the resource is created',
      );
      expect(await api.patch('fixed', { encryptionKey: null })).toContain(
        'encryptionKey cannot change after the resource is created',
      );
      expect(await api.patch('fixed', { name: 'renamed', ipAccessList: [{ source: '10.0.0.0/8' }] })).toBe(
        'accepted',
      );
    });

    it('lets the sizing fields change in place, within the bounds of creation', async () => {
      await api.create('sized', { ...valid, idleScaling: true, numReplicas: 3 });
      const resize = {
        minReplicaMemoryGb: 16,
        maxReplicaMemoryGb: 64,
        numReplicas: 4,
        idleScaling: false,
        idleTimeoutMinutes: 30,
      };
      expect(await api.patch('sized', resize)).toBe('accepted');
      expect(await api.patch('sized', { idleScaling: null })).toBe('accepted');
      for (const [change, named] of [
        [{ numReplicas: 21 }, 'spec.numReplicas'],
        [{ maxReplicaMemoryGb: 10 }, 'spec.maxReplicaMemoryGb'],
        [{ minReplicaMemoryGb: 4 }, 'spec.minReplicaMemoryGb'],
        [{ idleTimeoutMinutes: 4 }, 'spec.idleTimeoutMinutes'],
        [{ minReplicaMemoryGb: 128 }, 'minReplicaMemoryGb must not exceed maxReplicaMemoryGb'],
        [{ numReplicas: 1 }, 'numReplicas must be at least 2 for the first service in a warehouse'],
      ] as const) {
        const answer = await api.patch('sized', change);
        expect(answer, JSON.stringify(change)).not.toBe('accepted');
        expect(answer).toContain(named);
      }
    });

    it('keeps byoc replica memory to its fixed sizes on a resize', async () => {
      const byoc = { ...valid, byocId: 'b-1', minReplicaMemoryGb: 48, maxReplicaMemoryGb: 116 };
      await api.create('byoc', byoc);
      expect(await api.patch('byoc', { maxReplicaMemoryGb: 120 })).toContain(
        'minReplicaMemoryGb and maxReplicaMemoryGb are required with byocId and must each be one of',
      );
      expect(await api.patch('byoc', { maxReplicaMemoryGb: 172 })).toBe('accepted');
    });
  },
);
