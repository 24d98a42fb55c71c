import { describe, expect, it } from 'vitest';
import { CredentialsChecks } from '../../../src/managed/credentials-checks.ts';
import type { CredentialsRead, ManagedObject, ManagedStatus } from '../../../src/managed/index.ts';

const object = (fields: { spec?: ManagedObject['spec']; status?: ManagedObject['status'] } = {}) =>
  ({
    metadata: { name: 'k', namespace: 'team', uid: 'u' },
    spec: fields.spec ?? {},
    ...(fields.status ? { status: fields.status } : {}),
  }) as ManagedObject;

describe('CredentialsChecks', () => {
  /** The checks of credentials read as of `organization`. */
  const checks = (organization: string | undefined, madeBy?: string, makesCredentials = true) => {
    const credentials: CredentialsRead = {
      secret: { namespace: 'team', name: 'credentials' },
      snapshot: { data: organization ? { organizationId: organization } : {}, resourceVersion: '1' },
      organization,
      objectSecret: 'credentials',
    };
    const checks = new CredentialsChecks<ManagedObject>({
      kind: {
        kind: 'ApiKey',
        ...(makesCredentials ? { makesCredentials: { identityKeys: ['keyId'] } } : {}),
      },
      credentialsMadeBy: () => madeBy,
    });
    return {
      refusal: (resource: ManagedObject) => checks.refusal(resource, credentials),
      pinned: (id: string | undefined) => checks.pinned(id, credentials),
    };
  };

  it('refuses credentials of another organization than the one status pins, naming both', () => {
    const pinned = object({ status: { id: 'id-1', organizationId: 'org-a' } });
    expect(checks('org-a').refusal(pinned)).toBeUndefined();
    expect(checks('org-b').refusal(pinned)).toMatchObject({
      reason: 'OrganizationChanged',
      message: expect.stringMatching(/ApiKey id-1 lives in organization org-a .* of organization org-b/),
    });
    // Nothing pinned yet, or credentials naming no organization: nothing to compare.
    expect(checks('org-b').refusal(object({ status: { id: 'id-1' } }))).toBeUndefined();
    expect(checks(undefined).refusal(pinned)).toBeUndefined();
  });

  it('pins the organization once the object has an id, and not before', () => {
    const status: ManagedStatus = {};
    Object.assign(status, checks('org-a').pinned(status.id));
    expect(status.organizationId).toBeUndefined();
    status.id = 'id-1';
    Object.assign(status, checks('org-a').pinned(status.id));
    expect(status.organizationId).toBe('org-a');
  });

  it('refuses, for a kind that makes credentials only, a credentialsRef holding a key such a kind makes', () => {
    const named = object({ spec: { credentialsRef: { name: 'maker-credentials' } } });
    expect(checks('org-a', 'ApiKey maker').refusal(named)).toMatchObject({
      reason: 'CredentialsManagedKey',
      message: expect.stringContaining(
        'spec.credentialsRef names Secret maker-credentials, which holds the key ApiKey maker makes',
      ),
    });
    expect(checks('org-a', 'ApiKey maker', false).refusal(named)).toBeUndefined();
    expect(checks('org-a', undefined).refusal(named)).toBeUndefined();
  });
});
