import { z } from 'zod';
import { codeForStatus, parseManagementErrorText } from './errors.ts';
import { CloudClient } from './cloud-client.ts';
import { type CallOptions, type ClientOptions, HttpCore, type RequestSpec } from './http.ts';
import type { HttpMethod } from './transport.ts';
import type { PasswordHashes } from './password-hash.ts';
import { MANAGEMENT_QUOTA, quotaKey } from './quota.ts';
import { type Dialect, parseJson } from './responses.ts';
import { ManagementErrorBody, managementEnvelope } from './schemas/common.ts';
import {
  BackupConfiguration,
  BackupList,
  Backup,
  ScalingSchedule,
  UpgradeWindow,
  type BackupConfigurationUpdate,
  type ScalingScheduleUpdate,
  type UpgradeWindowUpdate,
} from './schemas/lifecycle.ts';
import {
  PasswordResetResult,
  PasswordSetResult,
  PrivateEndpointConfig,
  type ReplicaScalingRequest,
  Service,
  ServiceCreateResult,
  type ServiceCommand,
  type ServiceCreateRequest,
  type ServiceUpdateRequest,
} from './schemas/service.ts';
import {
  Pipe,
  PipeSettingsResult,
  type PipeCommand,
  type PipeCreateRequest,
  type PipeScalingRequest,
  type PipeSettings,
  type PipeUpdateRequest,
} from './schemas/pipe.ts';
import {
  ReversePrivateEndpoint,
  type ReversePrivateEndpointCreateRequest,
} from './schemas/reverse-private-endpoint.ts';
import { QueryEndpoint, type QueryEndpointRequest } from './schemas/query-endpoint.ts';
import {
  ApiKey,
  ApiKeyCreateResult,
  type ApiKeyCreateRequest,
  type ApiKeyUpdateRequest,
} from './schemas/api-key.ts';

export interface ManagementConfig {
  /** e.g. `https://api.example.cloud` or the emulator's URL; a path prefix is kept. */
  baseUrl: string;
  organizationId: string;
  keyId: string;
  keySecret: string;
}

/** Request bodies as callers write them (zod input types: defaults optional). */
export type ServiceCreateBody = z.input<typeof ServiceCreateRequest>;
export type ServiceUpdateBody = z.input<typeof ServiceUpdateRequest>;
export type PipeCreateBody = z.input<typeof PipeCreateRequest>;
export type PipeUpdateBody = z.input<typeof PipeUpdateRequest>;
export type PipeSettingsBody = z.input<typeof PipeSettings>;
export type PipeScalingBody = z.input<typeof PipeScalingRequest>;
export type ReplicaScalingBody = z.input<typeof ReplicaScalingRequest>;
export type ReversePrivateEndpointCreateBody = z.input<typeof ReversePrivateEndpointCreateRequest>;
export type QueryEndpointBody = z.input<typeof QueryEndpointRequest>;
export type ApiKeyCreateBody = z.input<typeof ApiKeyCreateRequest>;
export type ApiKeyUpdateBody = z.input<typeof ApiKeyUpdateRequest>;
export type PasswordResetResult = z.infer<typeof PasswordResetResult>;
export type PipeSettingsResult = z.infer<typeof PipeSettingsResult>;

/** A tag filter: `{env: 'prod'}` or `[{key: 'env', value: 'prod'}]`; all must match. */
export type TagFilter = Record<string, string> | ReadonlyArray<{ key: string; value: string }>;

const ORG = '/v1/organizations/:organizationId';
const SERVICES = `${ORG}/services`;
const SERVICE = `${SERVICES}/:serviceId`;
const PIPES = `${SERVICE}/pipes`;
const PIPE = `${PIPES}/:pipeId`;
const RPES = `${SERVICE}/pipesReversePrivateEndpoints`;
const RPE = `${RPES}/:reversePrivateEndpointId`;
const QUERY_ENDPOINT = `${SERVICE}/serviceQueryEndpoint`;
const KEYS = `${ORG}/keys`;
const KEY = `${KEYS}/:keyId`;

/** Route patterns of the management API (as the emulator's call log names them). */
export const MANAGEMENT_ROUTES = {
  services: SERVICES,
  service: SERVICE,
  serviceState: `${SERVICE}/state`,
  servicePassword: `${SERVICE}/password`,
  serviceReplicaScaling: `${SERVICE}/replicaScaling`,
  servicePrivateEndpointConfig: `${SERVICE}/privateEndpointConfig`,
  serviceBackupConfiguration: `${SERVICE}/backupConfiguration`,
  serviceBackups: `${SERVICE}/backups`,
  serviceBackup: `${SERVICE}/backups/:backupId`,
  serviceScalingSchedule: `${SERVICE}/scalingSchedule`,
  serviceUpgradeWindow: `${SERVICE}/upgradeWindow`,
  pipes: PIPES,
  pipe: PIPE,
  pipeState: `${PIPE}/state`,
  pipeSettings: `${PIPE}/settings`,
  pipeScaling: `${PIPE}/scaling`,
  reversePrivateEndpoints: RPES,
  reversePrivateEndpoint: RPE,
  queryEndpoint: QUERY_ENDPOINT,
  keys: KEYS,
  key: KEY,
} as const;

const EnvelopeOfUnknown = managementEnvelope(z.unknown());

/** `{status, requestId, result}` successes; `{status, error: "CODE: message", requestId}` errors. */
export const managementDialect: Dialect = {
  api: 'management',
  unwrap(body) {
    const parsed = EnvelopeOfUnknown.safeParse(body);
    if (!parsed.success) return { ok: false, problem: 'not a {status, requestId, result} envelope' };
    return { ok: true, value: parsed.data.result, requestId: parsed.data.requestId };
  },
  describeError(status, text) {
    const body = ManagementErrorBody.safeParse(parseJson(text));
    if (body.success) {
      const parsed = parseManagementErrorText(body.data.error);
      const requestId = body.data.requestId;
      const described = parsed ?? { code: codeForStatus(status), message: body.data.error };
      return requestId === undefined ? described : { ...described, requestId };
    }
    return { code: codeForStatus(status), message: text.trim().slice(0, 500) || `HTTP ${status}` };
  },
};

/** Basic credentials as RFC 7617 encodes them. */
export function basicAuthorization(user: string, secret: string): string {
  return `Basic ${Buffer.from(`${user}:${secret}`, 'utf8').toString('base64')}`;
}

/**
 * The management API (services, pipes, reverse private endpoints, query endpoints), contract operations and
 * the extensions the real service has. Every method throws a `CloudError` subclass on failure (`ApiError`
 * for an error answer; `isNotFound(err)` etc. classify it).
 */
export class ManagementClient extends CloudClient {
  readonly organizationId: string;
  /** The base URL the client calls: what a credentials Secret names as `managementUrl`. */
  readonly managementUrl: string;
  private readonly keySuffix: string;

  constructor(config: ManagementConfig, options: ClientOptions = {}) {
    const authorization = basicAuthorization(config.keyId, config.keySecret);
    super(
      new HttpCore(
        {
          dialect: managementDialect,
          baseUrl: config.baseUrl,
          authorization,
          secrets: [config.keySecret, authorization.slice('Basic '.length)],
          quotaKey: quotaKey('management', config.baseUrl, {
            keyId: config.keyId,
            keySecret: config.keySecret,
          }),
          defaultQuota: MANAGEMENT_QUOTA,
        },
        options,
      ),
    );
    this.organizationId = config.organizationId;
    this.managementUrl = config.baseUrl;
    this.keySuffix = config.keyId.slice(-4);
  }

  /** Whether a listed key's suffix is this client's own key id's (the API shows no more of a key id). */
  usesKeySuffix(suffix: string): boolean {
    return suffix === this.keySuffix;
  }

  // ---- services -------------------------------------------------------------------------------------

  /** Operation 1. NOT idempotent: after an `AmbiguousRequestError` look (e.g. by tag) before creating again. */
  createService(body: ServiceCreateBody, options?: CallOptions): Promise<ServiceCreateResult> {
    return this.send('POST', SERVICES, {}, { body, schema: ServiceCreateResult, idempotent: false }, options);
  }

  /** Extension. */
  getService(serviceId: string, options?: CallOptions): Promise<Service> {
    return this.send('GET', SERVICE, { serviceId }, { schema: Service }, options);
  }

  /** Extension: all services of the organization, optionally only those carrying every given tag. */
  listServices(params: { tags?: TagFilter } = {}, options?: CallOptions): Promise<Service[]> {
    const query = toTags(params.tags).map(({ key, value }) => ['filter', `tag:${key}=${value}`] as const);
    return this.send('GET', SERVICES, {}, { schema: z.array(Service), query }, options);
  }

  /** Operation 2. List fields take `{add, remove}` edits. */
  updateService(serviceId: string, body: ServiceUpdateBody, options?: CallOptions): Promise<Service> {
    return this.send('PATCH', SERVICE, { serviceId }, { body, schema: Service }, options);
  }

  /** Operation 3 (`awake` is an extension). */
  changeServiceState(serviceId: string, command: ServiceCommand, options?: CallOptions): Promise<Service> {
    return this.send(
      'PATCH',
      `${SERVICE}/state`,
      { serviceId },
      { body: { command }, schema: Service },
      options,
    );
  }

  /** Extension. Asynchronous: the service goes terminating, then GET answers 404. */
  async deleteService(serviceId: string, options?: CallOptions): Promise<void> {
    await this.send('DELETE', SERVICE, { serviceId }, { schema: z.unknown(), envelope: false }, options);
  }

  /** Extension: a new password for the default user (only ever returned here). */
  resetServicePassword(serviceId: string, options?: CallOptions): Promise<PasswordResetResult> {
    return this.send(
      'PATCH',
      `${SERVICE}/password`,
      { serviceId },
      { body: {}, schema: PasswordResetResult },
      options,
    );
  }

  /** Extension: sets the default user's password to one the caller chose, sent only as its hashes. */
  async setServicePasswordHash(
    serviceId: string,
    hashes: PasswordHashes,
    options?: CallOptions,
  ): Promise<void> {
    await this.send(
      'PATCH',
      `${SERVICE}/password`,
      { serviceId },
      { body: hashes, schema: PasswordSetResult },
      options,
    );
  }

  /** Extension: resize in place; send only the sizing fields that change. Answers the service object. */
  updateReplicaScaling(serviceId: string, body: ReplicaScalingBody, options?: CallOptions): Promise<Service> {
    return this.send(
      'PATCH',
      MANAGEMENT_ROUTES.serviceReplicaScaling,
      { serviceId },
      { body, schema: Service },
      options,
    );
  }

  /** Extension. */
  getPrivateEndpointConfig(serviceId: string, options?: CallOptions): Promise<PrivateEndpointConfig> {
    return this.send(
      'GET',
      MANAGEMENT_ROUTES.servicePrivateEndpointConfig,
      { serviceId },
      { schema: PrivateEndpointConfig },
      options,
    );
  }

  /** Extension. */
  getBackupConfiguration(serviceId: string, options?: CallOptions): Promise<BackupConfiguration> {
    return this.send(
      'GET',
      MANAGEMENT_ROUTES.serviceBackupConfiguration,
      { serviceId },
      { schema: BackupConfiguration },
      options,
    );
  }

  /** Extension: only the fields given change; `null` puts one back to its default. */
  updateBackupConfiguration(
    serviceId: string,
    body: BackupConfigurationUpdate,
    options?: CallOptions,
  ): Promise<BackupConfiguration> {
    return this.send(
      'PATCH',
      MANAGEMENT_ROUTES.serviceBackupConfiguration,
      { serviceId },
      { body, schema: BackupConfiguration },
      options,
    );
  }

  /** Extension: the service's backups, newest first. */
  listBackups(serviceId: string, options?: CallOptions): Promise<Backup[]> {
    return this.send('GET', MANAGEMENT_ROUTES.serviceBackups, { serviceId }, { schema: BackupList }, options);
  }

  /** Extension. */
  getBackup(serviceId: string, backupId: string, options?: CallOptions): Promise<Backup> {
    return this.send(
      'GET',
      MANAGEMENT_ROUTES.serviceBackup,
      { serviceId, backupId },
      { schema: Backup },
      options,
    );
  }

  /** Extension: 403 when the organization cannot use scheduled scaling. */
  getScalingSchedule(serviceId: string, options?: CallOptions): Promise<ScalingSchedule> {
    return this.send(
      'GET',
      MANAGEMENT_ROUTES.serviceScalingSchedule,
      { serviceId },
      { schema: ScalingSchedule },
      options,
    );
  }

  /** Extension: replaces the whole schedule. */
  setScalingSchedule(
    serviceId: string,
    body: ScalingScheduleUpdate,
    options?: CallOptions,
  ): Promise<ScalingSchedule> {
    return this.send(
      'POST',
      MANAGEMENT_ROUTES.serviceScalingSchedule,
      { serviceId },
      { body, schema: ScalingSchedule },
      options,
    );
  }

  /** Extension. */
  async deleteScalingSchedule(serviceId: string, options?: CallOptions): Promise<void> {
    await this.send(
      'DELETE',
      MANAGEMENT_ROUTES.serviceScalingSchedule,
      { serviceId },
      { schema: z.unknown(), envelope: false },
      options,
    );
  }

  /** Extension: 404 when the service has none. */
  getUpgradeWindow(serviceId: string, options?: CallOptions): Promise<UpgradeWindow> {
    return this.send(
      'GET',
      MANAGEMENT_ROUTES.serviceUpgradeWindow,
      { serviceId },
      { schema: UpgradeWindow },
      options,
    );
  }

  /** Extension: 403 when the organization cannot use scheduled upgrades. */
  setUpgradeWindow(
    serviceId: string,
    body: UpgradeWindowUpdate,
    options?: CallOptions,
  ): Promise<UpgradeWindow> {
    return this.send(
      'PUT',
      MANAGEMENT_ROUTES.serviceUpgradeWindow,
      { serviceId },
      { body, schema: UpgradeWindow },
      options,
    );
  }

  /** Extension: allowed without the feature, so a window can always be cleared. */
  async deleteUpgradeWindow(serviceId: string, options?: CallOptions): Promise<void> {
    await this.send(
      'DELETE',
      MANAGEMENT_ROUTES.serviceUpgradeWindow,
      { serviceId },
      { schema: z.unknown(), envelope: false },
      options,
    );
  }

  // ---- pipes ----------------------------------------------------------------------------------------

  /** Operation 4. NOT idempotent: after an `AmbiguousRequestError` list the pipes before creating again. */
  createPipe(serviceId: string, body: PipeCreateBody, options?: CallOptions): Promise<Pipe> {
    return this.send('POST', PIPES, { serviceId }, { body, schema: Pipe, idempotent: false }, options);
  }

  /** Operation 5. */
  listPipes(serviceId: string, options?: CallOptions): Promise<Pipe[]> {
    return this.send('GET', PIPES, { serviceId }, { schema: z.array(Pipe) }, options);
  }

  /** Operation 6. */
  getPipe(serviceId: string, pipeId: string, options?: CallOptions): Promise<Pipe> {
    return this.send('GET', PIPE, { serviceId, pipeId }, { schema: Pipe }, options);
  }

  /** Extension: name, fieldMappings, destination.columns, scaling and source credentials. */
  updatePipe(serviceId: string, pipeId: string, body: PipeUpdateBody, options?: CallOptions): Promise<Pipe> {
    return this.send('PATCH', PIPE, { serviceId, pipeId }, { body, schema: Pipe }, options);
  }

  /** Extension: replicas and their size. Answers the pipe. */
  updatePipeScaling(
    serviceId: string,
    pipeId: string,
    body: PipeScalingBody,
    options?: CallOptions,
  ): Promise<Pipe> {
    return this.send(
      'PATCH',
      MANAGEMENT_ROUTES.pipeScaling,
      { serviceId, pipeId },
      { body, schema: Pipe },
      options,
    );
  }

  /** Extension (`resync` re-snapshots a postgres pipe). */
  changePipeState(
    serviceId: string,
    pipeId: string,
    command: PipeCommand,
    options?: CallOptions,
  ): Promise<Pipe> {
    return this.send(
      'PATCH',
      `${PIPE}/state`,
      { serviceId, pipeId },
      { body: { command }, schema: Pipe },
      options,
    );
  }

  /** The contract's delete (method and path from the real service). */
  async deletePipe(serviceId: string, pipeId: string, options?: CallOptions): Promise<void> {
    await this.send('DELETE', PIPE, { serviceId, pipeId }, { schema: z.unknown(), envelope: false }, options);
  }

  /** Extension. */
  getPipeSettings(serviceId: string, pipeId: string, options?: CallOptions): Promise<PipeSettingsResult> {
    return this.send(
      'GET',
      `${PIPE}/settings`,
      { serviceId, pipeId },
      { schema: PipeSettingsResult },
      options,
    );
  }

  /** Operation 7: a merge (omitted keys keep their value, `null` resets one). */
  putPipeSettings(
    serviceId: string,
    pipeId: string,
    settings: PipeSettingsBody,
    options?: CallOptions,
  ): Promise<PipeSettingsResult> {
    return this.send(
      'PUT',
      `${PIPE}/settings`,
      { serviceId, pipeId },
      { body: settings, schema: PipeSettingsResult },
      options,
    );
  }

  // ---- reverse private endpoints --------------------------------------------------------------------

  /** Extension. NOT idempotent. */
  createReversePrivateEndpoint(
    serviceId: string,
    body: ReversePrivateEndpointCreateBody,
    options?: CallOptions,
  ): Promise<ReversePrivateEndpoint> {
    return this.send(
      'POST',
      RPES,
      { serviceId },
      { body, schema: ReversePrivateEndpoint, idempotent: false },
      options,
    );
  }

  /** Extension. */
  listReversePrivateEndpoints(serviceId: string, options?: CallOptions): Promise<ReversePrivateEndpoint[]> {
    return this.send('GET', RPES, { serviceId }, { schema: z.array(ReversePrivateEndpoint) }, options);
  }

  /** Operation 8. */
  getReversePrivateEndpoint(
    serviceId: string,
    reversePrivateEndpointId: string,
    options?: CallOptions,
  ): Promise<ReversePrivateEndpoint> {
    return this.send(
      'GET',
      RPE,
      { serviceId, reversePrivateEndpointId },
      { schema: ReversePrivateEndpoint },
      options,
    );
  }

  /** Extension. */
  async deleteReversePrivateEndpoint(
    serviceId: string,
    reversePrivateEndpointId: string,
    options?: CallOptions,
  ): Promise<void> {
    await this.send(
      'DELETE',
      RPE,
      { serviceId, reversePrivateEndpointId },
      { schema: z.unknown(), envelope: false },
      options,
    );
  }

  // ---- query endpoint -------------------------------------------------------------------------------

  /** Operation 9: an upsert that replaces the whole configuration, hence idempotent (retried freely). */
  upsertQueryEndpoint(
    serviceId: string,
    body: QueryEndpointBody,
    options?: CallOptions,
  ): Promise<QueryEndpoint> {
    return this.send(
      'POST',
      QUERY_ENDPOINT,
      { serviceId },
      { body, schema: QueryEndpoint, idempotent: true },
      options,
    );
  }

  /** Extension; 404 when the service has none. */
  getQueryEndpoint(serviceId: string, options?: CallOptions): Promise<QueryEndpoint> {
    return this.send('GET', QUERY_ENDPOINT, { serviceId }, { schema: QueryEndpoint }, options);
  }

  /** Extension. */
  async deleteQueryEndpoint(serviceId: string, options?: CallOptions): Promise<void> {
    await this.send(
      'DELETE',
      QUERY_ENDPOINT,
      { serviceId },
      { schema: z.unknown(), envelope: false },
      options,
    );
  }

  // ---- keys -----------------------------------------------------------------------------------------

  /** Extension: every key of the organization (never a secret). */
  listApiKeys(options?: CallOptions): Promise<ApiKey[]> {
    return this.send('GET', KEYS, {}, { schema: z.array(ApiKey) }, options);
  }

  getApiKey(keyId: string, options?: CallOptions): Promise<ApiKey> {
    return this.send('GET', KEY, { keyId }, { schema: ApiKey }, options);
  }

  /** NOT idempotent; sent with `hashData`, the same key id twice is refused (409) instead of made twice. */
  createApiKey(body: ApiKeyCreateBody, options?: CallOptions): Promise<ApiKeyCreateResult> {
    return this.send('POST', KEYS, {}, { body, schema: ApiKeyCreateResult, idempotent: false }, options);
  }

  updateApiKey(keyId: string, body: ApiKeyUpdateBody, options?: CallOptions): Promise<ApiKey> {
    return this.send('PATCH', KEY, { keyId }, { body, schema: ApiKey, idempotent: true }, options);
  }

  async deleteApiKey(keyId: string, options?: CallOptions): Promise<void> {
    await this.send('DELETE', KEY, { keyId }, { schema: z.unknown() }, options);
  }

  private send<T>(
    method: HttpMethod,
    route: string,
    params: Record<string, string>,
    spec: Omit<RequestSpec<T>, 'method' | 'route' | 'params'>,
    options?: CallOptions,
  ): Promise<T> {
    return this.call(
      { ...spec, method, route, params: { organizationId: this.organizationId, ...params } },
      options,
    );
  }
}

function toTags(tags: TagFilter | undefined): ReadonlyArray<{ key: string; value: string }> {
  if (tags === undefined) return [];
  if (isTagList(tags)) return tags;
  return Object.entries(tags).map(([key, value]) => ({ key, value }));
}

function isTagList(tags: TagFilter): tags is ReadonlyArray<{ key: string; value: string }> {
  return Array.isArray(tags);
}
