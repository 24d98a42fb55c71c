/**
 * PATCH …/services/{serviceId}/replicaScaling (extension): resize in place with creation's bounds and rules,
 * taking effect through a short state change on a running service.
 */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { BYOC_REPLICA_MEMORY, NUM_REPLICAS, REPLICA_MEMORY } from '../../src/cloud/schemas/index.ts';
import {
  expectMgmtError,
  expectOk,
  expectStays,
  mgmt,
  recordStates,
  useContractEmulator,
  useEmulator,
} from './support/api.ts';
import type { Json } from './support/api.ts';
import { createRunningService, getService, servicePath, waitServiceState } from './support/fixtures.ts';

const TRANSITION_MS = 100;

const { api, ctl } = useContractEmulator({ transitionMs: TRANSITION_MS });
const unpaidApi = mgmt(useEmulator({ unpaid: true }, { reset: false }));

const resize = (serviceId: string, body: unknown, client = api) =>
  client.patch(`${servicePath(serviceId)}/replicaScaling`, body);
const stateOf = (serviceId: string) => async () => (await getService(api, serviceId)).state as string;
const SIZING = [
  'minReplicaMemoryGb',
  'maxReplicaMemoryGb',
  'numReplicas',
  'idleScaling',
  'idleTimeoutMinutes',
];
const sizingOf = (service: Json) => Object.fromEntries(SIZING.map((key) => [key, service[key]]));

/** A refused resize names `field` and leaves the service as it was. */
async function expectResizeRejected(serviceId: string, body: unknown, field: string, client = api) {
  const before = await getService(client, serviceId);
  const message = expectMgmtError(await resize(serviceId, body, client), 400, field);
  const after = await getService(client, serviceId);
  expect(sizingOf(after)).toEqual(sizingOf(before));
  expect(after.state).toBe(before.state);
  return message;
}

describe('resize', () => {
  it('changes only the fields sent and answers the service object', async () => {
    const service = await createRunningService(api, { minReplicaMemoryGb: 16, maxReplicaMemoryGb: 32 });
    const resized = expectOk(await resize(service.id, { maxReplicaMemoryGb: 64, idleTimeoutMinutes: 30 }));
    expect(resized.id).toBe(service.id);
    expect(sizingOf(resized)).toEqual({
      ...sizingOf(service),
      maxReplicaMemoryGb: 64,
      idleTimeoutMinutes: 30,
    });
    expect(sizingOf(await getService(api, service.id))).toEqual(sizingOf(resized));
  });

  it('keeps the deprecated totals in step with the per-replica values', async () => {
    const service = await createRunningService(api, { numReplicas: 3 });
    const resized = expectOk(
      await resize(service.id, { minReplicaMemoryGb: 16, maxReplicaMemoryGb: 32, numReplicas: 2 }),
    );
    expect(resized).toMatchObject({ minTotalMemoryGb: 32, maxTotalMemoryGb: 64 });
  });

  it('a running service takes the new size through degraded, then runs again', async () => {
    const service = await createRunningService(api);
    const reply = expectOk(await resize(service.id, { numReplicas: service.numReplicas + 1 }));
    const seen = await recordStates(stateOf(service.id), (state) => state === 'running', {
      first: reply.state,
    });
    expect(seen).toEqual(['degraded', 'running']);
  });

  it('a stopped service takes the new size and stays stopped', async () => {
    const service = await createRunningService(api);
    await ctl.forceState('service', service.id, 'stopped');
    const reply = expectOk(await resize(service.id, { idleScaling: false }));
    expect(reply).toMatchObject({ state: 'stopped', idleScaling: false });
    await expectStays(stateOf(service.id), 'stopped', TRANSITION_MS * 3);
  });

  it('sending the current values changes no state', async () => {
    const service = await createRunningService(api);
    const reply = expectOk(await resize(service.id, { numReplicas: service.numReplicas }));
    expect(reply.state).toBe('running');
    await expectStays(stateOf(service.id), 'running', TRANSITION_MS * 3);
  });

  it('is recorded in the call log under its route', async () => {
    const service = await createRunningService(api);
    await ctl.clearCalls();
    expectOk(await resize(service.id, { idleTimeoutMinutes: 20 }));
    const { counts } = await ctl.calls();
    expect(counts).toEqual({
      'PATCH /v1/organizations/:organizationId/services/:serviceId/replicaScaling': 1,
    });
  });
});

describe("creation's bounds", () => {
  let serviceId: string;
  beforeEach(async () => {
    serviceId = (await createRunningService(api)).id;
  });

  it.each([
    ['minReplicaMemoryGb', REPLICA_MEMORY.min - REPLICA_MEMORY.step, /at least/],
    ['minReplicaMemoryGb', REPLICA_MEMORY.min + 2, /multiple of 4/],
    ['maxReplicaMemoryGb', REPLICA_MEMORY.max + REPLICA_MEMORY.step, /at most/],
    ['numReplicas', NUM_REPLICAS.max + 1, /at most/],
    ['numReplicas', 0, /at least/],
    ['numReplicas', 2.5, /integer/],
    ['idleTimeoutMinutes', 4, /at least 5/],
    ['idleScaling', 'yes', /boolean/],
  ])('refuses %s = %s, naming it', async (field, value, phrase) => {
    expect(await expectResizeRejected(serviceId, { [field]: value }, field)).toMatch(phrase);
  });

  it('refuses a min above the max it would have, blaming the field sent', async () => {
    const service = await createRunningService(api, { minReplicaMemoryGb: 16, maxReplicaMemoryGb: 32 });
    await expectResizeRejected(service.id, { minReplicaMemoryGb: 64 }, 'minReplicaMemoryGb');
    await expectResizeRejected(service.id, { maxReplicaMemoryGb: 12 }, 'maxReplicaMemoryGb');
    expect(
      expectOk(await resize(service.id, { minReplicaMemoryGb: 64, maxReplicaMemoryGb: 64 })),
    ).toMatchObject({
      minReplicaMemoryGb: 64,
      maxReplicaMemoryGb: 64,
    });
  });

  it('refuses an empty body and any field that is not a sizing field', async () => {
    await expectResizeRejected(serviceId, {}, 'replicaScaling');
    await expectResizeRejected(serviceId, { name: 'other' }, 'name');
  });

  it('the first service of a warehouse needs two replicas; another service in it may have one', async () => {
    const primary = await getService(api, serviceId);
    const message = await expectResizeRejected(serviceId, { numReplicas: 1 }, 'numReplicas');
    expect(message).toMatch(/first service in a warehouse/);
    const secondary = await createRunningService(api, {
      dataWarehouseId: primary.dataWarehouseId,
      numReplicas: 2,
    });
    expect(expectOk(await resize(secondary.id, { numReplicas: 1 })).numReplicas).toBe(1);
  });
});

describe('byoc services', () => {
  it(`take only ${BYOC_REPLICA_MEMORY.join(', ')} GB per replica`, async () => {
    const service = await createRunningService(api, {
      byocId: 'byoc-1',
      minReplicaMemoryGb: 48,
      maxReplicaMemoryGb: 116,
    });
    const message = await expectResizeRejected(service.id, { maxReplicaMemoryGb: 120 }, 'maxReplicaMemoryGb');
    expect(message).toMatch(/byoc/);
    expect(expectOk(await resize(service.id, { maxReplicaMemoryGb: 172 })).maxReplicaMemoryGb).toBe(172);
  });
});

describe('unpaid organizations', () => {
  it(`may not grow a replica beyond ${REPLICA_MEMORY.unpaidMax} GB`, async () => {
    const service = await createRunningService(unpaidApi, { numReplicas: 2 });
    const body = { maxReplicaMemoryGb: REPLICA_MEMORY.unpaidMax + REPLICA_MEMORY.step };
    const message = await expectResizeRejected(service.id, body, 'maxReplicaMemoryGb', unpaidApi);
    expect(message).toMatch(/non-paid/);
    const ok = expectOk(
      await resize(service.id, { maxReplicaMemoryGb: REPLICA_MEMORY.unpaidMax }, unpaidApi),
    );
    expect(ok.maxReplicaMemoryGb).toBe(REPLICA_MEMORY.unpaidMax);
  });
});

describe('which services', () => {
  it('a terminating service refuses with 409; an unknown one is 404', async () => {
    const service = await createRunningService(api);
    await ctl.forceState('service', service.id, 'terminating');
    expectMgmtError(await resize(service.id, { numReplicas: 4 }), 409, /terminating/);
    expectMgmtError(await resize(randomUUID(), { numReplicas: 4 }), 404);
  });

  it('an idle service is resized without waking it', async () => {
    const service = await createRunningService(api);
    await ctl.forceState('service', service.id, 'idle');
    expect(expectOk(await resize(service.id, { numReplicas: 4 })).state).toBe('idle');
    await waitServiceState(api, service.id, 'idle');
  });
});
