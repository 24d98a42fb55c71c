import { beforeAll, describe, expect, it } from 'vitest';
import { DatabaseServiceSpec } from '../../../src/kinds/database-service/schema.ts';
import { exportOrganization } from '../../../src/export/export.ts';
import { runningService, useEmulator, useManagementClient } from './support.ts';

const client = useManagementClient(useEmulator({}, { reset: false }));
beforeAll(() => runningService(client, 'orders eu'));

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
});
