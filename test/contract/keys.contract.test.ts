/**
 * The keys family (`/v1/organizations/{org}/keys`) and the keys it makes: a created key authenticates at once,
 * a disabled, expired or deleted one gets 401, its roles decide which routes answer (403 otherwise), and each
 * key has its own quota.
 */
import { describe, expect, it } from 'vitest';
import { apiKeyHashData, newKeyIdentity } from '../../src/cloud/api-key-hash.ts';
import type { KeyIdentity } from '../../src/cloud/api-key-hash.ts';
import {
  basicAuth,
  control,
  expectMgmtError,
  expectOk,
  mgmt,
  useContractEmulator,
  UUID_V4,
} from './support/api.ts';
import type { Json } from './support/api.ts';
import { createRunningService, queryEndpointPath, serviceBody } from './support/fixtures.ts';

const { emu, api } = useContractEmulator();

const as = (identity: KeyIdentity) => mgmt(emu, { auth: basicAuth(identity.keyId, identity.keySecret) });

/** Creates a key from a client-made secret; returns the key as the API shows it and the credentials. */
async function createKey(
  fields: Record<string, unknown> = {},
): Promise<{ key: Json; identity: KeyIdentity }> {
  const identity = newKeyIdentity();
  const result = expectOk(
    await api.post('/keys', {
      name: 'team key',
      roles: ['admin'],
      hashData: apiKeyHashData(identity),
      ...fields,
    }),
  );
  return { key: result.key, identity };
}

describe('the keys family', () => {
  it('a create without hashData returns the key id and secret once; they authenticate at once', async () => {
    const reply = await api.post('/keys', { name: 'scrape', roles: ['developer'] });
    const result = expectOk(reply);
    expect(result.key).toEqual({
      id: expect.stringMatching(UUID_V4),
      name: 'scrape',
      state: 'enabled',
      roles: ['developer'],
      keySuffix: result.keyId.slice(-4),
      createdAt: expect.any(String),
      expireAt: null,
      usedAt: null,
      ipAccessList: [],
    });
    expect(result.keySecret).toMatch(/^4b1d/);
    expectOk(await as(result).get('/services'));

    const listed = await api.get('/keys');
    expect(expectOk(listed).map((key: Json) => key.id)).toContain(result.key.id);
    expect(listed.text).not.toContain(result.keySecret);
    const one = await api.get(`/keys/${result.key.id}`);
    expect(expectOk(one)).toMatchObject({ id: result.key.id, usedAt: expect.any(String) });
    expect(one.text).not.toContain(result.keySecret);
  });

  it('a create with hashData returns neither key id nor secret; the client-made ones authenticate', async () => {
    const identity = newKeyIdentity();
    const result = expectOk(
      await api.post('/keys', { name: 'made here', roles: ['admin'], hashData: apiKeyHashData(identity) }),
    );
    expect(Object.keys(result)).toEqual(['key']);
    expect(result.key.keySuffix).toBe(identity.keyId.slice(-4));
    expectOk(await as(identity).get('/services'));
    expectMgmtError(await as({ ...identity, keySecret: `${identity.keySecret}x` }).get('/services'), 401);
  });

  it('PATCH changes name, roles, expireAt, state and ipAccessList; GET shows them', async () => {
    const { key } = await createKey();
    const expireAt = new Date(Date.now() + 86_400_000).toISOString();
    const patched = expectOk(
      await api.patch(`/keys/${key.id}`, {
        name: 'renamed',
        roles: ['developer', 'query_endpoints'],
        expireAt,
        state: 'disabled',
        ipAccessList: [{ source: '10.0.0.0/8', description: 'office' }],
      }),
    );
    expect(patched).toMatchObject({
      name: 'renamed',
      roles: ['developer', 'query_endpoints'],
      expireAt,
      state: 'disabled',
      ipAccessList: [{ source: '10.0.0.0/8', description: 'office' }],
    });
    expect(expectOk(await api.get(`/keys/${key.id}`))).toEqual(patched);
    expect(expectOk(await api.patch(`/keys/${key.id}`, { expireAt: null })).expireAt).toBeNull();
  });

  it('DELETE removes the key: GET is 404, and it authenticates no more (401)', async () => {
    const { key, identity } = await createKey();
    expectOk(await as(identity).get('/services'));
    expectOk(await api.delete(`/keys/${key.id}`));
    expectMgmtError(await api.get(`/keys/${key.id}`), 404);
    expectMgmtError(await api.delete(`/keys/${key.id}`), 404);
    expectMgmtError(await as(identity).get('/services'), 401);
  });

  it('a key cannot delete itself (409); another key can', async () => {
    const { key, identity } = await createKey();
    expectMgmtError(await as(identity).delete(`/keys/${key.id}`), 409, /cannot delete itself/);
    expectOk(await as(identity).get('/services'));
    expectOk(await api.delete(`/keys/${key.id}`));
  });

  it.each([
    ['roles', { roles: [] }],
    ['roles[0]', { roles: ['owner'] }],
    ['name', { name: '' }],
    [
      'hashData.keyIdHash',
      { hashData: { keyIdHash: 'abc', keyIdSuffix: 'abcd', keySecretHash: 'f'.repeat(64) } },
    ],
    [
      'hashData.keyIdSuffix',
      { hashData: { keyIdHash: 'a'.repeat(64), keyIdSuffix: 'ab', keySecretHash: 'f'.repeat(64) } },
    ],
    ['expireAt', { expireAt: 'tomorrow' }],
    ['expireAt', { expireAt: new Date(Date.now() - 60_000).toISOString() }],
    ['ipAccessList[0].source', { ipAccessList: [{ source: 'nowhere' }] }],
  ])('a bad %s is refused with 400 naming it, and no key is made', async (field, fields) => {
    expectMgmtError(await api.post('/keys', { name: 'bad', roles: ['admin'], ...fields }), 400, field);
    expect(expectOk(await api.get('/keys'))).toHaveLength(1);
  });

  it('a second key with the same key id hash is refused (409)', async () => {
    const { identity } = await createKey();
    const again = await api.post('/keys', {
      name: 'again',
      roles: ['admin'],
      hashData: apiKeyHashData(identity),
    });
    expectMgmtError(again, 409);
    expect(expectOk(await api.get('/keys'))).toHaveLength(2);
  });

  it('the configured key is listed but cannot be changed or deleted through the API', async () => {
    const configured = expectOk(await api.get('/keys'))[0];
    expectMgmtError(await api.patch(`/keys/${configured.id}`, { state: 'disabled' }), 409);
    expectMgmtError(await api.delete(`/keys/${configured.id}`), 409);
    expectOk(await api.get('/services'));
  });
});

describe('authentication with created keys', () => {
  it('a disabled key gets 401; enabled again it works', async () => {
    const { key, identity } = await createKey();
    expectOk(await api.patch(`/keys/${key.id}`, { state: 'disabled' }));
    expectMgmtError(await as(identity).get('/services'), 401, /disabled/);
    expectOk(await api.patch(`/keys/${key.id}`, { state: 'enabled' }));
    expectOk(await as(identity).get('/services'));
  });

  it('a key created disabled gets 401 from its first call', async () => {
    const { identity } = await createKey({ state: 'disabled' });
    expectMgmtError(await as(identity).get('/services'), 401);
  });

  it('an expired key gets 401 once the cloud’s clock passes its expireAt', async () => {
    const { identity } = await createKey({ expireAt: new Date(Date.now() + 60_000).toISOString() });
    expectOk(await as(identity).get('/services'));
    await control(emu).setClock({ offsetMs: 120_000 });
    expectMgmtError(await as(identity).get('/services'), 401, /expired/);
  });

  it('a key whose IP access list leaves out the caller gets 403; one that lists it works', async () => {
    const { key, identity } = await createKey({ ipAccessList: [{ source: '10.0.0.0/8' }] });
    expectMgmtError(await as(identity).get('/services'), 403, /does not allow calls from/);
    expectOk(await api.patch(`/keys/${key.id}`, { ipAccessList: [{ source: '127.0.0.1' }] }));
    expectOk(await as(identity).get('/services'));
  });
});

describe('roles', () => {
  it('a query_endpoints key may configure a query endpoint and read services, and gets 403 on a service create', async () => {
    const service = await createRunningService(api);
    const { identity } = await createKey({ roles: ['query_endpoints'] });
    const key = as(identity);
    expectMgmtError(await key.post('/services', serviceBody()), 403, /do not allow POST/);
    expectMgmtError(await key.patch(`/services/${service.id}`, { name: 'renamed' }), 403);
    expectMgmtError(await key.post('/keys', { name: 'more', roles: ['admin'] }), 403);
    expectOk(await key.get('/services'));
    expectOk(await key.get(`/services/${service.id}`));
    expectOk(
      await key.post(queryEndpointPath(service.id), {
        roles: ['sql_console_read_only'],
        openApiKeys: [],
        allowedOrigins: '',
      }),
    );
    expect(expectOk(await api.get('/services'))).toHaveLength(1);
  });

  it('a developer key may create services but not keys, nor change the organization', async () => {
    const { key: created, identity } = await createKey({ roles: ['developer'] });
    const key = as(identity);
    expectOk(await key.post('/services', serviceBody()));
    expectOk(await key.get('/keys'));
    expectMgmtError(await key.post('/keys', { name: 'more', roles: ['admin'] }), 403);
    expectMgmtError(await key.patch(`/keys/${created.id}`, { roles: ['admin'] }), 403);
    expectMgmtError(await key.patch('', { name: 'mine' }), 403);
  });

  it('an admin key may manage keys', async () => {
    const { identity } = await createKey({ roles: ['admin'] });
    const made = expectOk(await as(identity).post('/keys', { name: 'by admin', roles: ['developer'] }));
    expectOk(await as(identity).delete(`/keys/${made.key.id}`));
  });
});

describe('quota per key: each created key has its own 10 requests / 10 s', () => {
  const { emu: limited } = useContractEmulator({ rateLimit: undefined }, { reset: false });

  it('a key that spent its window gets 429 while another key’s calls still answer', async () => {
    const admin = mgmt(limited);
    const a = newKeyIdentity();
    const b = newKeyIdentity();
    expectOk(await admin.post('/keys', { name: 'a', roles: ['admin'], hashData: apiKeyHashData(a) }));
    expectOk(await admin.post('/keys', { name: 'b', roles: ['admin'], hashData: apiKeyHashData(b) }));
    const asA = mgmt(limited, { auth: basicAuth(a.keyId, a.keySecret) });
    const asB = mgmt(limited, { auth: basicAuth(b.keyId, b.keySecret) });
    for (let i = 0; i < 10; i++) expectOk(await asA.get('/services'));
    expectMgmtError(await asA.get('/services'), 429);
    for (let i = 0; i < 10; i++) expectOk(await asB.get('/services'));
    expectMgmtError(await asB.get('/services'), 429);
    // The configured key spent 2 of its own 10 on the creates.
    for (let i = 0; i < 8; i++) expectOk(await admin.get('/services'));
    expectMgmtError(await admin.get('/services'), 429);
  });
});
