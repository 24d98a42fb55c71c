/**
 * Valid request bodies and small create-and-wait helpers shared by the contract tests. Bodies are the smallest
 * that the spec accepts plus the fields a test observes; tests spread overrides on top.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { SourceKind } from '../../../src/cloud/schemas/index.ts';
import { eventually, expectData, expectOk } from './api.ts';
import type { ApiClient, Json } from './api.ts';

let counter = 0;
/** Alphanumeric with spaces: valid as a service name. */
export const uniqueName = (prefix = 'svc') => `${prefix} ${++counter} ${process.pid}`;

/** Every secret the tests send contains this marker, so a leak shows up in any serialized reply. */
export const SECRET = 'zzsecretzz';

export const servicePath = (serviceId: string) => `/services/${serviceId}`;
export const pipesPath = (serviceId: string) => `/services/${serviceId}/pipes`;
export const pipePath = (serviceId: string, pipeId: string) => `/services/${serviceId}/pipes/${pipeId}`;
export const rpesPath = (serviceId: string) => `/services/${serviceId}/pipesReversePrivateEndpoints`;
export const queryEndpointPath = (serviceId: string) => `/services/${serviceId}/serviceQueryEndpoint`;

export function serviceBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: uniqueName(), provider: 'aws', region: 'us-east-1', ...overrides };
}

export async function createService(
  api: ApiClient,
  overrides: Record<string, unknown> = {},
): Promise<{ service: Json; password: string }> {
  return expectOk(await api.post('/services', serviceBody(overrides)));
}

export async function getService(api: ApiClient, serviceId: string): Promise<Json> {
  return expectOk(await api.get(servicePath(serviceId)));
}

/** Reads a resource until it is in `state` (or the timeout passes); returns it as read last. */
function untilState(read: () => Promise<Json>, state: string, timeoutMs: number): Promise<Json> {
  return eventually(
    async () => {
      const resource = await read();
      expect(resource.state).toBe(state);
      return resource;
    },
    { timeoutMs },
  );
}

export async function waitServiceState(
  api: ApiClient,
  serviceId: string,
  state: string,
  timeoutMs = 5_000,
): Promise<Json> {
  return untilState(() => getService(api, serviceId), state, timeoutMs);
}

export async function createRunningService(api: ApiClient, overrides: Record<string, unknown> = {}) {
  const { service } = await createService(api, overrides);
  return waitServiceState(api, service.id, 'running');
}

const destination = {
  database: 'default',
  table: 'events',
  managedTable: true,
  columns: [
    { name: 'id', type: 'UInt64' },
    { name: 'payload', type: 'String' },
  ],
  roles: [`role-${SECRET}`],
};
const fieldMappings = [
  { sourceField: 'id', destinationField: 'id' },
  { sourceField: 'payload', destinationField: 'payload' },
];

export const credentials = () => ({ username: `user-${SECRET}`, password: `pw-${SECRET}` });
export const accessKey = () => ({ accessKeyId: `AKIA${SECRET}`, secretKey: `secret-${SECRET}` });

export type PipeKind = SourceKind | 'continuousObjectStorage';

export function sourceOf(kind: PipeKind): Record<string, unknown> {
  switch (kind) {
    case 'kafka':
      return {
        kafka: {
          brokers: 'broker-1:9092,broker-2:9092',
          topics: 'events',
          consumerGroup: 'sluice',
          offset: { timestamp: '2026-01-31T14:05' },
          schemaRegistry: { url: 'https://registry.example.com', credentials: credentials() },
          credentials: credentials(),
        },
        validateSamples: true,
      };
    case 'kinesis':
      return {
        kinesis: {
          streamName: 'events',
          region: 'us-east-1',
          useEnhancedFanOut: false,
          accessKey: accessKey(),
        },
        validateSamples: true,
      };
    case 'objectStorage':
      return {
        objectStorage: {
          url: 'https://bucket.s3.amazonaws.com/data/*.json',
          isContinuous: false,
          accessKey: accessKey(),
        },
      };
    case 'continuousObjectStorage':
      return {
        objectStorage: {
          url: 'https://bucket.s3.amazonaws.com/data/*.json',
          isContinuous: true,
          accessKey: accessKey(),
        },
      };
    case 'postgres':
      return {
        postgres: {
          host: 'db.example.com',
          port: 5432,
          database: 'app',
          settings: { syncIntervalSeconds: 10, publicationName: 'pub' },
          tableMappings: [{ sourceSchemaName: 'public', sourceTable: 'events', targetTable: 'events' }],
          credentials: credentials(),
        },
      };
  }
}

export function pipeBody(
  kind: PipeKind = 'kafka',
  overrides: Record<string, unknown> = {},
): Record<string, Json> {
  return {
    name: `pipe-${randomUUID().slice(0, 8)}`,
    source: sourceOf(kind),
    destination: structuredClone(destination),
    fieldMappings: structuredClone(fieldMappings),
    scaling: { replicas: 1, concurrency: 1, replicaCpuMillicores: 500, replicaMemoryGb: 2 },
    ...overrides,
  };
}

export async function createPipe(
  api: ApiClient,
  serviceId: string,
  kind: PipeKind = 'kafka',
  overrides: Record<string, unknown> = {},
): Promise<Json> {
  return expectOk(await api.post(pipesPath(serviceId), pipeBody(kind, overrides)));
}

export async function getPipe(api: ApiClient, serviceId: string, pipeId: string): Promise<Json> {
  return expectOk(await api.get(pipePath(serviceId, pipeId)));
}

export async function waitPipeState(
  api: ApiClient,
  serviceId: string,
  pipeId: string,
  state: string,
  timeoutMs = 5_000,
): Promise<Json> {
  return untilState(() => getPipe(api, serviceId, pipeId), state, timeoutMs);
}

export function rpeBody(
  type: 'VPC_ENDPOINT_SERVICE' | 'VPC_RESOURCE' | 'MSK_MULTI_VPC' = 'VPC_ENDPOINT_SERVICE',
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const byType = {
    VPC_ENDPOINT_SERVICE: {
      vpcEndpointServiceName: 'com.amazonaws.vpce.us-east-1.vpce-svc-0123456789abcdef0',
    },
    VPC_RESOURCE: {
      vpcResourceConfigurationId: 'rcfg-0123456789abcdef0',
      vpcResourceShareArn: 'arn:aws:ram:us-east-1:123456789012:resource-share/abc',
    },
    MSK_MULTI_VPC: {
      mskClusterArn: 'arn:aws:kafka:us-east-1:123456789012:cluster/demo/abc',
      mskAuthentication: 'SASL_IAM',
    },
  };
  return { description: `endpoint ${type}`, type, ...byType[type], ...overrides };
}

export function alertBody(
  source: 'tile' | 'search' = 'tile',
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const bySource =
    source === 'tile'
      ? { dashboardId: 'dash-1', tileId: 'tile-1' }
      : { savedSearchId: 'search-1', groupBy: 'host' };
  return {
    name: 'errors spike',
    message: 'too many errors',
    threshold: 10,
    interval: '5m',
    source,
    thresholdType: 'above',
    channel: { type: 'webhook', webhookId: 'hook-1' },
    ...bySource,
    ...overrides,
  };
}

export async function createAlert(alerts: ApiClient, body = alertBody()): Promise<Json> {
  return expectData(await alerts.post('/alerts', body));
}
