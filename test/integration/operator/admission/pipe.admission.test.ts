import { beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { edit, expectRefused, named, SERVICE_ID, useAdmission } from './admission.ts';
import { kafkaPipe, kinesisPipe, objectStoragePipe, postgresPipe } from '../../../../tools/fixtures/pipe.ts';

const fixtures = {
  kafka: kafkaPipe('orders'),
  objectStorage: objectStoragePipe('backfill'),
  kinesis: kinesisPipe('clicks'),
  postgres: postgresPipe('replica'),
};
type Kind = keyof typeof fixtures;

/** The fixture of the source kind a `source.<kind>.…` path names (kafka for any other path), edited. */
const editFixture = (path: string, value: unknown) => {
  const [top, kind] = path.split('.');
  return edit(fixtures[top === 'source' && kind! in fixtures ? (kind as Kind) : 'kafka'], path, value);
};
/** Inclusive bounds of the integer pipe settings, as api-spec.md states them. */
const SETTING_BOUNDS: Record<string, [number, number]> = {
  streaming_max_insert_wait_ms: [500, 60_000],
  object_storage_concurrency: [1, 35],
  object_storage_polling_interval_ms: [100, 3_600_000],
  object_storage_max_insert_bytes: [10_485_760, 53_687_091_200],
  object_storage_max_file_count: [1, 10_000],
  engine_max_threads: [0, 64],
  engine_max_insert_threads: [0, 16],
  engine_min_insert_block_size_bytes: [0, 10_737_418_240],
  engine_max_download_threads: [0, 32],
  engine_parallel_distributed_insert_select: [0, 2],
};
const BOOLEAN_SETTINGS = ['object_storage_use_cluster_function', 'engine_parallel_view_processing'];
/** Scaling bounds of the real service (api-behaviour.md), inclusive; `step` is a value's resolution. */
const SCALING_BOUNDS: Record<string, [number, number, number]> = {
  replicas: [1, 40, 1],
  replicaCpuMillicores: [125, 2000, 1],
  replicaMemoryGb: [0.5, 8, 0.1],
};
const settingsAt = (bound: 0 | 1, flag: boolean) => ({
  ...Object.fromEntries(Object.entries(SETTING_BOUNDS).map(([key, bounds]) => [key, bounds[bound]])),
  ...Object.fromEntries(BOOLEAN_SETTINGS.map((key) => [key, flag])),
});
const scalingAt = (bound: 0 | 1) =>
  Object.fromEntries(Object.entries(SCALING_BOUNDS).map(([key, bounds]) => [key, bounds[bound]]));

const REPLACE = 'cannot change after create; create a new Pipe';

describe.skipIf(clusterSkipReason())(
  'Pipe admission (CRD schema and CEL rules on the real apiserver)',
  () => {
    const api = useAdmission('Pipe', 'pipe');

    it('accepts a kafka pipe and fills in the defaults: state Running, deletionPolicy Delete', async () => {
      const created = await api.create('defaults', fixtures.kafka);
      expect(created.spec).toMatchObject({ state: 'Running', deletionPolicy: 'Delete' });
    });

    it.each(Object.keys(fixtures) as Kind[])('accepts a pipe with a %s source', async (kind) => {
      expect(await api.admit(fixtures[kind])).toBe('accepted');
    });

    describe('settings', () => {
      it.each(
        Object.entries(SETTING_BOUNDS).flatMap(([key, [min, max]]) => [
          [key, min - 1],
          [key, max + 1],
        ]),
      )('rejects %s = %d, naming the setting', async (key, value) => {
        await expectRefused(api.admit(editFixture(`settings.${key}`, value)), named(`settings.${key}`));
      });

      it.each(BOOLEAN_SETTINGS)('rejects a non-boolean %s, naming the setting', async (key) => {
        await expectRefused(api.admit(editFixture(`settings.${key}`, 'yes')), named(`settings.${key}`));
      });

      it('accepts every integer setting at its minimum and at its maximum, and either boolean', async () => {
        expect(await api.admit(editFixture('settings', settingsAt(0, false)))).toBe('accepted');
        expect(await api.admit(editFixture('settings', settingsAt(1, true)))).toBe('accepted');
      });
    });

    describe('extraSettings', () => {
      it('accepts keys beyond settings with boolean, integer, fractional and string values', async () => {
        const extraSettings = {
          booleans: { kafka_read_committed: true },
          numbers: { kafka_max_block_size: 65_536, kafka_poll_timeout_ratio: 0.5 },
          strings: { kafka_client_id: 'orders' },
        };
        const created = await api.create(
          'extra-settings',
          edit(fixtures.kafka, 'extraSettings', extraSettings),
        );
        expect(created.spec).toMatchObject({ extraSettings });
      });

      it.each([
        ['an object', { mode: 'fast' }],
        ['a list', ['a', 'b']],
      ])('rejects %s as a value, naming the key', async (_what, value) => {
        const path = 'extraSettings.strings.kafka_tuning';
        await expectRefused(api.admit(editFixture(path, value)), named(path), 'must be of type string');
      });

      it.each(['booleans', 'numbers', 'strings'])(
        'rejects a key of settings in %s, naming it and where it belongs',
        async (type) => {
          const value = { booleans: true, numbers: 1000, strings: '1000' }[type];
          await expectRefused(
            api.admit(editFixture(`extraSettings.${type}.engine_max_threads`, value)),
            `spec.extraSettings.${type}.engine_max_threads is a key of settings: set it there`,
          );
        },
      );

      it('rejects a key given two types', async () => {
        const extraSettings = {
          booleans: { kafka_read_committed: true },
          strings: { kafka_read_committed: 'x' },
        };
        await expectRefused(
          api.admit(editFixture('extraSettings', extraSettings)),
          'a key may appear in only one of booleans and strings',
        );
      });
    });

    describe('scaling', () => {
      it.each([
        ...Object.entries(SCALING_BOUNDS).flatMap(([key, [min, max, step]]) => [
          [key, min - step],
          [key, max + step],
        ]),
        ['replicas', 1.5],
        ['concurrency', 0],
      ])('rejects %s = %d, naming the field', async (key, value) => {
        await expectRefused(api.admit(editFixture(`scaling.${key}`, value)), named(`scaling.${key}`));
      });

      it('accepts replicas, CPU and memory at their minimum and at their maximum', async () => {
        expect(await api.admit(editFixture('scaling', scalingAt(0)))).toBe('accepted');
        expect(await api.admit(editFixture('scaling', scalingAt(1)))).toBe('accepted');
      });
    });

    describe('rules across fields', () => {
      const kafka = fixtures.kafka;
      it.each([
        ['no source', editFixture('source', {}), 'source must name exactly one of kafka, objectStorage'],
        [
          'two sources',
          edit(kafka, 'source.objectStorage', fixtures.objectStorage.source.objectStorage),
          'source must name exactly one of kafka, objectStorage',
        ],
        ['both serviceRef and serviceId', edit(kafka, 'serviceId', SERVICE_ID), 'exactly one of serviceRef'],
        [
          'neither serviceRef nor serviceId',
          edit(kafka, 'serviceRef', undefined),
          'exactly one of serviceRef',
        ],
        [
          'a column no mapping feeds',
          edit(kafka, 'fieldMappings', kafka.fieldMappings.slice(0, 1)),
          'fieldMappings must cover every destination column; missing: payload',
        ],
        [
          'columns without fieldMappings',
          edit(kafka, 'fieldMappings', undefined),
          'fieldMappings must cover every destination column; missing: id',
        ],
        [
          'a kafka pipe without destination.table',
          edit(kafka, 'destination.table', undefined),
          'destination.table is required unless the source is postgres',
        ],
        [
          'an offset timestamp without from_timestamp',
          editFixture('source.kafka.offset', { strategy: 'from_latest', timestamp: '2026-01-31T14:05' }),
          'source.kafka.offset.timestamp is required with strategy from_timestamp and allowed only with it',
        ],
        [
          'from_timestamp without a timestamp',
          editFixture('source.kafka.offset', { strategy: 'from_timestamp' }),
          'source.kafka.offset.timestamp is required with strategy from_timestamp and allowed only with it',
        ],
        [
          'an offset timestamp with seconds',
          editFixture('source.kafka.offset', {
            strategy: 'from_timestamp',
            timestamp: '2026-01-31T14:05:00',
          }),
          named('source.kafka.offset.timestamp'),
        ],
        [
          'a serviceId that is not a uuid',
          edit(edit(kafka, 'serviceRef', undefined), 'serviceId', 'svc-1'),
          named('serviceId'),
        ],
        [
          'a Secret reference that is no object name',
          editFixture('source.kafka.credentialsSecretRef.name', 'Kafka_User'),
          named('source.kafka.credentialsSecretRef.name'),
        ],
        [
          'a reverse private endpoint id that is not a uuid',
          editFixture('source.kafka.reversePrivateEndpointIds', ['rpe-1']),
          named('source.kafka.reversePrivateEndpointIds[0]'),
        ],
        [
          'a reverse private endpoint reference that is no object name',
          editFixture('source.kafka.reversePrivateEndpointRefs', [{ name: 'MSK_Endpoint' }]),
          named('source.kafka.reversePrivateEndpointRefs[0].name'),
        ],
        [
          'a postgres pipe with destination.table',
          edit(fixtures.postgres, 'destination.table', 'orders'),
          'destination of a postgres pipe names only database',
        ],
        [
          'a postgres pipe with destination.columns',
          edit(fixtures.postgres, 'destination.columns', kafka.destination.columns),
          'destination of a postgres pipe names only database',
        ],
        ['a pipe without a name', edit(kafka, 'name', undefined), named('name')],
        [
          'a destination without a database',
          edit(kafka, 'destination.database', undefined),
          named('destination.database'),
        ],
      ])('rejects %s', async (_what, spec, message) => {
        await expectRefused(api.admit(spec), message);
      });

      it.each([
        ['a postgres pipe without destination.table', fixtures.postgres],
        [
          'a from_timestamp offset with a minute timestamp',
          editFixture('source.kafka.offset', { strategy: 'from_timestamp', timestamp: '2026-01-31T14:05' }),
        ],
        [
          'a timestamp offset without a strategy',
          editFixture('source.kafka.offset', { timestamp: '2026-01-31T14:05' }),
        ],
        [
          'a serviceId instead of serviceRef',
          edit(edit(fixtures.kafka, 'serviceRef', undefined), 'serviceId', SERVICE_ID),
        ],
        [
          'a mapping to a field that is not a declared column',
          edit(kafka, 'fieldMappings', [
            ...kafka.fieldMappings,
            { sourceField: 'ts', destinationField: 'ts' },
          ]),
        ],
      ])('accepts %s', async (_what, spec) => {
        expect(await api.admit(spec)).toBe('accepted');
      });
    });

    it.each([
      'source.kafka.type',
      'source.kafka.format',
      'source.kafka.authentication',
      'source.kafka.offset.strategy',
      'source.objectStorage.type',
      'source.objectStorage.format',
      'source.objectStorage.compression',
      'source.objectStorage.authentication',
      'source.kinesis.format',
      'source.kinesis.iteratorType',
      'source.kinesis.authentication',
      'source.postgres.type',
      'source.postgres.authentication',
      'source.postgres.settings.replicationMode',
      'source.postgres.tableMappings.0.tableEngine',
      'destination.tableDefinition.engine.type',
      'state',
      'deletionPolicy',
    ])('rejects a value %s does not list, naming the field', async (path) => {
      await expectRefused(api.admit(editFixture(path, 'Bogus')), named(path), 'Unsupported value');
    });
    describe('after create', () => {
      const kafka = fixtures.kafka;
      /** A kafka pipe that sets every fixed field the tests change, and a schema registry with credentials. */
      const fixedKafka = edit(
        edit(kafka, 'source.kafka', {
          ...kafka.source.kafka,
          consumerGroup: 'sluice',
          reversePrivateEndpointRefs: [{ name: 'msk' }],
          schemaRegistry: {
            url: 'https://registry.example.com',
            credentialsSecretRef: { name: 'registry-user' },
          },
        }),
        'destination',
        { ...kafka.destination, roles: ['writer'], tableDefinition: { sortingKey: ['id'] } },
      );
      const withColumn = {
        destination: { columns: [...kafka.destination.columns, { name: 'ts', type: 'DateTime' }] },
        fieldMappings: [...kafka.fieldMappings, { sourceField: 'ts', destinationField: 'ts' }],
      };

      beforeAll(async () => {
        await api.create('kafka', fixedKafka);
        await api.create('storage', fixtures.objectStorage);
        await api.create('by-id', edit(edit(kafka, 'serviceRef', undefined), 'serviceId', SERVICE_ID));
      });

      it.each([
        ['kafka', 'source.kafka.brokers', 'broker-2.example.com:9092'],
        ['kafka', 'source.kafka.topics', 'orders,refunds'],
        ['kafka', 'source.kafka.consumerGroup', 'other'],
        ['kafka', 'source.kafka.consumerGroup', null],
        ['kafka', 'source.kafka.offset', { strategy: 'from_latest' }],
        ['kafka', 'source.kafka.format', 'Avro'],
        ['kafka', 'source.kafka.schemaRegistry.url', 'https://other.example.com'],
        ['kafka', 'source.kafka.schemaRegistry', null],
        ['kafka', 'source.kafka.reversePrivateEndpointRefs', [{ name: 'msk' }, { name: 'other' }]],
        ['kafka', 'source.kafka.reversePrivateEndpointRefs', null],
        ['storage', 'source.objectStorage.url', 'https://bucket.s3.amazonaws.com/other/*'],
        ['storage', 'source.objectStorage.isContinuous', true],
        ['kafka', 'destination.database', 'other'],
        ['kafka', 'destination.table', 'other'],
        ['kafka', 'destination.managedTable', false],
        ['kafka', 'destination.tableDefinition', { sortingKey: ['payload'] }],
        ['kafka', 'destination.roles', ['reader']],
        ['kafka', 'serviceRef', { name: 'other' }],
        ['by-id', 'serviceId', '0e6a2f3c-9d41-4b7e-a2c5-6f8d9e0a1b2c'],
      ])('%s: refuses to set %s to %j, naming it', async (name, path, value) => {
        await expectRefused(api.patch(name, edit({}, path, value)), `${path} ${REPLACE}`);
      });

      it.each([
        [
          'switching the source kind',
          'source.kafka',
          { source: { kafka: null, objectStorage: fixtures.objectStorage.source.objectStorage } },
        ],
        ['swapping serviceRef for serviceId', 'serviceRef', { serviceRef: null, serviceId: SERVICE_ID }],
      ])('kafka: refuses %s, naming %s', async (_what, field, change) => {
        await expectRefused(api.patch('kafka', change), `${field} ${REPLACE}`);
      });

      it('refuses a new column whose mapping is missing', async () => {
        await expectRefused(
          api.patch('kafka', { destination: withColumn.destination }),
          'fieldMappings must cover every destination column; missing: ts',
        );
      });

      it.each([
        ['kafka', 'the name', { name: 'orders-v2' }],
        ['kafka', 'fieldMappings together with destination.columns', withColumn],
        ['kafka', 'scaling', { scaling: { replicas: 2, replicaCpuMillicores: 500, replicaMemoryGb: 1 } }],
        [
          'kafka',
          'settings',
          { settings: { streaming_max_insert_wait_ms: 1000, engine_parallel_view_processing: true } },
        ],
        ['kafka', 'the desired state', { state: 'Stopped' }],
        ['kafka', 'the deletion policy', { deletionPolicy: 'Orphan' }],
        ['kafka', 'credentialsSecretRef', edit({}, 'source.kafka.credentialsSecretRef.name', 'kafka-user-2')],
        [
          'kafka',
          'schemaRegistry.credentialsSecretRef',
          edit({}, 'source.kafka.schemaRegistry.credentialsSecretRef.name', 'registry-user-2'),
        ],
        [
          'storage',
          'accessKeySecretRef',
          edit({}, 'source.objectStorage.accessKeySecretRef.name', 's3-key-2'),
        ],
        ['by-id', 'name, state and scaling', { name: 'renamed', state: 'Stopped', scaling: { replicas: 3 } }],
      ])('%s: lets %s change in place', async (name, _what, change) => {
        expect(await api.patch(name, change)).toBe('accepted');
      });
    });
  },
);
