import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { QUERY_ENDPOINT_ROLES } from '../../src/cloud/schemas/index.ts';
import { expectMgmtError, expectOk, useContractEmulator } from './support/api.ts';
import { createRunningService, queryEndpointPath } from './support/fixtures.ts';

const { api } = useContractEmulator();
let serviceId: string;

beforeEach(async () => {
  serviceId = (await createRunningService(api)).id;
});

const path = () => queryEndpointPath(serviceId);
const full = {
  roles: ['sql_console_read_only'],
  openApiKeys: ['key-1', 'key-2'],
  allowedOrigins: 'app.example.com,admin.example.com',
};
/** "Removed" reads as absent; an empty value is tolerated as the same thing. */
const expectCleared = (value: unknown) => expect([undefined, null, '', []]).toContainEqual(value);

describe('upsert (operation 9)', () => {
  it('creates the endpoint and returns {id, openApiKeys, roles, allowedOrigins}', async () => {
    const result = expectOk(await api.post(path(), full));
    expect(result.id).toBeTypeOf('string');
    expect(result).toMatchObject(full);
    expect(expectOk(await api.get(path()))).toEqual(result);
  });

  it('accepts every role', async () => {
    const result = expectOk(await api.post(path(), { ...full, roles: [...QUERY_ENDPOINT_ROLES] }));
    expect([...result.roles].sort()).toEqual([...QUERY_ENDPOINT_ROLES].sort());
  });

  it('replaces the whole configuration: keys not sent are removed', async () => {
    expectOk(await api.post(path(), full));
    const result = expectOk(await api.post(path(), { roles: ['sql_console_admin'] }));
    expect(result.roles).toEqual(['sql_console_admin']);
    expectCleared(result.openApiKeys);
    expectCleared(result.allowedOrigins);
    const got = expectOk(await api.get(path()));
    expect(got.roles).toEqual(['sql_console_admin']);
    expectCleared(got.openApiKeys);
    expectCleared(got.allowedOrigins);
  });

  it('a second upsert replaces values instead of merging lists', async () => {
    expectOk(await api.post(path(), full));
    const result = expectOk(await api.post(path(), { ...full, openApiKeys: ['key-3'] }));
    expect(result.openApiKeys).toEqual(['key-3']);
  });

  it.each([
    ['roles[0]', { roles: ['sql_console_superuser'] }],
    ['roles', { roles: 'sql_console_admin' }],
    ['openApiKeys', { openApiKeys: 'key-1' }],
    ['allowedOrigins', { allowedOrigins: ['a.example.com'] }],
    ['colour', { colour: 'blue' }],
  ])('refuses a bad %s, naming it, and changes nothing', async (field, override) => {
    expectOk(await api.post(path(), full));
    const before = expectOk(await api.get(path()));
    expectMgmtError(await api.post(path(), { ...full, ...override }), 400, field);
    expect(expectOk(await api.get(path()))).toEqual(before);
  });

  it('a refused first upsert creates nothing', async () => {
    expectMgmtError(await api.post(path(), { roles: ['nobody'] }), 400, 'roles[0]');
    expectMgmtError(await api.get(path()), 404);
  });

  it('on an unknown service is 404', async () => {
    expectMgmtError(await api.post(queryEndpointPath(randomUUID()), full), 404);
  });
});

describe('GET and DELETE (extensions)', () => {
  it('GET is 404 when none exists', async () => {
    expectMgmtError(await api.get(path()), 404);
  });

  it('DELETE removes it; GET is then 404; a new upsert creates it again', async () => {
    expectOk(await api.post(path(), full));
    expectOk(await api.delete(path()));
    expectMgmtError(await api.get(path()), 404);
    expect(expectOk(await api.post(path(), full))).toMatchObject(full);
  });

  it('belongs to one service', async () => {
    const other = (await createRunningService(api)).id;
    expectOk(await api.post(path(), full));
    expectMgmtError(await api.get(queryEndpointPath(other)), 404);
  });
});
