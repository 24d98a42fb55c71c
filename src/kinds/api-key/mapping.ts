// The ApiKey's mapping between spec and cloud, pure: the create body (`apiKeyCreateBody`), the key in the
// spec's terms (`observedSpec`), the differences and the PATCH that corrects them (`diffApiKey`,
// `apiKeyUpdateBody`), the status (`apiKeyStatus`) and the export mapping (`exportApiKey`).
import { isDeepStrictEqual } from 'node:util';
import type { ApiKeySpec } from './schema.ts';
import { apiKeyHashData, type KeyIdentity } from '../../cloud/api-key-hash.ts';
import type { ApiKeyCreateBody, ApiKeyUpdateBody } from '../../cloud/management-client.ts';
import type { ApiKey } from '../../cloud/schemas/api-key.ts';
import { CREDENTIAL_KEYS } from '../../cloud-access/credentials.ts';
import { unmarkedName } from './owner-mark.ts';

/** The keys the key's credentials Secret holds: a credentials Secret's management keys, as every command reads them. */
export const CREDENTIALS_KEYS = CREDENTIAL_KEYS.management;

const FIELDS = ['name', 'roles', 'expireAt', 'state', 'ipAccessList'] as const;
type Field = (typeof FIELDS)[number];

const asSet = (items: readonly string[] | undefined) => [...new Set(items ?? [])].sort();
/** An instant, so `…T00:00:00Z` and `…T00:00:00.000Z` are the same expiry; absent and null are never. */
const instant = (value: string | null | undefined) => (value ? Date.parse(value) : null);
const entries = (list: ApiKeySpec['ipAccessList']) =>
  (list ?? []).map(({ source, description }) => ({ source, ...(description ? { description } : {}) }));

/** The create body for a key whose id and secret sluice made: only their hashes are sent. */
export function apiKeyCreateBody(spec: ApiKeySpec, identity: KeyIdentity): ApiKeyCreateBody {
  return {
    name: spec.name,
    roles: asSet(spec.roles) as ApiKeyCreateBody['roles'],
    ...(spec.expireAt ? { expireAt: spec.expireAt } : {}),
    state: spec.state ?? 'enabled',
    ...(spec.ipAccessList?.length ? { ipAccessList: entries(spec.ipAccessList) } : {}),
    hashData: apiKeyHashData(identity),
  };
}

/** The key in the spec's terms, for the field policy (what "leave it to the cloud" keeps): no owner mark. */
export function observedSpec(key: ApiKey): Record<string, unknown> {
  return {
    name: unmarkedName(key.name),
    roles: asSet(key.roles),
    ...(key.expireAt ? { expireAt: key.expireAt } : {}),
    state: key.state,
    ...(key.ipAccessList?.length ? { ipAccessList: entries(key.ipAccessList) } : {}),
  };
}

const same: Record<Field, (spec: ApiKeySpec, key: ApiKey) => boolean> = {
  name: (spec, key) => spec.name === key.name,
  roles: (spec, key) => isDeepStrictEqual(asSet(spec.roles), asSet(key.roles)),
  expireAt: (spec, key) => instant(spec.expireAt) === instant(key.expireAt),
  state: (spec, key) => (spec.state ?? 'enabled') === key.state,
  ipAccessList: (spec, key) => isDeepStrictEqual(entries(spec.ipAccessList), entries(key.ipAccessList ?? [])),
};

/** The spec fields whose cloud value differs. */
export function diffApiKey(spec: ApiKeySpec, key: ApiKey): string[] {
  return FIELDS.filter((field) => !same[field](spec, key));
}

/** The PATCH that sets exactly the differing fields (an expiry the spec dropped is cleared with null). */
export function apiKeyUpdateBody(spec: ApiKeySpec, differences: readonly string[]): ApiKeyUpdateBody {
  const body: ApiKeyUpdateBody = {};
  for (const field of differences) {
    if (field === 'name') body.name = spec.name;
    if (field === 'roles') body.roles = asSet(spec.roles) as ApiKeyUpdateBody['roles'];
    if (field === 'expireAt') body.expireAt = spec.expireAt ?? null;
    if (field === 'state') body.state = spec.state ?? 'enabled';
    if (field === 'ipAccessList') body.ipAccessList = entries(spec.ipAccessList);
  }
  return body;
}

/** Status fields as the cloud reports them; never a secret (the cloud has none to report). */
export function apiKeyStatus(key: ApiKey): Record<string, unknown> {
  return {
    keyId: key.id,
    keySuffix: key.keySuffix,
    state: key.state,
    ...(key.expireAt ? { expireAt: key.expireAt } : {}),
  };
}

/**
 * The spec that adopts a key as it is. Its secret is never exported (the cloud never shows it): the
 * manifest names a Secret that sluice writes the organization and URL into, and that must be given the
 * key id and secret (or the key rotated) before it authenticates anything.
 */
export function exportApiKey(key: ApiKey, secretName: string): { spec: Record<string, unknown> } {
  return { spec: { ...observedSpec(key), credentialsSecret: { name: secretName } } };
}
