import { describe, expect, it } from 'vitest';
import {
  ALLOWED_ORIGINS_PATTERN,
  type QueryEndpointSpec,
} from '../../../../src/kinds/query-endpoint/schema.ts';
import {
  diffQueryEndpoint,
  queryEndpointBody,
  queryEndpointStatus,
} from '../../../../src/kinds/query-endpoint/mapping.ts';

const spec = (extra: Partial<QueryEndpointSpec> = {}): QueryEndpointSpec => ({
  serviceRef: { name: 'analytics' },
  roles: ['sql_console_read_only'],
  openApiKeys: ['key-1', 'key-2'],
  allowedOrigins: 'app.example.com,admin.example.com',
  deletionPolicy: 'Delete',
  ...extra,
});
const cloud = { id: 'qe-1', roles: ['sql_console_read_only'], openApiKeys: ['key-1', 'key-2'] };

describe('queryEndpointBody', () => {
  it('carries the whole configuration and none of the Kubernetes-only fields', () => {
    expect(queryEndpointBody(spec({ credentialsRef: { name: 'other' } }))).toEqual({
      roles: ['sql_console_read_only'],
      openApiKeys: ['key-1', 'key-2'],
      allowedOrigins: 'app.example.com,admin.example.com',
    });
  });

  it('leaves out what the spec leaves out, so the upsert removes it in the cloud', () => {
    expect(queryEndpointBody(spec({ openApiKeys: undefined, allowedOrigins: undefined }))).toEqual({
      roles: ['sql_console_read_only'],
    });
  });
});

describe('diffQueryEndpoint', () => {
  it('finds nothing when the cloud has the spec, whatever the order of lists and origins', () => {
    const observed = {
      ...cloud,
      openApiKeys: ['key-2', 'key-1'],
      allowedOrigins: 'admin.example.com, app.example.com',
    };
    expect(diffQueryEndpoint(spec(), observed)).toEqual([]);
  });

  it('names each field the cloud has otherwise', () => {
    const observed = {
      id: 'qe-1',
      roles: ['sql_console_admin'],
      openApiKeys: ['key-1'],
      allowedOrigins: 'evil.example.com',
    };
    expect(diffQueryEndpoint(spec(), observed)).toEqual(['roles', 'openApiKeys', 'allowedOrigins']);
  });

  it('treats an absent list or origin string as empty on either side', () => {
    const bare = spec({ openApiKeys: undefined, allowedOrigins: undefined });
    expect(
      diffQueryEndpoint(bare, { id: 'qe-1', roles: bare.roles, openApiKeys: [], allowedOrigins: '' }),
    ).toEqual([]);
    expect(diffQueryEndpoint(bare, { ...cloud, allowedOrigins: 'x.example.com' })).toEqual([
      'openApiKeys',
      'allowedOrigins',
    ]);
  });
});

describe('queryEndpointStatus', () => {
  it('reports the configuration as observed, empty lists included', () => {
    expect(queryEndpointStatus({ id: 'qe-1', roles: ['sql_console_admin'] })).toEqual({
      roles: ['sql_console_admin'],
      openApiKeys: [],
    });
  });
});

describe('the allowedOrigins pattern (checked at admission by CEL)', () => {
  const matches = (value: string) => new RegExp(ALLOWED_ORIGINS_PATTERN).test(value);

  it.each([
    'example.com',
    'app.example.com,admin.example.com',
    'app.example.com, admin.example.com',
    'https://app.example.com:8443',
    '*.example.org',
    'localhost:3000',
  ])('accepts %s', (value) => expect(matches(value)).toBe(true));

  it.each(['', 'a.com,,b.com', 'a.com,', 'two words.com', '-bad.com', 'ftp://a.com', 'a.com/path'])(
    'refuses %j',
    (value) => expect(matches(value)).toBe(false),
  );
});
