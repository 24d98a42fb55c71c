import { describe, expect, it } from 'vitest';
import type { ManagementClient } from '../../../src/cloud/management-client.ts';
import { CloudSnapshots } from '../../../src/cloud/key-snapshots.ts';
import { ManualClock } from '../../support/manual-clock.ts';

/** A management API holding services and their pipes, answering lists at once. */
function fakeManagement() {
  const services = new Set<string>();
  const pipes = new Map<string, string[]>();
  const client = {
    onWrite: () => () => undefined,
    listServices: async () => [...services].map((id) => ({ id })),
    listPipes: async (serviceId: string) => (pipes.get(serviceId) ?? []).map((id) => ({ id })),
    listReversePrivateEndpoints: async () => [],
  } as unknown as ManagementClient;
  return { services, pipes, client };
}

describe('CloudSnapshots', () => {
  it('forgets the pipes and endpoints lists of a service a services list no longer shows', async () => {
    const clock = new ManualClock();
    const cloud = fakeManagement();
    cloud.services.add('s-1').add('s-2');
    cloud.pipes.set('s-1', ['p-1']);
    const snapshots = new CloudSnapshots({ management: cloud.client, clock });
    await snapshots.services.refresh(0);
    await snapshots.pipes('s-1').refresh(0);
    await snapshots.reversePrivateEndpoints('s-2').refresh(0);
    expect(snapshots.perServiceSnapshots).toBe(2);

    cloud.services.delete('s-1');
    clock.advance(1);
    await snapshots.services.refresh(0);

    expect(snapshots.perServiceSnapshots).toBe(1);
    expect(snapshots.ages().map((age) => age.list)).toEqual(['services', 'reversePrivateEndpoints']);
  });

  it('keeps the lists of a service that is still listed, whatever else changed', async () => {
    const clock = new ManualClock();
    const cloud = fakeManagement();
    cloud.services.add('s-1');
    const snapshots = new CloudSnapshots({ management: cloud.client, clock });
    await snapshots.services.refresh(0);
    await snapshots.pipes('s-1').refresh(0);
    cloud.services.add('s-2');
    clock.advance(1);
    await snapshots.services.refresh(0);
    expect(snapshots.perServiceSnapshots).toBe(1);
  });
});
