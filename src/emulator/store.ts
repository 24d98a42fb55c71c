/**
 * The emulator's resources, in memory. Records hold everything a request gave (credentials included, which
 * the views never echo); `pending` holds the state-machine steps still to come, so a state file can resume them.
 */
import type { AlertChannel } from '../cloud/schemas/alert.ts';
import type { FieldMapping, PipeSettings, PipeSource, PipeState, SourceKind } from '../cloud/schemas/pipe.ts';
import type { Destination } from '../cloud/schemas/pipe.ts';
import type { AutoscalingMode, IpAccessEntry, ServiceState, Tag } from '../cloud/schemas/service.ts';
import type { ScalingScheduleEntryRequest } from '../cloud/schemas/lifecycle.ts';
import type { RpeStatus, RpeType } from './state-machines.ts';
import type { z } from 'zod';

export interface ServiceRecord {
  id: string;
  name: string;
  provider: string;
  region: string;
  /** Set by the control route to move the service to another host (as a cloud migration would). */
  host?: string;
  tier?: string;
  state: ServiceState;
  pending: string[];
  createdAt: string;
  minReplicaMemoryGb: number;
  maxReplicaMemoryGb: number;
  minTotalMemoryGb: number;
  maxTotalMemoryGb: number;
  numReplicas: number;
  idleScaling: boolean;
  idleTimeoutMinutes: number;
  /** Optional so state files written before autoscaling modes existed still load (they mean vertical). */
  autoscalingMode?: AutoscalingMode;
  /** The replica range of a horizontally scaled service. */
  minReplicas?: number;
  maxReplicas?: number;
  ipAccessList: IpAccessEntry[];
  encryptionKey?: string;
  encryptionAssumedRoleIdentifier?: string;
  privateEndpointIds: string[];
  dataWarehouseId: string;
  isPrimary: boolean;
  isReadonly: boolean;
  backupId?: string;
  releaseChannel: string;
  byocId?: string;
  hasTransparentDataEncryption: boolean;
  transparentDataEncryptionKeyId?: string;
  encryptionRoleId?: string;
  profile?: string;
  complianceType?: string;
  mysqlEnabled: boolean;
  tags: Tag[];
  /** Only a hash is kept: nothing ever reads a password back, and state files should not hold it. */
  passwordSha256: string;
  /** Hex SHA-1(SHA-1(password)), when the password was set by hash with one (the MySQL protocol's form). */
  passwordDoubleSha1?: string;
  /** Absent: the defaults. */
  backupConfiguration?: BackupConfigurationRecord;
  scalingSchedule?: ScalingScheduleRecord;
  upgradeWindow?: { weekday: number; startHourUtc: number };
}

export interface BackupConfigurationRecord {
  backupPeriodInHours: number;
  backupRetentionPeriodInHours: number;
  backupStartTime: string | null;
}

/** The sizing a schedule entry or the base configuration sets. */
export interface ScheduledSizing {
  autoscalingMode?: AutoscalingMode;
  numReplicas: number;
  minReplicas?: number;
  maxReplicas?: number;
  minReplicaMemoryGb: number;
  maxReplicaMemoryGb: number;
  idleScaling: boolean;
  idleTimeoutMinutes: number;
}

export interface ScalingScheduleRecord {
  entries: (ScalingScheduleEntryRequest & { id: string })[];
  /** The sizing outside every entry, kept while an entry is active (the service shows the entry's). */
  base?: ScheduledSizing;
  /** The entry the service runs with now, as last applied on the emulator's clock. */
  activeEntryId?: string;
}

export interface PipeScalingRecord {
  replicas: number;
  concurrency: number;
  replicaCpuMillicores: number;
  replicaMemoryGb: number;
}

export interface PipeRecord {
  id: string;
  serviceId: string;
  name: string;
  state: PipeState;
  pending: string[];
  kind: SourceKind;
  isContinuous: boolean;
  /** As requested, credentials and validateSamples included. */
  source: PipeSource;
  /** As requested, roles included. */
  destination: z.infer<typeof Destination>;
  fieldMappings: FieldMapping[];
  scaling: PipeScalingRecord;
  /** Only keys with a value; a missing key means the service default. */
  settings: PipeSettings;
  createdAt: string;
  updatedAt: string;
}

export interface RpeRecord {
  id: string;
  serviceId: string;
  description: string;
  type: RpeType;
  vpcEndpointServiceName?: string;
  vpcResourceConfigurationId?: string;
  vpcResourceShareArn?: string;
  mskClusterArn?: string;
  mskAuthentication?: string;
  endpointId: string;
  dnsNames: string[];
  privateDnsNames: string[];
  status: RpeStatus;
  pending: string[];
}

export interface QueryEndpointRecord {
  id: string;
  serviceId: string;
  roles?: string[];
  openApiKeys?: string[];
  allowedOrigins?: string;
}

export interface AlertRecord {
  id: string;
  name?: string;
  message?: string;
  threshold: number;
  interval: string;
  thresholdType: string;
  source: string;
  state: string;
  channel: z.infer<typeof AlertChannel>;
  team: string;
  tileId?: string;
  dashboard?: string;
  savedSearch?: string;
  groupBy?: string;
  /** ISO 8601; null when the alert has no schedule start. */
  scheduleStartAt?: string | null;
  scheduleOffsetMinutes?: number;
  numConsecutiveWindows?: number;
  thresholdMax?: number;
  note?: string;
  silenced: boolean;
  createdAt: string;
  updatedAt: string;
}

/** A webhook as stored: `headers` and `queryParams` are write-only and never leave the store. */
export interface WebhookRecord {
  id: string;
  name: string;
  service: string;
  url: string;
  description?: string;
  body?: string;
  headers?: Record<string, string>;
  queryParams?: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

export interface SavedSearchRecord {
  id: string;
  name: string;
  sourceId: string;
  select: string;
  where: string;
  whereLanguage: string;
  orderBy: string;
  tags: string[];
  filters?: unknown[];
  createdAt: string;
  updatedAt: string;
}

export interface TileRecord {
  id: string;
  name: string;
  x: number;
  y: number;
  w: number;
  h: number;
  config?: Record<string, unknown>;
  series?: Record<string, unknown>[];
}

export interface DashboardRecord {
  id: string;
  name: string;
  tiles: TileRecord[];
  tags: string[];
  filters?: Record<string, unknown>[];
  createdAt: string;
  updatedAt: string;
}

/** A source: the fields every kind has, and the kind's own ones as sent. */
export interface SourceRecord extends Record<string, unknown> {
  id: string;
  name: string;
}

/** A connection; `password` never leaves the store. */
export interface ConnectionRecord {
  id: string;
  name: string;
  host: string;
  username: string;
  password: string;
  hyperdxSettingPrefix?: string;
  prometheusEndpoint?: string;
}

/** A created API key: its secret and key id are kept as hex SHA-256 only. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  state: 'enabled' | 'disabled';
  roles: string[];
  keyIdHash: string;
  keySuffix: string;
  keySecretHash: string;
  createdAt: string;
  expireAt: string | null;
  usedAt: string | null;
  ipAccessList: IpAccessEntry[];
}

/** The organization's own settings (extension). */
export interface OrganizationRecord {
  name: string;
  createdAt: string;
  enableCoreDumps: boolean;
  /** Beta features the organization may use; absent in older state files (then both are on). */
  features?: OrganizationFeatures;
}

/** Set through `/_emulator/organization/features`; a route needing a feature the organization lacks is 403. */
export interface OrganizationFeatures {
  /** `canUseScheduledAutoscaling`: the scaling schedule. */
  scheduledScaling: boolean;
  /** `canUseScheduledUpgrades`: setting an upgrade window. */
  scheduledUpgrades: boolean;
}

export const DEFAULT_FEATURES: OrganizationFeatures = { scheduledScaling: true, scheduledUpgrades: true };

const newOrganization = (): OrganizationRecord => ({
  name: 'sluice emulator',
  createdAt: new Date().toISOString(),
  enableCoreDumps: false,
  features: { ...DEFAULT_FEATURES },
});

/** What a state file holds. */
export interface Snapshot {
  version: 1;
  /** Absent in state files written before the organization settings existed. */
  organization?: OrganizationRecord;
  services: ServiceRecord[];
  pipes: PipeRecord[];
  reversePrivateEndpoints: RpeRecord[];
  queryEndpoints: QueryEndpointRecord[];
  alerts: AlertRecord[];
  /** Absent in state files written before keys could be created. */
  apiKeys?: ApiKeyRecord[];
  /** Absent in state files written before the alerting API's other objects existed. */
  webhooks?: WebhookRecord[];
  savedSearches?: SavedSearchRecord[];
  dashboards?: DashboardRecord[];
  sources?: SourceRecord[];
  connections?: ConnectionRecord[];
}

export class Store {
  readonly services = new Map<string, ServiceRecord>();
  /** serviceId → pipeId → pipe */
  readonly pipes = new Map<string, Map<string, PipeRecord>>();
  /** serviceId → endpointId → endpoint */
  readonly rpes = new Map<string, Map<string, RpeRecord>>();
  /** serviceId → query endpoint */
  readonly queryEndpoints = new Map<string, QueryEndpointRecord>();
  readonly alerts = new Map<string, AlertRecord>();
  readonly webhooks = new Map<string, WebhookRecord>();
  readonly savedSearches = new Map<string, SavedSearchRecord>();
  readonly dashboards = new Map<string, DashboardRecord>();
  readonly sources = new Map<string, SourceRecord>();
  readonly connections = new Map<string, ConnectionRecord>();
  /** Created keys by their API id (the emulator's configured key is not among them). */
  readonly apiKeys = new Map<string, ApiKeyRecord>();
  organization = newOrganization();

  pipesOf(serviceId: string): ReadonlyMap<string, PipeRecord> {
    return this.pipes.get(serviceId) ?? EMPTY;
  }

  addPipe(pipe: PipeRecord): void {
    let pipes = this.pipes.get(pipe.serviceId);
    if (!pipes) this.pipes.set(pipe.serviceId, (pipes = new Map()));
    pipes.set(pipe.id, pipe);
  }

  removePipe(pipe: PipeRecord): void {
    this.pipes.get(pipe.serviceId)?.delete(pipe.id);
  }

  rpesOf(serviceId: string): ReadonlyMap<string, RpeRecord> {
    return this.rpes.get(serviceId) ?? EMPTY;
  }

  addRpe(rpe: RpeRecord): void {
    let rpes = this.rpes.get(rpe.serviceId);
    if (!rpes) this.rpes.set(rpe.serviceId, (rpes = new Map()));
    rpes.set(rpe.id, rpe);
  }

  removeRpe(rpe: RpeRecord): void {
    this.rpes.get(rpe.serviceId)?.delete(rpe.id);
  }

  /** A service and everything that hangs off it. */
  removeService(serviceId: string): void {
    this.services.delete(serviceId);
    this.pipes.delete(serviceId);
    this.rpes.delete(serviceId);
    this.queryEndpoints.delete(serviceId);
  }

  /** A warehouse exists while at least one service is in it. */
  warehouseExists(warehouseId: string): boolean {
    for (const service of this.services.values()) if (service.dataWarehouseId === warehouseId) return true;
    return false;
  }

  findPipe(pipeId: string): PipeRecord | undefined {
    for (const pipes of this.pipes.values()) {
      const pipe = pipes.get(pipeId);
      if (pipe) return pipe;
    }
    return undefined;
  }

  findRpe(rpeId: string): RpeRecord | undefined {
    for (const rpes of this.rpes.values()) {
      const rpe = rpes.get(rpeId);
      if (rpe) return rpe;
    }
    return undefined;
  }

  apiKeyByIdHash(keyIdHash: string): ApiKeyRecord | undefined {
    for (const key of this.apiKeys.values()) if (key.keyIdHash === keyIdHash) return key;
    return undefined;
  }

  private alertingFamilies(): Array<Map<string, unknown>> {
    return [this.webhooks, this.savedSearches, this.dashboards, this.sources, this.connections];
  }

  /** Alerts that notify this webhook. */
  alertsOfWebhook(webhookId: string): AlertRecord[] {
    return [...this.alerts.values()].filter((alert) => alert.channel.webhookId === webhookId);
  }

  clear(): void {
    this.services.clear();
    this.pipes.clear();
    this.rpes.clear();
    this.queryEndpoints.clear();
    this.alerts.clear();
    this.apiKeys.clear();
    for (const family of this.alertingFamilies()) family.clear();
    this.organization = newOrganization();
  }

  snapshot(): Snapshot {
    return {
      version: 1,
      organization: { ...this.organization },
      services: [...this.services.values()],
      pipes: [...this.pipes.values()].flatMap((pipes) => [...pipes.values()]),
      reversePrivateEndpoints: [...this.rpes.values()].flatMap((rpes) => [...rpes.values()]),
      queryEndpoints: [...this.queryEndpoints.values()],
      alerts: [...this.alerts.values()],
      apiKeys: [...this.apiKeys.values()],
      webhooks: [...this.webhooks.values()],
      savedSearches: [...this.savedSearches.values()],
      dashboards: [...this.dashboards.values()],
      sources: [...this.sources.values()],
      connections: [...this.connections.values()],
    };
  }

  restore(snapshot: Snapshot): void {
    this.clear();
    for (const service of snapshot.services) this.services.set(service.id, service);
    for (const pipe of snapshot.pipes) this.addPipe(pipe);
    for (const rpe of snapshot.reversePrivateEndpoints) this.addRpe(rpe);
    for (const endpoint of snapshot.queryEndpoints) this.queryEndpoints.set(endpoint.serviceId, endpoint);
    for (const alert of snapshot.alerts) this.alerts.set(alert.id, alert);
    for (const key of snapshot.apiKeys ?? []) this.apiKeys.set(key.id, key);
    for (const webhook of snapshot.webhooks ?? []) this.webhooks.set(webhook.id, webhook);
    for (const search of snapshot.savedSearches ?? []) this.savedSearches.set(search.id, search);
    for (const dashboard of snapshot.dashboards ?? []) this.dashboards.set(dashboard.id, dashboard);
    for (const source of snapshot.sources ?? []) this.sources.set(source.id, source);
    for (const connection of snapshot.connections ?? []) this.connections.set(connection.id, connection);
    if (snapshot.organization) this.organization = { ...snapshot.organization };
  }
}

const EMPTY: ReadonlyMap<string, never> = new Map<string, never>();
