import type { PipeCreateBody } from '../../../src/cloud/management-client.ts';

/** Pipe manifests of each source kind, for the operator tests (and their columns, for the diff unit tests). */
export const PIPES = '/v1/organizations/:organizationId/services/:serviceId/pipes';
export const PIPE = `${PIPES}/:pipeId`;

export const columns = [
  { name: 'id', type: 'UInt64' },
  { name: 'payload', type: 'String' },
];
export const mappings = [
  { sourceField: 'id', destinationField: 'id' },
  { sourceField: 'payload', destinationField: 'payload' },
];

export function kafkaPipe(
  name: string,
  options: { service?: string; credentialsSecret?: string; settings?: Record<string, unknown> } = {},
) {
  return {
    serviceRef: { name: options.service ?? 'analytics' },
    name,
    source: {
      kafka: {
        brokers: 'broker-1.example.com:9092',
        topics: 'orders',
        format: 'JSONEachRow',
        authentication: 'PLAIN',
        offset: { strategy: 'from_beginning' },
        credentialsSecretRef: { name: options.credentialsSecret ?? 'kafka-user' },
      },
    },
    destination: { database: 'default', table: name.replace(/\W/g, '_'), managedTable: true, columns },
    fieldMappings: mappings,
    ...(options.settings ? { settings: options.settings } : {}),
  };
}

export const objectStoragePipe = (name: string) => ({
  serviceRef: { name: 'analytics' },
  name,
  source: {
    objectStorage: {
      url: 'https://bucket.s3.amazonaws.com/events/*.json',
      type: 's3',
      format: 'JSONEachRow',
      authentication: 'IAM_USER',
      accessKeySecretRef: { name: 's3-key' },
    },
  },
  destination: { database: 'default', table: name, managedTable: true, columns },
  fieldMappings: mappings,
});

export const kinesisPipe = (name: string) => ({
  serviceRef: { name: 'analytics' },
  name,
  source: {
    kinesis: {
      streamName: 'clicks',
      region: 'us-east-1',
      format: 'JSONEachRow',
      iteratorType: 'TRIM_HORIZON',
      authentication: 'IAM_USER',
      accessKeySecretRef: { name: 's3-key' },
    },
  },
  destination: { database: 'default', table: name, managedTable: true, columns },
  fieldMappings: mappings,
});

export const postgresPipe = (name: string) => ({
  serviceRef: { name: 'analytics' },
  name,
  source: {
    postgres: {
      host: 'db.example.com',
      port: 5432,
      database: 'shop',
      type: 'postgres',
      settings: { replicationMode: 'cdc' },
      tableMappings: [{ sourceSchemaName: 'public', sourceTable: 'orders', targetTable: 'orders' }],
      credentialsSecretRef: { name: 'pg-user' },
    },
  },
  destination: { database: 'default' },
});

/** The create body of someone else's pipe with the same name and table as `spec` (sent outside sluice). */
export function lookAlikeBody(spec: ReturnType<typeof kafkaPipe>): PipeCreateBody {
  const { credentialsSecretRef: _ref, ...kafka } = spec.source.kafka;
  return {
    name: spec.name,
    source: { kafka },
    destination: spec.destination,
    fieldMappings: spec.fieldMappings,
  } as PipeCreateBody;
}
