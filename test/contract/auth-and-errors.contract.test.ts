import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  basicAuth,
  expectMgmtError,
  expectOk,
  http,
  mgmt,
  useContractEmulator,
  UUID_V4,
} from './support/api.ts';
import {
  createPipe,
  createRunningService,
  pipeBody,
  pipePath,
  pipesPath,
  queryEndpointPath,
  rpeBody,
  rpesPath,
  serviceBody,
  servicePath,
} from './support/fixtures.ts';

const { emu, api } = useContractEmulator();

/** One request per management operation (contract and extensions), on resources that exist. */
async function everyOperation(): Promise<Array<[string, string, unknown?]>> {
  const service = await createRunningService(api);
  const pipe = await createPipe(api, service.id);
  const s = servicePath(service.id);
  const p = pipePath(service.id, pipe.id);
  const rpe = randomUUID();
  return [
    ['POST', '/services', serviceBody()],
    ['GET', '/services'],
    ['GET', s],
    ['PATCH', s, { name: 'renamed' }],
    ['PATCH', `${s}/state`, { command: 'stop' }],
    ['PATCH', `${s}/password`, {}],
    ['DELETE', s],
    ['POST', pipesPath(service.id), pipeBody()],
    ['GET', pipesPath(service.id)],
    ['GET', p],
    ['PATCH', p, { name: 'renamed' }],
    ['DELETE', p],
    ['PATCH', `${p}/state`, { command: 'stop' }],
    ['GET', `${p}/settings`],
    ['PUT', `${p}/settings`, { engine_max_threads: 2 }],
    ['GET', rpesPath(service.id)],
    ['POST', rpesPath(service.id), rpeBody()],
    ['GET', `${rpesPath(service.id)}/${rpe}`],
    ['DELETE', `${rpesPath(service.id)}/${rpe}`],
    ['POST', queryEndpointPath(service.id), { roles: ['sql_console_admin'] }],
    ['GET', queryEndpointPath(service.id)],
    ['DELETE', queryEndpointPath(service.id)],
  ];
}

describe('success envelope', () => {
  it('is {status: 200, requestId: uuid v4, result}, with a new requestId per request', async () => {
    const first = await api.get('/services');
    const second = await api.get('/services');
    expectOk(first);
    expectOk(second);
    expect(first.body.requestId).not.toBe(second.body.requestId);
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('create also answers 200 (not 201)', async () => {
    expect((await api.post('/services', serviceBody())).status).toBe(200);
  });
});

describe('authentication (HTTP Basic)', () => {
  const { keyId, keySecret } = { keyId: 'x', keySecret: 'y' };
  const badAuths = (): Array<[string, string | null]> => [
    ['no header', null],
    ['a wrong secret', basicAuth(emu.credentials.keyId, `${emu.credentials.keySecret}x`)],
    ['a wrong key id', basicAuth(`${emu.credentials.keyId}x`, emu.credentials.keySecret)],
    ['unknown credentials', basicAuth(keyId, keySecret)],
    ['a bearer token', `Bearer ${emu.credentials.alertsToken}`],
    ['malformed base64', 'Basic !!!not-base64!!!'],
    ['no colon', `Basic ${Buffer.from(emu.credentials.keyId).toString('base64')}`],
  ];

  it('is required on every operation: 401 UNAUTHORIZED in the management error shape', async () => {
    const operations = await everyOperation();
    for (const [label, auth] of badAuths()) {
      const anonymous = mgmt(emu, { auth });
      for (const [method, path, body] of operations) {
        const reply = await http(emu, method, anonymous.prefix + path, {
          ...(auth === null ? {} : { auth }),
          ...(body === undefined ? {} : { body }),
        });
        expect(reply.status, `${label}: ${method} ${path}`).toBe(401);
        expectMgmtError(reply, 401);
      }
    }
  });

  it('a refused request changes nothing', async () => {
    const anonymous = mgmt(emu, { auth: null });
    expectMgmtError(await anonymous.post('/services', serviceBody()), 401);
    expect(expectOk(await api.get('/services'))).toEqual([]);
  });

  it('401 comes before body validation and before 404', async () => {
    const anonymous = mgmt(emu, { auth: null });
    expectMgmtError(await anonymous.post('/services', { name: 'bad-name' }), 401);
    expectMgmtError(await anonymous.get(servicePath(randomUUID())), 401);
    expectMgmtError(await anonymous.get(servicePath('not-a-uuid')), 401);
  });

  it('another organization id → 403 FORBIDDEN on every operation', async () => {
    const operations = await everyOperation();
    const foreign = mgmt(emu, { organizationId: randomUUID() });
    for (const [method, path, body] of operations) {
      const reply = await http(emu, method, foreign.prefix + path, {
        auth: basicAuth(emu.credentials.keyId, emu.credentials.keySecret),
        ...(body === undefined ? {} : { body }),
      });
      expect(reply.status, `${method} ${path}`).toBe(403);
      expectMgmtError(reply, 403);
    }
  });
});

describe('path parameters', () => {
  it.each([
    ['GET', (id: string) => servicePath(id), undefined],
    ['PATCH', (id: string) => servicePath(id), { name: 'x' }],
    ['PATCH', (id: string) => `${servicePath(id)}/state`, { command: 'start' }],
    ['PATCH', (id: string) => `${servicePath(id)}/password`, {}],
    ['DELETE', (id: string) => servicePath(id), undefined],
    ['GET', (id: string) => pipesPath(id), undefined],
    ['POST', (id: string) => pipesPath(id), pipeBody()],
    ['POST', (id: string) => queryEndpointPath(id), { roles: ['sql_console_admin'] }],
    ['GET', (id: string) => rpesPath(id), undefined],
  ] as Array<[string, (id: string) => string, unknown]>)(
    'a serviceId that is not a uuid → 400 naming the parameter (%s %#)',
    async (method, build, body) => {
      const path = api.prefix + build('not-a-uuid');
      const reply = await http(emu, method, path, {
        auth: basicAuth(emu.credentials.keyId, emu.credentials.keySecret),
        ...(body === undefined ? {} : { body }),
      });
      expectMgmtError(reply, 400, 'serviceId');
    },
  );

  it('a pipeId that is not a uuid → 400 naming the parameter; well-formed unknown → 404', async () => {
    const service = await createRunningService(api);
    expectMgmtError(await api.get(pipePath(service.id, 'pipe-1')), 400, 'pipeId');
    expectMgmtError(await api.get(`${pipePath(service.id, 'pipe-1')}/settings`), 400, 'pipeId');
    expectMgmtError(
      await api.put(`${pipePath(service.id, 'pipe-1')}/settings`, { engine_max_threads: 1 }),
      400,
      'pipeId',
    );
    expectMgmtError(await api.delete(pipePath(service.id, 'pipe-1')), 400, 'pipeId');
    expectMgmtError(await api.get(pipePath(service.id, randomUUID())), 404);
  });

  it('a reversePrivateEndpointId that is not a uuid → 400 naming the parameter', async () => {
    const service = await createRunningService(api);
    expectMgmtError(await api.get(`${rpesPath(service.id)}/rpe-1`), 400, 'reversePrivateEndpointId');
  });

  it('well-formed unknown ids → 404 NOT_FOUND', async () => {
    const unknown = randomUUID();
    expectMgmtError(await api.get(servicePath(unknown)), 404);
    expectMgmtError(await api.patch(servicePath(unknown), { name: 'x' }), 404);
    expectMgmtError(await api.patch(`${servicePath(unknown)}/state`, { command: 'start' }), 404);
    expectMgmtError(await api.get(pipesPath(unknown)), 404);
    expectMgmtError(await api.post(queryEndpointPath(unknown), { roles: ['sql_console_admin'] }), 404);
    expectMgmtError(await api.get(`${rpesPath(unknown)}/${randomUUID()}`), 404);
  });
});

describe('error shape', () => {
  it('every error carries status, "<CODE>: <message>" and a fresh uuid v4 requestId', async () => {
    const a = await api.get(servicePath(randomUUID()));
    const b = await api.get(servicePath(randomUUID()));
    expectMgmtError(a, 404);
    expectMgmtError(b, 404);
    expect(a.body.requestId).toMatch(UUID_V4);
    expect(a.body.requestId).not.toBe(b.body.requestId);
    expect(Object.keys(a.body).sort()).toEqual(['error', 'requestId', 'status']);
  });

  it('a validation error names the offending field', async () => {
    const message = expectMgmtError(
      await api.post('/services', serviceBody({ maxReplicaMemoryGb: 10 })),
      400,
      'maxReplicaMemoryGb',
    );
    expect(message).toBe('maxReplicaMemoryGb must be a multiple of 4');
  });

  it('a body that is not JSON → 400 BAD_REQUEST in the management shape', async () => {
    expectMgmtError(await api.post('/services', undefined, { rawBody: 'not json' }), 400);
    expectMgmtError(await api.post('/services', undefined, { rawBody: '[1, 2]' }), 400);
  });
});
