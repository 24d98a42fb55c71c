import { beforeAll, describe, expect, it } from 'vitest';
import { DatabaseServiceSpec } from '../../../src/kinds/database-service/schema.ts';
import { exportOrganization } from '../../../src/export/export.ts';
import { runningService, useEmulator, useManagementClient } from './support.ts';

const client = useManagementClient(useEmulator({}, { reset: false }));
let ordersId = '';
let billingId = '';
beforeAll(async () => {
  [ordersId, billingId] = await Promise.all([
    runningService(client, 'orders eu'),
    runningService(client, 'billing'),
  ]);
});

describe('sluice export', () => {
  const services = async (observe?: boolean) => {
    const result = await exportOrganization({
      management: client,
      kinds: new Set(['DatabaseService']),
      ...(observe === undefined ? {} : { observe }),
    });
    return result.manifests.filter((m) => m.kind === 'DatabaseService');
  };

  it('with --observe, each manifest asks sluice only to observe what it adopts', async () => {
    const [manifest] = await services(true);
    expect(manifest?.spec).toMatchObject({ deletionPolicy: 'Orphan', managementPolicy: 'Observe' });
    expect(DatabaseServiceSpec.safeParse(manifest!.spec).success).toBe(true);
  });

  it('without it, manifests leave the management policy to its default (Full)', async () => {
    const [manifest] = await services();
    expect(manifest?.spec).not.toHaveProperty('managementPolicy');
  });

  it('with a credentials ref, writes spec.credentialsRef into every manifest, which its kind accepts', async () => {
    const { manifests } = await exportOrganization({
      management: client,
      kinds: new Set(['DatabaseService']),
      credentialsRef: 'team-a-cloud',
    });
    expect(manifests).toHaveLength(2);
    for (const manifest of manifests) {
      expect(manifest.spec.credentialsRef).toEqual({ name: 'team-a-cloud' });
      expect(DatabaseServiceSpec.parse(manifest.spec).credentialsRef).toEqual({ name: 'team-a-cloud' });
    }
  });

  it('leaves out a service an object of the cluster manages, naming it, and exports the others', async () => {
    const managedBy = (kind: string, id: string) =>
      kind === 'DatabaseService' && id === ordersId ? 'DatabaseService team-a/orders' : undefined;
    const result = await exportOrganization({
      management: client,
      kinds: new Set(['DatabaseService', 'QueryEndpoint']),
      managedBy,
    });
    expect(result.manifests.map((m) => m.metadata.annotations['sluice.dev/external-id'])).toEqual([
      billingId,
    ]);
    expect(result.leftOut).toEqual([
      {
        kind: 'DatabaseService',
        id: ordersId,
        cloudName: 'orders eu',
        managedBy: 'DatabaseService team-a/orders',
      },
    ]);
  });
});
