/**
 * The keys family and who a Basic credential is: the emulator's configured key (role `admin`, never changed
 * through the API) and the keys created through `POST …/keys`, kept as hashes only. A created key works at once;
 * a disabled, expired or deleted one gets 401; its roles decide which routes it may call (403 otherwise).
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { z } from 'zod';
import { newKeyIdentity, sha256Hex } from '../cloud/api-key-hash.ts';
import type { KeyIdentity } from '../cloud/api-key-hash.ts';
import { ApiKeyCreateRequest, ApiKeyUpdateRequest } from '../cloud/schemas/api-key.ts';
import type { ApiKeyRole } from '../cloud/schemas/api-key.ts';
import { Uuid } from '../cloud/schemas/common.ts';
import type { IpAccessEntry } from '../cloud/schemas/service.ts';
import type { App, Caller, EmulatorContext } from './context.ts';
import { ApiError, badRequest, conflict, notFound } from './errors.ts';
import { management, ok, OrgParams, ORG } from './route-kit.ts';
import type { ApiKeyRecord } from './store.ts';

const KeyParams = OrgParams.extend({ keyId: Uuid });
const KEY = `${ORG}/keys/:keyId`;

/** A uuid (v4-shaped) derived from the configured key id, so that key keeps its id across restarts. */
export function configuredKeyUuid(keyId: string): string {
  const hex = sha256Hex(keyId);
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const ALL_ROUTES = () => true;
/**
 * What each role may call (the published reference names the roles, not a table; this split is the project's):
 * `admin` everything; `developer` everything but writes to keys and to the organization; `query_endpoints`
 * the query endpoint routes and the reads of services that lead to them.
 */
const ROLE_ALLOWS: Record<ApiKeyRole, (method: string, route: string) => boolean> = {
  admin: ALL_ROUTES,
  developer: (method, route) =>
    method === 'GET' || !(route === ORG || route === `${ORG}/keys` || route === KEY),
  query_endpoints: (method, route) =>
    route.endsWith('/serviceQueryEndpoint') ||
    (method === 'GET' && (route === `${ORG}/services` || route === `${ORG}/services/:serviceId`)),
};

export function rolesAllow(roles: readonly string[], method: string, route: string): boolean {
  return roles.some((role) => ROLE_ALLOWS[role as ApiKeyRole]?.(method, route) ?? false);
}

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

function allowsAddress(list: readonly IpAccessEntry[], address: string): boolean {
  if (list.length === 0) return true;
  const blocks = new BlockList();
  for (const { source } of list) {
    const [ip, bits] = source.split('/');
    const type = isIPv4(ip!) ? 'ipv4' : 'ipv6';
    if (bits === undefined) blocks.addAddress(ip!, type);
    else blocks.addSubnet(ip!, Number(bits), type);
  }
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address)?.[1];
  const plain = mapped ?? address;
  return blocks.check(plain, isIPv6(plain) ? 'ipv6' : 'ipv4');
}

/**
 * The caller a key id and secret name, or the 401 that refuses them. `remoteAddress` is checked against the
 * key's own IP access list (403 when it is not in it).
 */
export function authenticate(
  ctx: EmulatorContext,
  configured: KeyIdentity,
  presented: KeyIdentity,
  remoteAddress: string | undefined,
): Caller {
  if (presented.keyId === configured.keyId && presented.keySecret === configured.keySecret) {
    return { id: configuredKeyUuid(configured.keyId), roles: ['admin'], quotaKey: configured.keyId };
  }
  const key = ctx.store.apiKeyByIdHash(sha256Hex(presented.keyId));
  if (!key || !sameHash(key.keySecretHash, sha256Hex(presented.keySecret))) {
    throw new ApiError(401, 'invalid or missing API key (HTTP Basic keyId:keySecret)');
  }
  if (key.state !== 'enabled') throw new ApiError(401, 'the API key is disabled');
  if (key.expireAt && Date.parse(key.expireAt) <= Date.parse(ctx.timestamp())) {
    throw new ApiError(401, 'the API key has expired');
  }
  if (!allowsAddress(key.ipAccessList, remoteAddress ?? '')) {
    throw new ApiError(403, `the API key does not allow calls from ${remoteAddress}`);
  }
  key.usedAt = ctx.timestamp();
  return { id: key.id, roles: key.roles, quotaKey: presented.keyId };
}

function keyView(key: ApiKeyRecord) {
  return {
    id: key.id,
    name: key.name,
    state: key.state,
    roles: [...key.roles],
    keySuffix: key.keySuffix,
    createdAt: key.createdAt,
    expireAt: key.expireAt,
    usedAt: key.usedAt,
    ipAccessList: key.ipAccessList.map((entry) => ({ ...entry })),
  };
}

function requireFuture(ctx: EmulatorContext, expireAt: string | null | undefined): void {
  if (expireAt && Date.parse(expireAt) <= Date.parse(ctx.timestamp())) {
    throw badRequest('expireAt must be in the future');
  }
}

export function registerApiKeyRoutes(app: App, ctx: EmulatorContext, configured: KeyIdentity): void {
  const { store } = ctx;
  const configuredId = configuredKeyUuid(configured.keyId);
  const configuredView = () => ({
    id: configuredId,
    name: 'sluice emulator key',
    state: 'enabled' as const,
    roles: ['admin'],
    keySuffix: configured.keyId.slice(-4),
    createdAt: store.organization.createdAt,
    expireAt: null,
    usedAt: new Date().toISOString(),
    ipAccessList: [],
  });

  function requireKey(keyId: string): ApiKeyRecord {
    if (keyId.toLowerCase() === configuredId) {
      throw conflict('the emulator’s configured key cannot be changed or deleted through the API');
    }
    const key = store.apiKeys.get(keyId.toLowerCase());
    if (!key) throw notFound(`key ${keyId} does not exist`);
    return key;
  }

  app.get(`${ORG}/keys`, management(OrgParams), () =>
    ok([configuredView(), ...[...store.apiKeys.values()].map(keyView)]),
  );

  app.post(`${ORG}/keys`, { ...management(OrgParams), schema: { body: ApiKeyCreateRequest } }, (request) => {
    const body = request.body;
    requireFuture(ctx, body.expireAt);
    const made = body.hashData ? undefined : newKeyIdentity();
    const keyIdHash = body.hashData?.keyIdHash ?? sha256Hex(made!.keyId);
    if (keyIdHash === sha256Hex(configured.keyId) || store.apiKeyByIdHash(keyIdHash)) {
      throw conflict('a key with this key id already exists');
    }
    const key: ApiKeyRecord = {
      id: randomUUID(),
      name: body.name,
      state: body.state ?? 'enabled',
      roles: [...new Set(body.roles)],
      keyIdHash,
      keySuffix: body.hashData?.keyIdSuffix ?? made!.keyId.slice(-4),
      keySecretHash: body.hashData?.keySecretHash ?? sha256Hex(made!.keySecret),
      createdAt: ctx.timestamp(),
      expireAt: body.expireAt ?? null,
      usedAt: null,
      ipAccessList: body.ipAccessList ?? [],
    };
    store.apiKeys.set(key.id, key);
    ctx.changed();
    return ok({ key: keyView(key), ...made });
  });

  app.get(KEY, management(KeyParams), (request) => {
    const { keyId } = request.params as z.infer<typeof KeyParams>;
    if (keyId.toLowerCase() === configuredId) return ok(configuredView());
    const key = store.apiKeys.get(keyId.toLowerCase());
    if (!key) throw notFound(`key ${keyId} does not exist`);
    return ok(keyView(key));
  });

  app.patch(KEY, { ...management(KeyParams), schema: { body: ApiKeyUpdateRequest } }, (request) => {
    const key = requireKey((request.params as z.infer<typeof KeyParams>).keyId);
    const body = request.body;
    requireFuture(ctx, body.expireAt);
    if (body.name !== undefined) key.name = body.name;
    if (body.roles !== undefined) key.roles = [...new Set(body.roles)];
    if (body.expireAt !== undefined) key.expireAt = body.expireAt;
    if (body.state !== undefined) key.state = body.state;
    if (body.ipAccessList !== undefined) key.ipAccessList = body.ipAccessList;
    ctx.changed();
    return ok(keyView(key));
  });

  app.delete(KEY, management(KeyParams), (request) => {
    const key = requireKey((request.params as z.infer<typeof KeyParams>).keyId);
    if (key.id === request.caller?.id) {
      throw conflict('a key cannot delete itself: use another key to delete the key of this request');
    }
    store.apiKeys.delete(key.id);
    ctx.changed();
    return ok(null);
  });
}
