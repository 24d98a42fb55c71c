import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { RPE_STATUSES, RPE_TYPES } from '../../src/cloud/schemas/index.ts';
import {
  expectMgmtError,
  expectOk,
  recordStates,
  stepStates,
  useContractEmulator,
  UUID,
} from './support/api.ts';
import type { Json } from './support/api.ts';
import { createRunningService, rpeBody, rpesPath } from './support/fixtures.ts';

const TRANSITION_MS = 60;

const { emu, api, ctl } = useContractEmulator({ transitionMs: TRANSITION_MS });
let serviceId: string;

beforeEach(async () => {
  serviceId = (await createRunningService(api)).id;
});

const rpePath = (id: string, sid = serviceId) => `${rpesPath(sid)}/${id}`;
const list = async (sid = serviceId): Promise<Json[]> => expectOk(await api.get(rpesPath(sid)));
const create = async (type: (typeof RPE_TYPES)[number] = 'VPC_ENDPOINT_SERVICE', overrides = {}) =>
  expectOk(await api.post(rpesPath(serviceId), rpeBody(type, overrides)));
const statusOf = (id: string) => async () => {
  const reply = await api.get(rpePath(id));
  return reply.status === 404 ? '404' : (reply.body.result.status as string);
};

async function expectRejected(body: Record<string, unknown>, field: string): Promise<void> {
  const ids = async () => (await list()).map((r) => r.id);
  const before = await ids();
  expectMgmtError(await api.post(rpesPath(serviceId), body), 400, field);
  expect(await ids()).toEqual(before);
}

describe('create (extension)', () => {
  it.each(RPE_TYPES)('creates a %s endpoint with its fields', async (type) => {
    const body = rpeBody(type);
    const rpe = await create(type);
    expect(rpe.id).toMatch(UUID);
    expect(rpe).toMatchObject({ ...body, serviceId });
    expect(RPE_STATUSES).toContain(rpe.status);
  });

  it.each([
    ['VPC_ENDPOINT_SERVICE', 'vpcEndpointServiceName'],
    ['VPC_RESOURCE', 'vpcResourceConfigurationId'],
    ['VPC_RESOURCE', 'vpcResourceShareArn'],
    ['MSK_MULTI_VPC', 'mskClusterArn'],
    ['MSK_MULTI_VPC', 'mskAuthentication'],
  ] as const)('a %s endpoint requires %s', async (type, field) => {
    const body = rpeBody(type);
    delete body[field];
    await expectRejected(body, field);
  });

  it('accepts both MSK authentications and refuses another', async () => {
    for (const mskAuthentication of ['SASL_IAM', 'SASL_SCRAM']) {
      expect((await create('MSK_MULTI_VPC', { mskAuthentication })).mskAuthentication).toBe(
        mskAuthentication,
      );
    }
    await expectRejected(rpeBody('MSK_MULTI_VPC', { mskAuthentication: 'TLS' }), 'mskAuthentication');
  });

  it('refuses an unknown type and a missing description, naming them', async () => {
    await expectRejected(rpeBody('VPC_ENDPOINT_SERVICE', { type: 'PRIVATE_LINK' }), 'type');
    const body = rpeBody();
    delete body.description;
    await expectRejected(body, 'description');
  });

  it('on an unknown service is 404', async () => {
    expectMgmtError(await api.post(rpesPath(randomUUID()), rpeBody()), 404);
  });
});

describe('get (operation 8) and list (extension)', () => {
  it('GET returns the endpoint; list holds the endpoints of that service only', async () => {
    const other = (await createRunningService(api)).id;
    const a = await create('VPC_ENDPOINT_SERVICE');
    const b = await create('MSK_MULTI_VPC');
    const got = expectOk(await api.get(rpePath(a.id)));
    expect(got).toMatchObject({
      id: a.id,
      serviceId,
      type: 'VPC_ENDPOINT_SERVICE',
      description: a.description,
    });
    expect((await list()).map((r) => r.id).sort()).toEqual([a.id, b.id].sort());
    expect(await list(other)).toEqual([]);
    expectMgmtError(await api.get(rpePath(a.id, other)), 404);
  });

  it('GET of an unknown endpoint is 404; a non-uuid id is 400 naming the parameter', async () => {
    expectMgmtError(await api.get(rpePath(randomUUID())), 404);
    expectMgmtError(await api.get(rpePath('not-a-uuid')), 400, 'reversePrivateEndpointId');
  });
});

describe('status transitions', () => {
  it.each(RPE_TYPES)('%s: Provisioning → … → Ready', async (type) => {
    const rpe = await create(type);
    const seen = await recordStates(statusOf(rpe.id), (s) => s === 'Ready', { first: rpe.status });
    expect(seen[0]).toBe('Provisioning');
    expect(seen.at(-1)).toBe('Ready');
    for (const status of seen) expect(['Provisioning', 'PendingAcceptance', 'Ready']).toContain(status);
    const ready = expectOk(await api.get(rpePath(rpe.id)));
    expect(ready.endpointId).toBeTypeOf('string');
    expect(Array.isArray(ready.dnsNames)).toBe(true);
  });

  it('delete: Deleting, then 404', async () => {
    const rpe = await create();
    await recordStates(statusOf(rpe.id), (s) => s === 'Ready', { first: rpe.status });
    await ctl.holdTransitions();
    expectOk(await api.delete(rpePath(rpe.id)));
    const seen = await stepStates(emu, statusOf(rpe.id), (s) => s === '404');
    expect(seen).toEqual(['Deleting', '404']);
    expect(await list()).toEqual([]);
  });

  it('a forced status is reported', async () => {
    const rpe = await create();
    await recordStates(statusOf(rpe.id), (s) => s === 'Ready', { first: rpe.status });
    await ctl.forceState('reversePrivateEndpoint', rpe.id, 'Failed');
    expect(await statusOf(rpe.id)()).toBe('Failed');
  });

  it('delete of an unknown endpoint is 404', async () => {
    expectMgmtError(await api.delete(rpePath(randomUUID())), 404);
  });
});
