import { beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../harness/testCluster.ts';
import { useAdmission } from './admission.ts';

const SERVICE_ID = '5f0c8e4a-1b2c-4d3e-8f90-123456789abc';
const REPLACE = 'cannot change after create; create a new QueryEndpoint';
const ORIGINS_MESSAGE = 'allowedOrigins must be a comma-separated list of domains';
const valid = {
  serviceRef: { name: 'analytics' },
  roles: ['sql_console_read_only'],
  openApiKeys: ['key-1'],
  allowedOrigins: 'app.example.com,https://admin.example.com:8443',
};
const without = (field: keyof typeof valid) => {
  const { [field]: _gone, ...rest } = valid;
  return rest;
};

describe.skipIf(clusterSkipReason())(
  'QueryEndpoint admission (CRD schema and CEL rules on the real apiserver)',
  () => {
    const api = useAdmission('QueryEndpoint', 'qe');

    const expectRefused = async (answer: Promise<string>, ...messages: string[]) => {
      const text = await answer;
      expect(text).not.toBe('accepted');
      for (const message of messages) expect(text).toContain(message);
    };

    it('accepts a query endpoint and defaults deletionPolicy to Delete', async () => {
      const created = await api.create('defaults', valid);
      expect(created.spec).toMatchObject({ deletionPolicy: 'Delete' });
    });

    it.each([
      ['only roles', { serviceRef: valid.serviceRef, roles: ['sql_console_admin'] }],
      ['a serviceId instead of serviceRef', { ...without('serviceRef'), serviceId: SERVICE_ID }],
      ['both roles', { ...valid, roles: ['sql_console_read_only', 'sql_console_admin'] }],
      ['a wildcard origin', { ...valid, allowedOrigins: '*.example.com, localhost:3000' }],
    ])('accepts %s', async (_what, spec) => {
      expect(await api.admit(spec)).toBe('accepted');
    });

    it.each([
      ['neither serviceRef nor serviceId', without('serviceRef'), 'exactly one of serviceRef and serviceId'],
      [
        'both serviceRef and serviceId',
        { ...valid, serviceId: SERVICE_ID },
        'exactly one of serviceRef and serviceId',
      ],
      ['a serviceId that is not a uuid', { ...without('serviceRef'), serviceId: 'svc-1' }, 'spec.serviceId'],
      ['no roles', without('roles'), 'spec.roles'],
      ['an empty roles list', { ...valid, roles: [] }, 'spec.roles'],
      ['an unknown role', { ...valid, roles: ['superuser'] }, 'spec.roles[0]', 'Unsupported value'],
      [
        'a role twice',
        { ...valid, roles: ['sql_console_admin', 'sql_console_admin'] },
        'spec.roles[1]',
        'Duplicate value',
      ],
      ['an empty key id', { ...valid, openApiKeys: [''] }, 'spec.openApiKeys[0]'],
      [
        'a key id twice',
        { ...valid, openApiKeys: ['key-1', 'key-1'] },
        'spec.openApiKeys[1]',
        'Duplicate value',
      ],
      [
        'an empty origin in the list',
        { ...valid, allowedOrigins: 'a.example.com,,b.example.com' },
        'spec.allowedOrigins',
        ORIGINS_MESSAGE,
      ],
      [
        'an origin with a space',
        { ...valid, allowedOrigins: 'my site.example.com' },
        'spec.allowedOrigins',
        ORIGINS_MESSAGE,
      ],
      [
        'an origin with a path',
        { ...valid, allowedOrigins: 'example.com/app' },
        'spec.allowedOrigins',
        ORIGINS_MESSAGE,
      ],
      ['an empty origin string', { ...valid, allowedOrigins: '' }, 'spec.allowedOrigins', ORIGINS_MESSAGE],
      [
        'an unknown deletion policy',
        { ...valid, deletionPolicy: 'Keep' },
        'spec.deletionPolicy',
        'Unsupported value',
      ],
    ])('refuses %s, naming the field', async (_what, spec, ...messages) => {
      await expectRefused(api.admit(spec), ...messages);
    });

    describe('after create', () => {
      beforeAll(async () => {
        await api.create('by-ref', valid);
        await api.create('by-id', { ...without('serviceRef'), serviceId: SERVICE_ID });
      });

      it.each([
        ['by-ref', 'serviceRef', { serviceRef: { name: 'other' } }],
        ['by-ref', 'serviceRef', { serviceRef: null, serviceId: SERVICE_ID }],
        ['by-id', 'serviceId', { serviceId: '0e6a2f3c-9d41-4b7e-a2c5-6f8d9e0a1b2c' }],
      ])('%s: refuses to move the endpoint to another service, naming %s', async (name, field, change) => {
        await expectRefused(api.patch(name, change), `${field} ${REPLACE}`);
      });

      it.each([
        ['roles', { roles: ['sql_console_admin'] }],
        ['openApiKeys', { openApiKeys: ['key-2', 'key-3'] }],
        ['allowedOrigins', { allowedOrigins: 'other.example.com' }],
        ['the removal of allowedOrigins', { allowedOrigins: null }],
        ['the deletion policy', { deletionPolicy: 'Orphan' }],
      ])('lets %s change in place', async (_what, change) => {
        expect(await api.patch('by-ref', change)).toBe('accepted');
      });
    });
  },
);
