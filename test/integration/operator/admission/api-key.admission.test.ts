import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { expectRefused, useAdmission } from './admission.ts';

const valid = {
  name: 'team a',
  roles: ['developer'],
  expireAt: '2027-01-31T00:00:00Z',
  ipAccessList: [{ source: '10.0.0.0/8', description: 'vpn' }],
  credentialsSecret: { name: 'team-a-credentials' },
};
const edited = (change: Record<string, unknown>) => ({ ...valid, ...change });

describe.skipIf(clusterSkipReason())(
  'ApiKey admission (CRD schema and CEL rules on the real apiserver)',
  () => {
    const api = useAdmission('ApiKey', 'key');

    it.each([
      ['a full spec', valid],
      ['only what is required', { name: 'k', roles: ['admin'], credentialsSecret: { name: 'k' } }],
      ['an expiry with an offset and fractions', edited({ expireAt: '2027-01-31T01:00:00.5+01:00' })],
      [
        'every role, and disabled',
        edited({ roles: ['admin', 'developer', 'query_endpoints'], state: 'disabled' }),
      ],
      ["the operator's credentials, named", edited({ operatorCredentials: true })],
      ['a credentials Secret of its own', edited({ credentialsRef: { name: 'key-maker' } })],
      [
        'a credentials Secret, the operator credentials said not to be used',
        edited({ credentialsRef: { name: 'key-maker' }, operatorCredentials: false }),
      ],
    ])('accepts %s', async (_what, spec) => {
      expect(await api.admit(spec)).toBe('accepted');
    });

    it.each([
      ['no credentials Secret', { name: 'k', roles: ['admin'] }, ['spec.credentialsSecret']],
      ['no roles', edited({ roles: [] }), ['spec.roles']],
      ['an unknown role', edited({ roles: ['owner'] }), ['spec.roles[0]', 'Unsupported value']],
      ['a role twice', edited({ roles: ['admin', 'admin'] }), ['spec.roles[1]', 'Duplicate value']],
      ['a name too long', edited({ name: 'x'.repeat(51) }), ['spec.name']],
      [
        'an expiry without a zone',
        edited({ expireAt: '2027-01-31 00:00' }),
        ['spec.expireAt', 'expireAt must be an RFC 3339 time with a zone'],
      ],
      ['an unknown state', edited({ state: 'paused' }), ['spec.state', 'Unsupported value']],
      [
        'an address that is none',
        edited({ ipAccessList: [{ source: 'anywhere' }] }),
        ['spec.ipAccessList[0].source', 'source must be an IP address or CIDR range'],
      ],
      [
        'a Secret name that is none',
        edited({ credentialsSecret: { name: 'Team_A' } }),
        ['spec.credentialsSecret.name'],
      ],
      [
        'signing in with the Secret it writes',
        edited({ credentialsRef: { name: 'team-a-credentials' } }),
        ['spec.credentialsRef must not name spec.credentialsSecret'],
      ],
      [
        "both a credentials Secret and the operator's credentials",
        edited({ credentialsRef: { name: 'key-maker' }, operatorCredentials: true }),
        ['spec.credentialsRef and spec.operatorCredentials: true'],
      ],
      [
        "no credentials Secret, yet not the operator's",
        edited({ operatorCredentials: false }),
        ['spec.operatorCredentials: false needs spec.credentialsRef'],
      ],
    ])('refuses %s, naming the field', async (_what, spec, messages) => {
      await expectRefused(api.admit(spec), ...messages);
    });

    it('takes an edit of every field in place: nothing is fixed at creation', async () => {
      await api.create('editable', valid);
      expect(
        await api.patch('editable', {
          name: 'renamed',
          roles: ['query_endpoints'],
          expireAt: null,
          state: 'disabled',
          ipAccessList: [],
          credentialsSecret: { name: 'elsewhere' },
        }),
      ).toBe('accepted');
    });
  },
);
