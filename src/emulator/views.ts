/**
 * Resources as the APIs answer with them. Secrets (pipe credentials, access keys, schema registry credentials),
 * `validateSamples` and `destination.roles` are stored but never leave through here; passwords are not stored.
 */
import type { PipeSettings } from '../cloud/schemas/pipe.ts';
import type { AlertRecord, PipeRecord, QueryEndpointRecord, RpeRecord, ServiceRecord } from './store.ts';

export const ENGINE_VERSION = '25.8';

export function serviceHost(service: Pick<ServiceRecord, 'id' | 'region' | 'provider' | 'host'>): string {
  if (service.host) return service.host;
  return `${service.id.slice(0, 8)}.${service.region}.${service.provider}.emulator.sluice.dev`;
}

export function serviceView(s: ServiceRecord) {
  const host = serviceHost(s);
  const endpoints = [
    { protocol: 'https', host, port: 8443, username: 'default' },
    { protocol: 'nativesecure', host, port: 9440, username: 'default' },
  ];
  if (s.mysqlEnabled) endpoints.push({ protocol: 'mysql', host, port: 3306, username: 'default' });
  return {
    id: s.id,
    name: s.name,
    provider: s.provider,
    region: s.region,
    tier: s.tier,
    state: s.state,
    engineVersion: ENGINE_VERSION,
    endpoints,
    minTotalMemoryGb: s.minTotalMemoryGb,
    maxTotalMemoryGb: s.maxTotalMemoryGb,
    minReplicaMemoryGb: s.minReplicaMemoryGb,
    maxReplicaMemoryGb: s.maxReplicaMemoryGb,
    numReplicas: s.numReplicas,
    idleScaling: s.idleScaling,
    idleTimeoutMinutes: s.idleTimeoutMinutes,
    autoscalingMode: s.autoscalingMode ?? 'vertical',
    ...(s.autoscalingMode === 'horizontal' ? { minReplicas: s.minReplicas, maxReplicas: s.maxReplicas } : {}),
    ipAccessList: s.ipAccessList.map((entry) => ({ ...entry })),
    createdAt: s.createdAt,
    encryptionKey: s.encryptionKey,
    encryptionAssumedRoleIdentifier: s.encryptionAssumedRoleIdentifier,
    iamRole: `arn:aws:iam::000000000000:role/sluice-emulator-${s.id.slice(0, 8)}`,
    privateEndpointIds: [...s.privateEndpointIds],
    availablePrivateEndpointIds: [] as string[],
    dataWarehouseId: s.dataWarehouseId,
    isPrimary: s.isPrimary,
    isReadonly: s.isReadonly,
    releaseChannel: s.releaseChannel,
    byocId: s.byocId,
    hasTransparentDataEncryption: s.hasTransparentDataEncryption,
    transparentDataEncryptionKeyId: s.transparentDataEncryptionKeyId,
    encryptionRoleId: s.encryptionRoleId,
    profile: s.profile,
    complianceType: s.complianceType,
    tags: s.tags.map((tag) => ({ ...tag })),
  };
}

/** Where a private endpoint connects to; derived from the service so it is stable across restarts. */
export function privateEndpointConfigView(s: Pick<ServiceRecord, 'id' | 'region' | 'provider'>) {
  const suffix = s.id.replace(/-/g, '').slice(0, 17);
  return {
    endpointServiceId:
      s.provider === 'aws'
        ? `com.amazonaws.vpce.${s.region}.vpce-svc-${suffix}`
        : `sluice-emulator-${suffix}.${s.region}.${s.provider}.privatelinkservice`,
    privateDnsHostname: `${s.id.slice(0, 8)}.${s.region}.vpce.${s.provider}.emulator.sluice.dev`,
  };
}

/** Every service has the default backup schedule: one backup a day, kept for a day. */
/** Only the keys that were set, as the real API answers: a key at the service default is absent, not null. */
export function settingsView(settings: PipeSettings): PipeSettings {
  return { ...settings };
}

/** Drops the secrets of one source kind. */
function publicSource(pipe: PipeRecord): Record<string, unknown> {
  const { kafka, objectStorage, kinesis, postgres } = pipe.source;
  if (kafka) {
    const { credentials: _c, schemaRegistry, ...rest } = kafka;
    const registry = schemaRegistry && (({ credentials: _r, ...r }) => r)(schemaRegistry);
    return { kafka: registry ? { ...rest, schemaRegistry: registry } : rest };
  }
  if (objectStorage) {
    const { accessKey: _a, ...rest } = objectStorage;
    return { objectStorage: rest };
  }
  if (kinesis) {
    const { accessKey: _a, ...rest } = kinesis;
    return { kinesis: rest };
  }
  if (postgres) {
    const { credentials: _c, ...rest } = postgres;
    return { postgres: rest };
  }
  return {};
}

export function pipeView(pipe: PipeRecord) {
  const { roles: _roles, ...destination } = pipe.destination;
  return {
    id: pipe.id,
    serviceId: pipe.serviceId,
    name: pipe.name,
    state: pipe.state,
    scaling: { ...pipe.scaling },
    source: publicSource(pipe),
    destination,
    fieldMappings: pipe.fieldMappings,
    settings: settingsView(pipe.settings),
    createdAt: pipe.createdAt,
    updatedAt: pipe.updatedAt,
  };
}

export function rpeView(rpe: RpeRecord) {
  const { pending: _pending, ...view } = rpe;
  return view;
}

export function queryEndpointView(endpoint: QueryEndpointRecord) {
  const { id, openApiKeys, roles, allowedOrigins } = endpoint;
  return { id, openApiKeys, roles, allowedOrigins };
}

/**
 * The alert with both spellings of the watched object: the contract's `dashboard`/`savedSearch` and the real
 * API's `dashboardId`/`savedSearchId`, which its official client reads back. `source` is echoed as sent.
 */
export function alertView(alert: AlertRecord) {
  return { ...alert, dashboardId: alert.dashboard, savedSearchId: alert.savedSearch };
}
