/**
 * The management API's keys family (`/v1/organizations/{org}/keys`): a key's roles, state, expiry and IP access
 * list, and the create that takes the key as hashes so the caller makes the secret and never receives one.
 */
import { z } from 'zod';
import { Uuid } from './common.ts';
import { IpAccessEntry } from './service.ts';

/** What each role may call is in docs/cloud-api.md (Keys). */
export const API_KEY_ROLES = ['admin', 'developer', 'query_endpoints'] as const;
export const ApiKeyRole = z.enum(API_KEY_ROLES);
export type ApiKeyRole = z.infer<typeof ApiKeyRole>;

export const ApiKeyState = z.enum(['enabled', 'disabled']);
export type ApiKeyState = z.infer<typeof ApiKeyState>;

export const ApiKeyName = z.string().min(1).max(50);

const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, { error: 'must be a lowercase hex SHA-256 digest' });

/** A key made by the caller: the server keeps the hashes only (hex SHA-256 of the key id and of the secret). */
export const ApiKeyHashData = z.strictObject({
  keyIdHash: Sha256Hex,
  keyIdSuffix: z.string().regex(/^[A-Za-z0-9]{4}$/, { error: 'must be the last 4 letters of the key id' }),
  keySecretHash: Sha256Hex,
});
export type ApiKeyHashData = z.infer<typeof ApiKeyHashData>;

/** ISO 8601 with a zone; `null` (or absent) = never expires. */
const ExpireAt = z.iso.datetime({ offset: true }).nullable();

const Roles = z.array(ApiKeyRole).min(1, { error: 'must name at least one role' });

export const ApiKeyCreateRequest = z.strictObject({
  name: ApiKeyName,
  roles: Roles,
  expireAt: ExpireAt.optional(),
  state: ApiKeyState.optional(),
  ipAccessList: z.array(IpAccessEntry).optional(),
  hashData: ApiKeyHashData.optional(),
});
export type ApiKeyCreateRequest = z.infer<typeof ApiKeyCreateRequest>;

export const ApiKeyUpdateRequest = z.strictObject({
  name: ApiKeyName.optional(),
  roles: Roles.optional(),
  expireAt: ExpireAt.optional(),
  state: ApiKeyState.optional(),
  ipAccessList: z.array(IpAccessEntry).optional(),
});
export type ApiKeyUpdateRequest = z.infer<typeof ApiKeyUpdateRequest>;

/** A key as every answer shows it: never its secret, only the last 4 letters of its key id. */
export const ApiKey = z.looseObject({
  id: Uuid,
  name: z.string(),
  state: ApiKeyState,
  roles: z.array(z.string()),
  keySuffix: z.string(),
  createdAt: z.string(),
  expireAt: z.string().nullable().optional(),
  usedAt: z.string().nullable().optional(),
  ipAccessList: z.array(IpAccessEntry).optional(),
});
export type ApiKey = z.infer<typeof ApiKey>;

/** The create's answer: `keyId` and `keySecret` only when the key was not given as `hashData`. */
export const ApiKeyCreateResult = z.looseObject({
  key: ApiKey,
  keyId: z.string().optional(),
  keySecret: z.string().optional(),
});
export type ApiKeyCreateResult = z.infer<typeof ApiKeyCreateResult>;
