import { describe, expect, it } from 'vitest';
import { apiKeyRoleRefusal } from '../../../../src/kinds/api-key/roles.ts';
import type { ManagedObject } from '../../../../src/managed/index.ts';

const key = (namespace: string, roles: string[], kind = 'ApiKey') =>
  ({ kind, metadata: { name: 'k', namespace, uid: 'u' }, spec: { roles } }) as unknown as ManagedObject;

describe('the ApiKey role allow-list', () => {
  const refusal = apiKeyRoleRefusal({ 'team-a': ['developer', 'query_endpoints'], '*': ['query_endpoints'] });

  it("allows the roles of the namespace's own entry, else the wildcard's", () => {
    expect(refusal(key('team-a', ['developer', 'query_endpoints']))).toBeUndefined();
    expect(refusal(key('team-b', ['query_endpoints']))).toBeUndefined();
  });

  it('refuses any other role, naming spec.roles, the roles refused and those allowed', () => {
    expect(refusal(key('team-a', ['developer', 'admin']))).toMatchObject({
      reason: 'RoleNotAllowed',
      message:
        'spec.roles names admin, which keys of namespace team-a may not have (--api-key-roles allows developer, query_endpoints): no key is made or changed',
    });
    expect(refusal(key('team-b', ['developer']))?.reason).toBe('RoleNotAllowed');
  });

  it('leaves other kinds, and namespaces no entry covers, alone', () => {
    expect(refusal(key('team-a', ['admin'], 'QueryEndpoint'))).toBeUndefined();
    expect(apiKeyRoleRefusal({ 'team-a': ['developer'] })(key('team-b', ['admin']))).toBeUndefined();
  });
});
