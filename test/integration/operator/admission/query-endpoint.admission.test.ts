import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { expectRefused, serviceScopedAdmissionTests, useAdmission } from './admission.ts';

const ORIGINS_MESSAGE = 'allowedOrigins must be a comma-separated list of domains';
const valid = {
  serviceRef: { name: 'analytics' },
  roles: ['sql_console_read_only'],
  openApiKeys: ['key-1'],
  allowedOrigins: 'app.example.com,https://admin.example.com:8443',
};
const edited = (change: Record<string, unknown>) => ({ ...valid, ...change });

describe.skipIf(clusterSkipReason())(
  'QueryEndpoint admission (CRD schema and CEL rules on the real apiserver)',
  () => {
    const api = useAdmission('QueryEndpoint', 'qe');

    serviceScopedAdmissionTests(api, valid, 'cannot change after create; create a new QueryEndpoint');

    it.each([
      ['only roles', { serviceRef: valid.serviceRef, roles: ['sql_console_admin'] }],
      ['both roles', edited({ roles: ['sql_console_read_only', 'sql_console_admin'] })],
      ['a wildcard origin and a port', edited({ allowedOrigins: '*.example.com, localhost:3000' })],
    ])('accepts %s', async (_what, spec) => {
      expect(await api.admit(spec)).toBe('accepted');
    });

    it.each([
      ['no roles', { serviceRef: valid.serviceRef }, ['spec.roles']],
      ['an empty roles list', edited({ roles: [] }), ['spec.roles']],
      ['an unknown role', edited({ roles: ['superuser'] }), ['spec.roles[0]', 'Unsupported value']],
      [
        'a role twice',
        edited({ roles: ['sql_console_admin', 'sql_console_admin'] }),
        ['spec.roles[1]', 'Duplicate value'],
      ],
      ['an empty key id', edited({ openApiKeys: [''] }), ['spec.openApiKeys[0]']],
      [
        'a key id twice',
        edited({ openApiKeys: ['key-1', 'key-1'] }),
        ['spec.openApiKeys[1]', 'Duplicate value'],
      ],
      [
        'an empty origin in the list',
        edited({ allowedOrigins: 'a.example.com,,b.example.com' }),
        ['spec.allowedOrigins', ORIGINS_MESSAGE],
      ],
      [
        'an origin with a space',
        edited({ allowedOrigins: 'my site.example.com' }),
        ['spec.allowedOrigins', ORIGINS_MESSAGE],
      ],
      [
        'an origin with a path',
        edited({ allowedOrigins: 'example.com/app' }),
        ['spec.allowedOrigins', ORIGINS_MESSAGE],
      ],
      ['an empty origin string', edited({ allowedOrigins: '' }), ['spec.allowedOrigins', ORIGINS_MESSAGE]],
    ])('refuses %s, naming the field', async (_what, spec, messages) => {
      await expectRefused(api.admit(spec), ...messages);
    });

    it.each([
      ['roles', { roles: ['sql_console_admin'] }],
      ['openApiKeys', { openApiKeys: ['key-2', 'key-3'] }],
      ['allowedOrigins', { allowedOrigins: 'other.example.com' }],
      ['the removal of allowedOrigins', { allowedOrigins: null }],
    ])('lets %s change in place', async (_what, change) => {
      expect(await api.patch('by-ref', change)).toBe('accepted');
    });
  },
);
