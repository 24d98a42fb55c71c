import { z } from 'zod';
import { NonEmptyString } from './common.ts';

export const PIPE_STATES = [
  'Provisioning', 'Running', 'Stopping', 'Stopped', 'Failed', 'Completed', 'Setup', 'Snapshot', 'Paused',
  'Modifying', 'InternalError', 'Unknown', 'Degraded', 'Pausing',
] as const; // prettier-ignore
export type PipeState = (typeof PIPE_STATES)[number];
export const SOURCE_KINDS = ['kafka', 'objectStorage', 'kinesis', 'postgres'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/*
 * Enums of the real API's source and destination fields (api-behaviour.md, "What the real API also takes").
 * Where that list ends with "…" (object storage formats, postgres types) the values the real API's own
 * OpenAPI description also lists are added: JSONAsObject, TabSeparated, TabSeparatedWithNames; planetscale,
 * crunchybridge, tigerdata.
 */
export const KAFKA_TYPES = [
  'kafka', 'redpanda', 'confluent', 'msk', 'warpstream', 'azureeventhub', 'gcmk',
] as const; // prettier-ignore
export const KAFKA_FORMATS = ['JSONEachRow', 'Avro', 'AvroConfluent'] as const;
export const KAFKA_AUTHENTICATIONS = [
  'PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'IAM_ROLE', 'IAM_USER', 'MUTUAL_TLS',
] as const; // prettier-ignore
export const KAFKA_OFFSET_STRATEGIES = ['from_beginning', 'from_latest', 'from_timestamp'] as const;
export const OBJECT_STORAGE_TYPES = ['s3', 'gcs', 'azureblobstorage'] as const;
export const OBJECT_STORAGE_FORMATS = [
  'JSONEachRow', 'JSONAsObject', 'CSV', 'CSVWithNames', 'TabSeparated', 'TabSeparatedWithNames', 'Parquet', 'Avro',
] as const; // prettier-ignore
export const OBJECT_STORAGE_AUTHENTICATIONS = ['IAM_ROLE', 'IAM_USER', 'CONNECTION_STRING'] as const;
export const OBJECT_STORAGE_COMPRESSIONS = [
  'none', 'auto', 'gzip', 'brotli', 'br', 'xz', 'LZMA', 'zstd',
] as const; // prettier-ignore
export const KINESIS_FORMATS = ['JSONEachRow', 'Avro', 'AvroConfluent'] as const;
export const KINESIS_ITERATOR_TYPES = ['TRIM_HORIZON', 'LATEST', 'AT_TIMESTAMP'] as const;
export const KINESIS_AUTHENTICATIONS = ['IAM_ROLE', 'IAM_USER'] as const;
export const POSTGRES_TYPES = [
  'postgres', 'supabase', 'neon', 'alloydb', 'planetscale', 'rdspostgres', 'aurorapostgres', 'cloudsqlpostgres',
  'azurepostgres', 'crunchybridge', 'tigerdata',
] as const; // prettier-ignore
export const POSTGRES_AUTHENTICATIONS = ['basic', 'IAM_ROLE'] as const;
export const POSTGRES_REPLICATION_MODES = ['cdc', 'snapshot', 'cdc_only'] as const;
export const POSTGRES_TABLE_ENGINES = ['MergeTree', 'ReplacingMergeTree', 'Null'] as const;
export const DESTINATION_ENGINE_TYPES = [
  'MergeTree',
  'ReplacingMergeTree',
  'SummingMergeTree',
  'Null',
] as const;

/** Inclusive bounds of every pipe setting; `kind: 'boolean'` ones take true/false. All accept null (reset). */
export const PIPE_SETTING_BOUNDS = {
  streaming_max_insert_wait_ms: { min: 500, max: 60_000 },
  object_storage_concurrency: { min: 1, max: 35 },
  object_storage_polling_interval_ms: { min: 100, max: 3_600_000 },
  object_storage_max_insert_bytes: { min: 10_485_760, max: 53_687_091_200 },
  object_storage_max_file_count: { min: 1, max: 10_000 },
  engine_max_threads: { min: 0, max: 64 },
  engine_max_insert_threads: { min: 0, max: 16 },
  engine_min_insert_block_size_bytes: { min: 0, max: 10_737_418_240 },
  engine_max_download_threads: { min: 0, max: 32 },
  engine_parallel_distributed_insert_select: { min: 0, max: 2 },
} as const;
export const PIPE_BOOLEAN_SETTINGS = [
  'object_storage_use_cluster_function',
  'engine_parallel_view_processing',
] as const;

const integerSettings = Object.fromEntries(
  Object.entries(PIPE_SETTING_BOUNDS).map(([key, { min, max }]) => [
    key,
    z.number().int().min(min).max(max).nullable().optional(),
  ]),
) as { [K in keyof typeof PIPE_SETTING_BOUNDS]: z.ZodOptional<z.ZodNullable<z.ZodNumber>> };
const booleanSettings = Object.fromEntries(
  PIPE_BOOLEAN_SETTINGS.map((key) => [key, z.boolean().nullable().optional()]),
) as { [K in (typeof PIPE_BOOLEAN_SETTINGS)[number]]: z.ZodOptional<z.ZodNullable<z.ZodBoolean>> };

const knownSettings = { ...integerSettings, ...booleanSettings };

/**
 * Pipe settings: every key optional; null resets a key to the service default. The contract's keys keep their
 * bounds; the real API also takes other keys with a string, number or boolean value (e.g. `kafka_read_committed`).
 */
export const PipeSettings = z
  .object(knownSettings)
  .catchall(z.union([z.string(), z.number(), z.boolean()]).nullable());
export type PipeSettings = z.infer<typeof PipeSettings>;
export type PipeSettingKey = keyof typeof knownSettings;
export const PIPE_SETTING_KEYS = Object.keys(knownSettings) as PipeSettingKey[];

/** Operation 7 body: a merge, so an empty object would change nothing and is refused. */
export const PipeSettingsRequest = PipeSettings.refine((body) => Object.keys(body).length > 0, {
  error: 'settings must set at least one key',
});

export const Credentials = z.strictObject({ username: NonEmptyString, password: NonEmptyString });
export const AccessKey = z.strictObject({ accessKeyId: NonEmptyString, secretKey: NonEmptyString });

/** `offset.timestamp`: date and time down to the minute, no seconds or zone (e.g. 2026-01-31T14:05). */
const MINUTE_TIMESTAMP = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d$/;

/**
 * Where a kafka pipe starts reading. The contract's shape is `{timestamp}`; the real API adds `strategy`, and
 * a timestamp belongs exactly to `from_timestamp` (and to the strategy-less contract shape).
 */
export const KafkaOffset = z
  .strictObject({
    strategy: z.enum(KAFKA_OFFSET_STRATEGIES).optional(),
    timestamp: z
      .string()
      .regex(MINUTE_TIMESTAMP, { error: 'must look like 2026-01-31T14:05 (no seconds or zone)' })
      .optional(),
  })
  .superRefine((offset, ctx) => {
    const wantsTimestamp = offset.strategy === undefined || offset.strategy === 'from_timestamp';
    if (wantsTimestamp && offset.timestamp === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['timestamp'],
        message: offset.strategy ? 'is required with strategy from_timestamp' : 'is required',
      });
    } else if (!wantsTimestamp && offset.timestamp !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['timestamp'],
        message: 'is allowed only with strategy from_timestamp',
      });
    }
  });

export const KafkaSource = z.strictObject({
  brokers: NonEmptyString,
  topics: NonEmptyString,
  consumerGroup: NonEmptyString.optional(),
  iamRole: NonEmptyString.optional(),
  type: z.enum(KAFKA_TYPES).optional(),
  format: z.enum(KAFKA_FORMATS).optional(),
  authentication: z.enum(KAFKA_AUTHENTICATIONS).optional(),
  offset: KafkaOffset.optional(),
  exactlyOnce: z.boolean().optional(),
  schemaRegistry: z
    .strictObject({
      url: z.url(),
      caCertificate: NonEmptyString.optional(),
      credentials: Credentials.optional(),
    })
    .optional(),
  caCertificate: NonEmptyString.optional(),
  reversePrivateEndpointIds: z.array(z.uuid()).optional(),
  credentials: Credentials.optional(),
});

export const ObjectStorageSource = z.strictObject({
  url: NonEmptyString,
  delimiter: z.string().optional(),
  compression: z.enum(OBJECT_STORAGE_COMPRESSIONS).optional(),
  isContinuous: z.boolean().optional(),
  type: z.enum(OBJECT_STORAGE_TYPES).optional(),
  format: z.enum(OBJECT_STORAGE_FORMATS).optional(),
  authentication: z.enum(OBJECT_STORAGE_AUTHENTICATIONS).optional(),
  skipInitialLoad: z.boolean().optional(),
  startAfter: NonEmptyString.optional(),
  queueUrl: NonEmptyString.optional(),
  iamRole: NonEmptyString.optional(),
  connectionString: NonEmptyString.optional(),
  path: NonEmptyString.optional(),
  azureContainerName: NonEmptyString.optional(),
  accessKey: AccessKey.optional(),
});

export const KinesisSource = z.strictObject({
  streamName: NonEmptyString,
  region: NonEmptyString,
  useEnhancedFanOut: z.boolean().optional(),
  timestamp: z.number().optional(),
  format: z.enum(KINESIS_FORMATS).optional(),
  iteratorType: z.enum(KINESIS_ITERATOR_TYPES).optional(),
  authentication: z.enum(KINESIS_AUTHENTICATIONS).optional(),
  iamRole: NonEmptyString.optional(),
  accessKey: AccessKey.optional(),
});

export const PostgresTableMapping = z.strictObject({
  sourceSchemaName: NonEmptyString,
  sourceTable: NonEmptyString,
  targetTable: NonEmptyString,
  excludedColumns: z.array(NonEmptyString).optional(),
  useCustomSortingKey: z.boolean().optional(),
  sortingKeys: z.array(NonEmptyString).optional(),
  tableEngine: z.enum(POSTGRES_TABLE_ENGINES).optional(),
});

export const PostgresSource = z.strictObject({
  host: NonEmptyString,
  port: z.number().int().min(1).max(65_535),
  database: NonEmptyString,
  type: z.enum(POSTGRES_TYPES).optional(),
  authentication: z.enum(POSTGRES_AUTHENTICATIONS).optional(),
  tlsHost: NonEmptyString.optional(),
  caCertificate: NonEmptyString.optional(),
  settings: z
    .strictObject({
      replicationMode: z.enum(POSTGRES_REPLICATION_MODES).optional(),
      syncIntervalSeconds: z.number().int().min(1).optional(),
      pullBatchSize: z.number().int().min(1).optional(),
      initialLoadParallelism: z.number().int().min(1).optional(),
      snapshotNumRowsPerPartition: z.number().int().min(1).optional(),
      snapshotNumberOfParallelTables: z.number().int().min(1).optional(),
      publicationName: NonEmptyString.optional(),
      replicationSlotName: NonEmptyString.optional(),
      allowNullableColumns: z.boolean().optional(),
      enableFailoverSlots: z.boolean().optional(),
    })
    .optional(),
  tableMappings: z.array(PostgresTableMapping).optional(),
  credentials: Credentials.optional(),
});

export const PipeSource = z
  .strictObject({
    kafka: KafkaSource.optional(),
    objectStorage: ObjectStorageSource.optional(),
    kinesis: KinesisSource.optional(),
    postgres: PostgresSource.optional(),
    validateSamples: z.boolean().optional(),
  })
  .superRefine((source, ctx) => {
    const kinds = SOURCE_KINDS.filter((kind) => source[kind] !== undefined);
    if (kinds.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `must name exactly one of ${SOURCE_KINDS.join(', ')} (got ${kinds.length ? kinds.join(', ') : 'none'})`,
      });
    }
  });
export type PipeSource = z.infer<typeof PipeSource>;

export const Column = z.strictObject({ name: NonEmptyString, type: NonEmptyString });
export const FieldMapping = z.strictObject({ sourceField: NonEmptyString, destinationField: NonEmptyString });
export type FieldMapping = z.infer<typeof FieldMapping>;

/** `table` is required except for a postgres pipe, whose tables come from `source.postgres.tableMappings`. */
export const Destination = z.strictObject({
  database: NonEmptyString,
  table: NonEmptyString.optional(),
  managedTable: z.boolean().optional(),
  tableDefinition: z
    .strictObject({
      engine: z
        .strictObject({
          type: z.enum(DESTINATION_ENGINE_TYPES).optional(),
          versionColumnId: NonEmptyString.optional(),
          columnIds: z.array(NonEmptyString).optional(),
        })
        .optional(),
      sortingKey: z.array(NonEmptyString).optional(),
      partitionBy: NonEmptyString.optional(),
      primaryKey: NonEmptyString.optional(),
    })
    .optional(),
  columns: z.array(Column).optional(),
  roles: z.array(NonEmptyString).optional(),
});

/** Scaling bounds of the real service (the contract leaves them open). */
export const SCALING_BOUNDS = {
  replicas: { min: 1, max: 40 },
  replicaCpuMillicores: { min: 125, max: 2000 },
  replicaMemoryGb: { min: 0.5, max: 8 },
} as const;
/** The scaling a pipe gets when its create leaves `scaling` (or a key of it) out. */
export const PIPE_SCALING_DEFAULTS = {
  replicas: 1,
  concurrency: 1,
  replicaCpuMillicores: 125,
  replicaMemoryGb: 0.5,
} as const;
export const PipeScaling = z.strictObject({
  replicas: z.number().int().min(SCALING_BOUNDS.replicas.min).max(SCALING_BOUNDS.replicas.max).optional(),
  concurrency: z.number().int().min(1).optional(),
  replicaCpuMillicores: z
    .number()
    .int()
    .min(SCALING_BOUNDS.replicaCpuMillicores.min)
    .max(SCALING_BOUNDS.replicaCpuMillicores.max)
    .optional(),
  replicaMemoryGb: z
    .number()
    .min(SCALING_BOUNDS.replicaMemoryGb.min)
    .max(SCALING_BOUNDS.replicaMemoryGb.max)
    .optional(),
});

/** PATCH pipe scaling (extension): replicas and their size, with the bounds of `scaling`; at least one key. */
export const PipeScalingRequest = PipeScaling.omit({ concurrency: true }).refine(
  (body) => Object.keys(body).length > 0,
  {
    error: 'scaling must set at least one key',
  },
);
export type PipeScalingRequest = z.infer<typeof PipeScalingRequest>;

/** The contract's rule: every destination column must be fed by a field mapping. Returns the unfed ones. */
export function unmappedColumns(
  columns: ReadonlyArray<{ name: string }> | undefined,
  mappings: ReadonlyArray<FieldMapping> | undefined,
): string[] {
  const mapped = new Set((mappings ?? []).map((m) => m.destinationField));
  return (columns ?? []).filter((column) => !mapped.has(column.name)).map((column) => column.name);
}

export const unmappedColumnsMessage = (missing: string[]) =>
  `must cover every destination column; missing: ${missing.join(', ')}`;

/** Operation 4 body. */
export const PipeCreateRequest = z
  .strictObject({
    name: z.string().min(1).max(255),
    source: PipeSource,
    destination: Destination,
    fieldMappings: z.array(FieldMapping).optional(),
    scaling: PipeScaling.optional(),
    settings: PipeSettings.optional(),
  })
  .superRefine((body, ctx) => {
    if (body.source.postgres === undefined && body.destination.table === undefined) {
      ctx.addIssue({ code: 'custom', path: ['destination', 'table'], message: 'is required' });
    }
    const missing = unmappedColumns(body.destination.columns, body.fieldMappings);
    if (missing.length)
      ctx.addIssue({ code: 'custom', path: ['fieldMappings'], message: unmappedColumnsMessage(missing) });
  });
export type PipeCreateRequest = z.infer<typeof PipeCreateRequest>;

const REPLACE_HINT = 'cannot change after create; the pipe must be replaced';
/** A patch object that names the immutable keys in its refusal, so users learn the pipe must be replaced. */
const patchable = <S extends z.core.$ZodLooseShape>(shape: S) =>
  z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? REPLACE_HINT : undefined),
  });

/** PATCH pipe (extension): only these fields may change in place. */
export const PipeUpdateRequest = z
  .strictObject(
    {
      name: z.string().min(1).max(255).optional(),
      fieldMappings: z.array(FieldMapping).optional(),
      destination: patchable({ columns: z.array(Column).optional() }).optional(),
      scaling: PipeScaling.optional(),
      source: patchable({
        kafka: patchable({
          credentials: Credentials.optional(),
          schemaRegistry: patchable({ credentials: Credentials.optional() }).optional(),
        }).optional(),
        objectStorage: patchable({ accessKey: AccessKey.optional() }).optional(),
        kinesis: patchable({ accessKey: AccessKey.optional() }).optional(),
        postgres: patchable({ credentials: Credentials.optional() }).optional(),
      }).optional(),
    },
    { error: (issue) => (issue.code === 'unrecognized_keys' ? REPLACE_HINT : undefined) },
  )
  .refine((body) => Object.keys(body).length > 0, { error: 'pipe update must change at least one field' });
export type PipeUpdateRequest = z.infer<typeof PipeUpdateRequest>;

/** `resync` (extension) re-snapshots a postgres pipe. */
export const PIPE_COMMANDS = ['start', 'stop', 'resync'] as const;
export const PipeStateRequest = z.strictObject({ command: z.enum(PIPE_COMMANDS) });
export type PipeCommand = (typeof PIPE_COMMANDS)[number];

/** The pipe object as returned: credentials, validateSamples and destination.roles never come back. */
export const Pipe = z.looseObject({
  id: z.string(),
  serviceId: z.string(),
  name: z.string(),
  state: z.string(),
  scaling: z.looseObject({}).optional(),
  source: z.looseObject({}),
  destination: z.looseObject({}),
  fieldMappings: z.array(z.looseObject({ sourceField: z.string(), destinationField: z.string() })).optional(),
  settings: z.looseObject({}).optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type Pipe = z.infer<typeof Pipe>;

/** Settings as returned (lenient: the service may add keys). */
export const PipeSettingsResult = z.looseObject({});
