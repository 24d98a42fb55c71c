import { z } from 'zod';
import type { ManagedObject, SecretUse } from '../../managed/index.ts';
import {
  DESTINATION_ENGINE_TYPES,
  KAFKA_AUTHENTICATIONS,
  KAFKA_FORMATS,
  KAFKA_OFFSET_STRATEGIES,
  KAFKA_TYPES,
  KINESIS_AUTHENTICATIONS,
  KINESIS_FORMATS,
  KINESIS_ITERATOR_TYPES,
  OBJECT_STORAGE_AUTHENTICATIONS,
  OBJECT_STORAGE_COMPRESSIONS,
  OBJECT_STORAGE_FORMATS,
  OBJECT_STORAGE_TYPES,
  PIPE_BOOLEAN_SETTINGS,
  PIPE_SETTING_BOUNDS,
  POSTGRES_AUTHENTICATIONS,
  POSTGRES_REPLICATION_MODES,
  POSTGRES_TABLE_ENGINES,
  POSTGRES_TYPES,
  SCALING_BOUNDS,
  SOURCE_KINDS,
  type SourceKind,
} from '../../cloud/schemas/pipe.ts';
import { LocalObjectReference, managedSpecFields, secretRecordStatusFields } from '../shared/common.ts';
import { fieldPolicySchema, policyFields } from '../shared/field-policy.ts';
import { immutable, presenceFixed, withRules } from '../shared/meta.ts';
import { serviceFields, serviceRules, serviceScopedStatusFields } from '../shared/service-scoped.ts';

// The spec mirrors the pipe creation body of the management API under the same names; credentials never
// appear in it: each credential object is a `…SecretRef` to a Secret whose keys are the API's field names.

const REPLACE = 'cannot change after create; create a new Pipe';
/** Short strings are bounded so the CEL rules that compare them stay within the apiserver's cost budget. */
const text = (description: string, max = 1024) => z.string().min(1).max(max).describe(description);
const list = <T extends z.ZodType>(item: T, description: string, max = 100) =>
  z.array(item).max(max).describe(description);
const secretRef = (keys: string) =>
  LocalObjectReference.describe(`A Secret in this namespace with the keys ${keys}.`);

/**
 * Every field of a source object but its Secret references is fixed once the pipe exists. A `nested` object
 * holds a Secret reference of its own and fixes its other fields itself; here it may only not come or go.
 */
function fixedAtCreate<T extends z.ZodObject>(schema: T, path: string, nested: readonly string[] = []): T {
  const fields = Object.keys(schema.shape).filter((field) => !field.endsWith('SecretRef'));
  return withRules(
    schema,
    ...fields.map((field) =>
      nested.includes(field) ? presenceFixed(field, REPLACE, path) : immutable(field, REPLACE, path),
    ),
  );
}

const MINUTE_TIMESTAMP = '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d$';

const KafkaOffset = withRules(
  z
    .object({
      strategy: z
        .enum(KAFKA_OFFSET_STRATEGIES)
        .optional()
        .describe('Where to start reading: from_beginning, from_latest or from_timestamp.'),
      timestamp: z
        .string()
        .regex(new RegExp(MINUTE_TIMESTAMP))
        .optional()
        .describe('Start time down to the minute, e.g. 2026-01-31T14:05 (no seconds or zone).'),
    })
    .describe('Where a new pipe starts reading the topic.'),
  {
    rule: "has(self.timestamp) == (!has(self.strategy) || self.strategy == 'from_timestamp')",
    message:
      'source.kafka.offset.timestamp is required with strategy from_timestamp and allowed only with it',
    fieldPath: '.timestamp',
  },
);

const KafkaSource = fixedAtCreate(
  z
    .object({
      brokers: text('Bootstrap brokers, comma-separated host:port.', 4096),
      topics: text('Topics to read, comma-separated.', 4096),
      consumerGroup: text('Consumer group id.', 255).optional(),
      type: z.enum(KAFKA_TYPES).optional().describe('Which kind of Kafka the brokers are.'),
      format: z.enum(KAFKA_FORMATS).optional().describe('Message format.'),
      authentication: z.enum(KAFKA_AUTHENTICATIONS).optional().describe('How the pipe authenticates.'),
      iamRole: text('IAM role to assume (IAM_ROLE authentication).').optional(),
      offset: KafkaOffset.optional(),
      exactlyOnce: z.boolean().optional().describe('Exactly-once delivery.'),
      schemaRegistry: fixedAtCreate(
        z
          .object({
            url: z.url().max(2048).describe('Schema registry URL.'),
            caCertificate: text('PEM CA certificate of the registry.', 65_536).optional(),
            credentialsSecretRef: secretRef('username and password').optional(),
          })
          .describe('The schema registry for Avro formats.'),
        'source.kafka.schemaRegistry',
      ).optional(),
      caCertificate: text('PEM CA certificate of the brokers.', 65_536).optional(),
      reversePrivateEndpointIds: list(
        z.uuid().describe('A reverse private endpoint id.'),
        'Reverse private endpoints the pipe reaches the brokers through.',
        10,
      ).optional(),
      reversePrivateEndpointRefs: list(
        LocalObjectReference.describe('A ReversePrivateEndpoint in this namespace.'),
        'ReversePrivateEndpoint objects (in this namespace) the pipe reaches the brokers through, besides reversePrivateEndpointIds; the pipe waits until each is Ready.',
        10,
      ).optional(),
      credentialsSecretRef: secretRef('username and password').optional(),
    })
    .describe('A Kafka (or Kafka-compatible) source.'),
  'source.kafka',
  ['schemaRegistry'],
);

const ObjectStorageSource = fixedAtCreate(
  z
    .object({
      url: text('Object URL; may contain wildcard patterns.', 4096),
      type: z.enum(OBJECT_STORAGE_TYPES).optional().describe('Which object store.'),
      format: z.enum(OBJECT_STORAGE_FORMATS).optional().describe('File format.'),
      compression: z.enum(OBJECT_STORAGE_COMPRESSIONS).optional().describe('File compression.'),
      delimiter: z.string().max(16).optional().describe('Field delimiter for delimited formats.'),
      isContinuous: z
        .boolean()
        .optional()
        .describe('Keep ingesting new objects; without it the pipe ends Completed.'),
      authentication: z
        .enum(OBJECT_STORAGE_AUTHENTICATIONS)
        .optional()
        .describe('How the pipe authenticates.'),
      skipInitialLoad: z.boolean().optional().describe('Ingest only objects added after the pipe starts.'),
      startAfter: text('Ingest only objects whose key sorts after this one.').optional(),
      queueUrl: text('Notification queue URL for continuous ingest.', 2048).optional(),
      iamRole: text('IAM role to assume (IAM_ROLE authentication).').optional(),
      path: text('Path within the container; may contain wildcard patterns.', 4096).optional(),
      azureContainerName: text('Azure container name.', 255).optional(),
      accessKeySecretRef: secretRef('accessKeyId and secretKey').optional(),
      connectionStringSecretRef: secretRef('connectionString').optional(),
    })
    .describe('An object-storage source (S3, GCS, Azure Blob Storage).'),
  'source.objectStorage',
);

const KinesisSource = fixedAtCreate(
  z
    .object({
      streamName: text('Stream name.', 255),
      region: text('Stream region.', 64),
      format: z.enum(KINESIS_FORMATS).optional().describe('Record format.'),
      iteratorType: z.enum(KINESIS_ITERATOR_TYPES).optional().describe('Where to start reading.'),
      timestamp: z.number().optional().describe('Start time for AT_TIMESTAMP.'),
      useEnhancedFanOut: z.boolean().optional().describe('Use enhanced fan-out consumers.'),
      authentication: z.enum(KINESIS_AUTHENTICATIONS).optional().describe('How the pipe authenticates.'),
      iamRole: text('IAM role to assume (IAM_ROLE authentication).').optional(),
      accessKeySecretRef: secretRef('accessKeyId and secretKey').optional(),
    })
    .describe('A Kinesis source.'),
  'source.kinesis',
);

const positive = (description: string) => z.number().int().min(1).optional().describe(description);
const PostgresSource = fixedAtCreate(
  z
    .object({
      host: text('Database host.', 253),
      port: z.number().int().min(1).max(65_535).describe('Database port.'),
      database: text('Database name.', 255),
      type: z.enum(POSTGRES_TYPES).optional().describe('Which Postgres offering.'),
      authentication: z.enum(POSTGRES_AUTHENTICATIONS).optional().describe('How the pipe authenticates.'),
      tlsHost: text('Host name to verify the TLS certificate against.', 253).optional(),
      caCertificate: text('PEM CA certificate of the database.', 65_536).optional(),
      settings: z
        .object({
          replicationMode: z
            .enum(POSTGRES_REPLICATION_MODES)
            .optional()
            .describe('cdc, snapshot or cdc_only.'),
          syncIntervalSeconds: positive('Seconds between syncs.'),
          pullBatchSize: positive('Rows per pull.'),
          initialLoadParallelism: positive('Parallel workers of the initial load.'),
          snapshotNumRowsPerPartition: positive('Rows per snapshot partition.'),
          snapshotNumberOfParallelTables: positive('Tables snapshotted in parallel.'),
          publicationName: text('Publication to use.', 255).optional(),
          replicationSlotName: text('Replication slot to use.', 255).optional(),
          allowNullableColumns: z.boolean().optional().describe('Allow nullable columns.'),
          enableFailoverSlots: z.boolean().optional().describe('Use failover replication slots.'),
        })
        .optional()
        .describe('Replication settings.'),
      tableMappings: list(
        z
          .object({
            sourceSchemaName: text('Source schema.', 255),
            sourceTable: text('Source table.', 255),
            targetTable: text('Destination table.', 255),
            excludedColumns: list(text('A column.', 255), 'Columns not replicated.').optional(),
            useCustomSortingKey: z.boolean().optional().describe('Use sortingKeys as the sorting key.'),
            sortingKeys: list(text('A column.', 255), 'Sorting key columns.').optional(),
            tableEngine: z.enum(POSTGRES_TABLE_ENGINES).optional().describe('Destination table engine.'),
          })
          .describe('One replicated table.'),
        'Tables to replicate.',
        500,
      ).optional(),
      credentialsSecretRef: secretRef('username and password').optional(),
    })
    .describe('A Postgres source (change data capture).'),
  'source.postgres',
);

const PipeSourceSpec = withRules(
  z
    .object({
      kafka: KafkaSource.optional(),
      objectStorage: ObjectStorageSource.optional(),
      kinesis: KinesisSource.optional(),
      postgres: PostgresSource.optional(),
      validateSamples: z.boolean().optional().describe('Validate sample records when the pipe is created.'),
    })
    .describe(`Where the data comes from: exactly one of ${SOURCE_KINDS.join(', ')}.`),
  {
    rule: `[${SOURCE_KINDS.map((kind) => `has(self.${kind})`).join(', ')}].filter(x, x).size() == 1`,
    message: `source must name exactly one of ${SOURCE_KINDS.join(', ')}`,
  },
  ...SOURCE_KINDS.map((kind) => presenceFixed(kind, REPLACE, 'source')),
);

/** In CEL: column `c` is the destinationField of a field mapping. */
const MAPPED = 'has(self.fieldMappings) && self.fieldMappings.exists(m, m.destinationField == c.name)';
// Bounded so the CEL rule matching columns to mappings stays within the apiserver's cost budget.
const MAX_COLUMNS = 200;
const Destination = withRules(
  z
    .object({
      database: text('Destination database.', 255),
      table: text('Destination table (not for postgres sources: tableMappings name them).', 255).optional(),
      managedTable: z.boolean().optional().describe('Let the pipe create and own the table.'),
      tableDefinition: z
        .object({
          engine: z
            .object({
              type: z.enum(DESTINATION_ENGINE_TYPES).optional().describe('Table engine.'),
              versionColumnId: text('Version column (ReplacingMergeTree).', 255).optional(),
              columnIds: list(text('A column.', 255), 'Engine columns.').optional(),
            })
            .optional()
            .describe('Engine of a managed table.'),
          sortingKey: list(text('A column.', 255), 'Sorting key columns.').optional(),
          partitionBy: text('Partitioning expression.').optional(),
          primaryKey: text('Primary key expression.').optional(),
        })
        .optional()
        .describe('Definition of a managed table.'),
      columns: list(
        z
          .object({
            name: text('Column name.', 255),
            type: text('Column type.', 255),
          })
          .describe('A destination column.'),
        'Destination columns; each must be fed by a fieldMappings entry.',
        MAX_COLUMNS,
      ).optional(),
      roles: list(text('A role name.', 255), 'Database roles granted on the table.').optional(),
    })
    .describe('The table the data goes to.'),
  ...['database', 'table', 'managedTable', 'tableDefinition', 'roles'].map((field) =>
    immutable(field, REPLACE, 'destination'),
  ),
);

const settingsShape = {
  ...Object.fromEntries(
    Object.entries(PIPE_SETTING_BOUNDS).map(([key, { min, max }]) => [
      key,
      z.number().int().min(min).max(max).optional().describe(`${key}: ${min}..${max}.`),
    ]),
  ),
  ...Object.fromEntries(PIPE_BOOLEAN_SETTINGS.map((key) => [key, z.boolean().optional().describe(key)])),
};

const SETTING_KEY_LIST = `[${Object.keys(settingsShape)
  .map((key) => `'${key}'`)
  .join(', ')}]`;
/** Bounded so the CEL rules that walk the maps stay within the apiserver's cost budget. */
const MAX_EXTRA_SETTINGS = 32;
export const EXTRA_SETTING_TYPES = ['booleans', 'numbers', 'strings'] as const;

/** One map of extra settings whose values all have one JSON type; none of its keys is a key of `settings`. */
const extraSettingsOf = <T extends z.ZodType>(value: T, type: string) =>
  withRules(
    z
      .record(z.string(), value)
      .meta({ maxProperties: MAX_EXTRA_SETTINGS })
      .optional()
      .describe(`Settings whose values are ${type}s, by key; at most ${MAX_EXTRA_SETTINGS}.`),
    {
      rule: `self.all(k, !(k in ${SETTING_KEY_LIST}))`,
      message: `spec.extraSettings.${type}s cannot hold a key of settings: set it there`,
      messageExpression: `'spec.extraSettings.${type}s.' + self.filter(k, k in ${SETTING_KEY_LIST})[0] + ' is a key of settings: set it there'`,
    },
  );

/** A key in two of the maps would leave its value ambiguous. */
const disjoint = (a: string, b: string) => ({
  rule: `!has(self.${a}) || !has(self.${b}) || self.${a}.all(k, !(k in self.${b}))`,
  message: `spec.extraSettings: a key may appear in only one of ${a} and ${b}`,
});

/**
 * Setting keys beyond the contract's twelve, which the cloud takes as open key–value pairs. A structural
 * schema cannot give `settings` both its bounded keys and open ones, and CEL cannot check the type of an
 * untyped value, so the open keys live in this sibling field, one typed map per JSON type.
 */
const ExtraSettings = withRules(
  z
    .object({
      booleans: extraSettingsOf(z.boolean().describe('A boolean value.'), 'boolean'),
      numbers: extraSettingsOf(z.number().describe('A number (integer or fractional).'), 'number'),
      strings: extraSettingsOf(z.string().max(4096).describe('A string value.'), 'string'),
    })
    .describe(
      'Pipe settings beyond those of settings (e.g. booleans: {kafka_read_committed: true}), by the type of their value. A key left out keeps (or returns to) the service default.',
    ),
  disjoint('booleans', 'numbers'),
  disjoint('booleans', 'strings'),
  disjoint('numbers', 'strings'),
);

const Scaling = z
  .object({
    replicas: z
      .number()
      .int()
      .min(SCALING_BOUNDS.replicas.min)
      .max(SCALING_BOUNDS.replicas.max)
      .optional()
      .describe(`Replicas, ${SCALING_BOUNDS.replicas.min}..${SCALING_BOUNDS.replicas.max}.`),
    concurrency: z.number().int().min(1).optional().describe('Consumers per replica.'),
    replicaCpuMillicores: z
      .number()
      .int()
      .min(SCALING_BOUNDS.replicaCpuMillicores.min)
      .max(SCALING_BOUNDS.replicaCpuMillicores.max)
      .optional()
      .describe(
        `CPU per replica in millicores, ${SCALING_BOUNDS.replicaCpuMillicores.min}..${SCALING_BOUNDS.replicaCpuMillicores.max}.`,
      ),
    replicaMemoryGb: z
      .number()
      .min(SCALING_BOUNDS.replicaMemoryGb.min)
      .max(SCALING_BOUNDS.replicaMemoryGb.max)
      .optional()
      .describe(
        `Memory per replica in GiB, ${SCALING_BOUNDS.replicaMemoryGb.min}..${SCALING_BOUNDS.replicaMemoryGb.max}.`,
      ),
  })
  .describe('Replicas and their size.');

/** The fields of one destination table, which a postgres pipe takes from each of its tableMappings instead. */
const POSTGRES_FREE_DESTINATION_FIELDS = ['table', 'managedTable', 'tableDefinition', 'columns'];

export const DESIRED_PIPE_STATES = ['Running', 'Stopped'] as const;

const PipeFields = z.object({
  ...serviceFields('the pipe writes to'),
  name: text('The pipe name in the cloud.', 255),
  source: PipeSourceSpec,
  destination: Destination,
  fieldMappings: list(
    z
      .object({
        sourceField: text('Field in the source records.', 255),
        destinationField: text('Destination column.', 255),
      })
      .describe('Feeds one destination column from one source field.'),
    'Which source field feeds which destination column.',
    MAX_COLUMNS,
  ).optional(),
  scaling: Scaling.optional(),
  settings: z
    .object(settingsShape)
    .optional()
    .describe(
      'Pipe settings; a key left out keeps (or returns to) the service default. Other keys: extraSettings.',
    ),
  extraSettings: ExtraSettings.optional(),
  state: z
    .enum(DESIRED_PIPE_STATES)
    .default('Running')
    .describe('Desired state: Running or Stopped. Defaults to Running.'),
  ...managedSpecFields('Delete'),
});

/** The fields a field policy may name, those the cloud fixes at creation and the shared lists. */
export const PIPE_POLICY = policyFields(PipeFields, {
  // Only the columns of the destination change in place (with the mappings).
  fixed: ['serviceRef', 'serviceId', 'source', 'destination'],
  except: ['destination.columns'],
});

export const PipeSpec = withRules(
  PipeFields.extend({ fieldPolicy: fieldPolicySchema('Pipe', PIPE_POLICY) }).describe('The desired pipe.'),
  ...serviceRules(REPLACE),
  {
    rule: 'has(self.source.postgres) || has(self.destination.table)',
    message: 'destination.table is required unless the source is postgres',
    fieldPath: '.destination.table',
  },
  {
    rule: `!has(self.source.postgres) || !(${POSTGRES_FREE_DESTINATION_FIELDS.map((field) => `has(self.destination.${field})`).join(' || ')})`,
    message: `destination of a postgres pipe names only database: source.postgres.tableMappings name the tables (no ${POSTGRES_FREE_DESTINATION_FIELDS.join(', ')})`,
    fieldPath: '.destination',
  },
  {
    rule: `!has(self.destination.columns) || self.destination.columns.all(c, ${MAPPED})`,
    message: 'fieldMappings must cover every destination.columns[].name (as a destinationField)',
    // The first column missing: a list of them all would cost more than the apiserver allows.
    messageExpression: `'fieldMappings must cover every destination column; missing: ' + self.destination.columns.filter(c, !(${MAPPED}))[0].name`,
    fieldPath: '.fieldMappings',
  },
);
export type PipeSpec = z.infer<typeof PipeSpec>;

export const PipeStatus = z
  .object({
    ...serviceScopedStatusFields('the pipe belongs to'),
    source: z
      .string()
      .max(32)
      .optional()
      .describe('The source kind: kafka, objectStorage, kinesis or postgres.'),
    state: z.string().max(64).optional().describe("The pipe's state as the cloud reports it (e.g. Running)."),
    scaling: z
      .object({
        replicas: z.number().int().optional().describe('Replicas.'),
        concurrency: z.number().int().optional().describe('Consumers per replica.'),
        replicaCpuMillicores: z.number().int().optional().describe('CPU per replica in millicores.'),
        replicaMemoryGb: z.number().optional().describe('Memory per replica in GiB.'),
      })
      .optional()
      .describe('Scaling as the cloud reports it.'),
    settings: z
      .object(settingsShape)
      .optional()
      .describe('The settings the cloud reports as set (keys at their default are left out).'),
    extraSettings: z
      .record(
        z.string(),
        z.unknown().meta({ 'x-kubernetes-preserve-unknown-fields': true, description: 'A setting value.' }),
      )
      .optional()
      .describe('The settings outside settings that the cloud reports as set, whoever set them.'),
    extraSettingKeys: list(
      z.string().max(255).describe('A setting key.'),
      'The extraSettings keys this Pipe manages: a key dropped from the spec stays here until the cloud has reset it (keys set in the cloud by others are left alone).',
      1000,
    ).optional(),
    reversePrivateEndpoints: list(
      z
        .object({
          id: z.string().max(64).describe('Endpoint id.'),
          status: z.string().max(64).optional().describe('Provisioning, PendingAcceptance, Ready, …'),
          dnsNames: list(z.string().max(253).describe('A DNS name.'), 'DNS names.').optional(),
          privateDnsNames: list(z.string().max(253).describe('A DNS name.'), 'Private DNS names.').optional(),
        })
        .describe('A reverse private endpoint the kafka source uses.'),
      'The reverse private endpoints of source.kafka (by id and by reference), as the cloud reports them.',
      10,
    ).optional(),
    ...secretRecordStatusFields,
  })
  .describe('What sluice last observed in the cloud.');
export type PipeStatus = z.infer<typeof PipeStatus>;

/** A Pipe object as the operator reads it. */
export interface Pipe extends ManagedObject {
  spec: PipeSpec & { serviceRef?: { name: string }; serviceId?: string };
  status?: PipeStatus;
}

/** One `…SecretRef` of the Pipe spec and the request field its Secret's keys become. */
export interface CredentialField {
  source: SourceKind;
  /** Where the reference sits under `source.<kind>`. */
  ref: readonly string[];
  /** Where the values go under `source.<kind>` in a request. */
  target: readonly string[];
  keys: readonly string[];
  /** A one-key Secret whose value is the field itself (a connection string), not an object. */
  scalar?: boolean;
  /** Whether the PATCH operation can replace it (api-behaviour.md lists which). */
  rotatable: boolean;
}

export const CREDENTIAL_FIELDS: readonly CredentialField[] = [
  { source: 'kafka', ref: ['credentialsSecretRef'], target: ['credentials'], keys: ['username', 'password'], rotatable: true },
  { source: 'kafka', ref: ['schemaRegistry', 'credentialsSecretRef'], target: ['schemaRegistry', 'credentials'], keys: ['username', 'password'], rotatable: true },
  { source: 'objectStorage', ref: ['accessKeySecretRef'], target: ['accessKey'], keys: ['accessKeyId', 'secretKey'], rotatable: true },
  { source: 'objectStorage', ref: ['connectionStringSecretRef'], target: ['connectionString'], keys: ['connectionString'], scalar: true, rotatable: false },
  { source: 'kinesis', ref: ['accessKeySecretRef'], target: ['accessKey'], keys: ['accessKeyId', 'secretKey'], rotatable: true },
  { source: 'postgres', ref: ['credentialsSecretRef'], target: ['credentials'], keys: ['username', 'password'], rotatable: true },
]; // prettier-ignore

export const fieldName = (field: CredentialField) => ['source', field.source, ...field.ref].join('.');

/** The Secrets a Pipe spec references, with the keys each must hold. */
export function pipeSecretUses(spec: PipeSpec): SecretUse[] {
  const uses: SecretUse[] = [];
  for (const field of CREDENTIAL_FIELDS) {
    const ref = readPath(spec.source[field.source], field.ref) as { name: string } | undefined;
    if (!ref) continue;
    const use: SecretUse = { field: fieldName(field), secretName: ref.name, keys: field.keys };
    // When sluice cannot tell whether the values changed, it must not send what the PATCH cannot carry.
    uses.push(field.rotatable ? use : { ...use, replaceable: false });
  }
  return uses;
}

/** The value at `path` under `value`, if any. */
export function readPath(value: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], value);
}
