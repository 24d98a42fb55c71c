import { describe, expect, it } from 'vitest';
import { apiKeyHashData } from '../../../../src/cloud/api-key-hash.ts';
import type { ApiKey } from '../../../../src/cloud/schemas/api-key.ts';
import { ApiKeySpec } from '../../../../src/kinds/api-key/schema.ts';
import {
  apiKeyCreateBody,
  apiKeyStatus,
  apiKeyUpdateBody,
  diffApiKey,
  exportApiKey,
} from '../../../../src/kinds/api-key/mapping.ts';

const KEY: ApiKey = {
  id: '6f1c1d2e-0000-4000-8000-000000000042',
  name: 'team a',
  state: 'enabled',
  roles: ['query_endpoints', 'developer'],
  keySuffix: 'wxyz',
  createdAt: '2026-11-27T10:00:00.000Z',
  expireAt: '2027-01-31T00:00:00.000Z',
  usedAt: null,
  ipAccessList: [{ source: '10.0.0.0/8', description: 'vpn' }],
};

const spec = (fields: Record<string, unknown> = {}) =>
  ApiKeySpec.parse({
    name: 'team a',
    roles: ['developer', 'query_endpoints'],
    expireAt: '2027-01-31T00:00:00Z',
    ipAccessList: [{ source: '10.0.0.0/8', description: 'vpn' }],
    credentialsSecret: { name: 'team-a-key' },
    ...fields,
  });

describe('ApiKey mapping', () => {
  it('the create sends the hashes of the key id and secret, never the secret', () => {
    const identity = { keyId: 'abcdefghijklmnopwxyz', keySecret: '4b1dsecret' };
    const body = apiKeyCreateBody(spec(), identity);
    expect(body).toEqual({
      name: 'team a',
      roles: ['developer', 'query_endpoints'],
      expireAt: '2027-01-31T00:00:00Z',
      state: 'enabled',
      ipAccessList: [{ source: '10.0.0.0/8', description: 'vpn' }],
      hashData: apiKeyHashData(identity),
    });
    expect(JSON.stringify(body)).not.toContain('4b1dsecret');
  });

  it('finds no difference in roles order, an expiry written another way, or the default state', () => {
    expect(diffApiKey(spec(), KEY)).toEqual([]);
  });

  it.each([
    ['name', { name: 'team b' }, { name: 'team b' }],
    ['roles', { roles: ['admin'] }, { roles: ['admin'] }],
    ['expireAt', { expireAt: '2027-02-01T00:00:00Z' }, { expireAt: '2027-02-01T00:00:00Z' }],
    ['expireAt', { expireAt: undefined }, { expireAt: null }],
    ['state', { state: 'disabled' }, { state: 'disabled' }],
    ['ipAccessList', { ipAccessList: [] }, { ipAccessList: [] }],
  ])('a different %s is one difference, corrected by a PATCH of that field alone', (field, fields, body) => {
    const desired = spec(fields);
    const differences = diffApiKey(desired, KEY);
    expect(differences).toEqual([field]);
    expect(apiKeyUpdateBody(desired, differences)).toEqual(body);
  });

  it('status holds the id, suffix, state and expiry, nothing secret', () => {
    expect(apiKeyStatus(KEY)).toEqual({
      keyId: KEY.id,
      keySuffix: 'wxyz',
      state: 'enabled',
      expireAt: KEY.expireAt,
    });
  });

  it('the exported spec adopts the key with no difference and names the Secret to provide', () => {
    const exported = exportApiKey(KEY, 'team-a-credentials').spec;
    const parsed = ApiKeySpec.parse(exported);
    expect(parsed.credentialsSecret).toEqual({ name: 'team-a-credentials' });
    expect(diffApiKey(parsed, KEY)).toEqual([]);
    expect(JSON.stringify(exported)).not.toMatch(/secret"?:\s*"4b1d/);
  });
});
