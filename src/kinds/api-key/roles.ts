import { ReconcileError, type ManagedObject } from '../../managed/index.ts';
import { API_KEY_REASON } from './reasons.ts';
import { RETRY_DELAYS } from '../../base/retry-delays.ts';
import type { ApiKey } from './schema.ts';

/** `--api-key-roles`: the roles each namespace's ApiKeys may have, by namespace; `*` for every other one. */
export type ApiKeyRoleAllowList = Readonly<Record<string, readonly string[]>>;

/** The namespace wildcard of `--api-key-roles`: the roles of every namespace not listed. */
export const EVERY_OTHER_NAMESPACE = '*';

/**
 * Why the allow-list refuses the ApiKey's roles (a role its namespace may not give a key), or undefined: for
 * any other kind, a namespace the list does not cover, or roles it allows. Checked before any cloud call,
 * so a refused key is neither made nor changed.
 */
export function apiKeyRoleRefusal(
  allowList: ApiKeyRoleAllowList,
): (resource: ManagedObject) => ReconcileError | undefined {
  return (resource) => {
    if (resource.kind !== 'ApiKey') return undefined;
    const { namespace } = resource.metadata;
    const allowed = allowList[namespace] ?? allowList[EVERY_OTHER_NAMESPACE];
    if (!allowed) return undefined;
    const roles = (resource as ApiKey).spec.roles ?? [];
    const refused = roles.filter((role) => !allowed.includes(role));
    if (refused.length === 0) return undefined;
    return ReconcileError.terminal(
      API_KEY_REASON.RoleNotAllowed,
      `spec.roles names ${refused.join(', ')}, which keys of namespace ${namespace} may not have (--api-key-roles allows ${allowed.join(', ')}): no key is made or changed`,
      RETRY_DELAYS.userAction,
    );
  };
}
