import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseServiceSpec } from '../../../src/kinds/database-service/schema.ts';
import type { ManagementClient } from '../../../src/cloud/management-client.ts';
import { exportOrganization } from '../../../src/export/export.ts';
import { type Emulator, managementClient, runningService, startTestEmulator } from './support.ts';

let emu: Emulator;
let client: ManagementClient;

beforeAll(async () => {
  emu = await startTestEmulator();
  client = managementClient(emu);
  await runningService(client, 'orders eu');
});
afterAll(async () => {
  await client.close();
  await emu.stop();
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
});
