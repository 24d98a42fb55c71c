import { describe, expect, it } from 'vitest';
import { pipeSecretUses, type PipeSpec } from '../../../../src/kinds/pipe/schema.ts';
import type { Pipe } from '../../../../src/cloud/schemas/pipe.ts';
import {
  diffPipe,
  diffSettings,
  extraSettingKeys,
  pipeAvailability,
  pipeCreateBody,
  setSettings,
  stateCommand,
  unrotatableChanges,
  type SecretValues,
} from '../../../../src/kinds/pipe/mapping.ts';
import { columns, mappings } from '../../../../tools/fixtures/pipe.ts';

const CREDENTIALS = 'source.kafka.credentialsSecretRef';
const REGISTRY_CREDENTIALS = 'source.kafka.schemaRegistry.credentialsSecretRef';

const kafka = {
  brokers: 'broker-1.example.com:9092',
  topics: 'orders',
  credentialsSecretRef: { name: 'kafka-user' },
  schemaRegistry: { url: 'https://registry.example.com', credentialsSecretRef: { name: 'registry-user' } },
};
const spec = (extra: Partial<PipeSpec> = {}): PipeSpec => ({
  serviceRef: { name: 'analytics' },
  name: 'orders',
  source: { kafka },
  destination: { database: 'default', table: 'orders', columns },
  fieldMappings: mappings,
  state: 'Running',
  deletionPolicy: 'Delete',
  ...extra,
});
const objectStorage = (extra: Record<string, unknown> = {}) =>
  spec({ source: { objectStorage: { url: 'https://bucket.s3.amazonaws.com/*.json', ...extra } } });

/** The pipe as the cloud reports it for `spec()`: no credentials, settings at their defaults. */
const pipe = (extra: Partial<Pipe> = {}): Pipe => ({
  id: 'pipe-1',
  serviceId: 'svc-1',
  name: 'orders',
  state: 'Running',
  source: { kafka: { brokers: kafka.brokers, topics: kafka.topics } },
  destination: { database: 'default', table: 'orders', columns },
  fieldMappings: mappings,
  ...extra,
});

const SECRET_VALUES: Record<string, Record<string, string>> = {
  [CREDENTIALS]: { username: 'ingest', password: 'kafka-pass-2' },
  [REGISTRY_CREDENTIALS]: { username: 'reg', password: 'registry-pass-2' },
  'source.objectStorage.accessKeySecretRef': { accessKeyId: 'AKIAEXAMPLE', secretKey: 's3-secret' },
  'source.objectStorage.connectionStringSecretRef': { connectionString: 'DefaultEndpointsProtocol=https' },
};
const secrets: SecretValues = (field) => SECRET_VALUES[field];
const noneRotated = new Set<string>();
const diff = (desired: PipeSpec, observed: Pipe, rotated: ReadonlySet<string> = noneRotated) =>
  diffPipe(desired, observed, rotated, secrets);

describe('diffPipe', () => {
  it('plans no call when the cloud matches the spec', () => {
    expect(diff(spec(), pipe())).toEqual({ differences: [] });
  });

  it('renames with a PATCH of only the name', () => {
    expect(diff(spec({ name: 'orders-v2' }), pipe())).toEqual({
      differences: ['name'],
      patch: { name: 'orders-v2' },
    });
  });

  const widened = {
    columns: [...columns, { name: 'ts', type: 'DateTime' }],
    mappings: [...mappings, { sourceField: 'ts', destinationField: 'ts' }],
  };

  it('sends fieldMappings together with destination.columns when a column and its mapping are added', () => {
    const desired = spec({
      destination: { ...spec().destination, columns: widened.columns },
      fieldMappings: widened.mappings,
    });
    expect(diff(desired, pipe())).toEqual({
      differences: ['fieldMappings', 'destination.columns'],
      patch: { fieldMappings: widened.mappings, destination: { columns: widened.columns } },
    });
  });

  it('sends destination.columns along when only the mappings changed (the API checks one against the other)', () => {
    const remapped = [mappings[0]!, { sourceField: 'text', destinationField: 'payload' }];
    expect(diff(spec({ fieldMappings: remapped }), pipe())).toEqual({
      differences: ['fieldMappings'],
      patch: { fieldMappings: remapped, destination: { columns } },
    });
  });

  it('ignores mapping and column order', () => {
    const observed = pipe({
      fieldMappings: [...mappings].reverse(),
      destination: { database: 'default', table: 'orders', columns: [...columns].reverse() },
    });
    expect(diff(spec(), observed)).toEqual({ differences: [] });
  });

  it('patches scaling when a key the spec sets differs, and ignores keys only the cloud sets', () => {
    const observed = pipe({ scaling: { replicas: 1, concurrency: 2, replicaCpuMillicores: 500 } });
    expect(diff(spec({ scaling: { replicas: 1, replicaCpuMillicores: 500 } }), observed)).toEqual({
      differences: [],
    });
    expect(diff(spec({ scaling: { replicas: 3, replicaCpuMillicores: 500 } }), observed)).toEqual({
      differences: ['scaling'],
      patch: { scaling: { replicas: 3, replicaCpuMillicores: 500 } },
    });
  });

  it('puts rotated credentials in the PATCH, only for the rotated Secret', () => {
    expect(diff(spec(), pipe(), new Set([REGISTRY_CREDENTIALS]))).toEqual({
      differences: [REGISTRY_CREDENTIALS],
      patch: { source: { kafka: { schemaRegistry: { credentials: SECRET_VALUES[REGISTRY_CREDENTIALS] } } } },
    });
  });

  it('sends every rotated credential of the source in one PATCH', () => {
    expect(diff(spec(), pipe(), new Set([CREDENTIALS, REGISTRY_CREDENTIALS])).patch).toEqual({
      source: {
        kafka: {
          credentials: SECRET_VALUES[CREDENTIALS],
          schemaRegistry: { credentials: SECRET_VALUES[REGISTRY_CREDENTIALS] },
        },
      },
    });
  });

  it('does not patch credentials that did not rotate', () => {
    expect(diff(spec(), pipe(), new Set())).toEqual({ differences: [] });
  });

  it('does not patch a rotated connection string, which the cloud cannot change in place', () => {
    const desired = objectStorage({ connectionStringSecretRef: { name: 'azure' } });
    const observed = pipe({ source: { objectStorage: { url: 'https://bucket.s3.amazonaws.com/*.json' } } });
    expect(diff(desired, observed, new Set(['source.objectStorage.connectionStringSecretRef']))).toEqual({
      differences: [],
    });
  });

  it('puts settings in their own PUT body and names each key that differs', () => {
    const desired = spec({ settings: { streaming_max_insert_wait_ms: 1000 } });
    expect(diff(desired, pipe({ settings: { engine_max_threads: 8 } }))).toEqual({
      differences: ['settings.streaming_max_insert_wait_ms', 'settings.engine_max_threads'],
      settings: { streaming_max_insert_wait_ms: 1000, engine_max_threads: null },
    });
  });

  it('sends the state command apart from the PATCH', () => {
    expect(diff(spec({ state: 'Stopped', name: 'orders-v2' }), pipe())).toEqual({
      differences: ['name', 'state'],
      patch: { name: 'orders-v2' },
      command: 'stop',
    });
  });
});

describe('diffPipe: settings as the real API answers them (only the keys that were set)', () => {
  it('a pipe whose settings hold only the keys set is not drift, whether the spec sets some or none', () => {
    expect(diff(spec(), pipe({ settings: {} }))).toEqual({ differences: [] });
    const settings = { engine_max_threads: 8, engine_parallel_view_processing: false };
    expect(diff(spec({ settings }), pipe({ settings }))).toEqual({ differences: [] });
  });

  it('a key outside the contract set in the cloud by someone else is not drift', () => {
    expect(diff(spec(), pipe({ settings: { kafka_read_committed: true } }))).toEqual({ differences: [] });
  });

  it('a key the spec sets that the answer leaves out is sent', () => {
    expect(diff(spec({ settings: { engine_max_threads: 8 } }), pipe({ settings: {} }))).toEqual({
      differences: ['settings.engine_max_threads'],
      settings: { engine_max_threads: 8 },
    });
  });
});

describe('diffPipe: extraSettings (keys beyond the contract, managed like its twelve)', () => {
  const readCommitted = (value: boolean) => ({
    extraSettings: { booleans: { kafka_read_committed: value } },
  });
  const diffRecorded = (desired: PipeSpec, observed: Pipe, recorded: string[]) =>
    diffPipe(desired, observed, noneRotated, secrets, recorded);

  it('sends an extra key the spec adds', () => {
    expect(diff(spec(readCommitted(true)), pipe({ settings: { engine_max_threads: null } }))).toEqual({
      differences: ['settings.kafka_read_committed'],
      settings: { kafka_read_committed: true },
    });
  });

  it('sends only the extra key whose value changed, whatever its type', () => {
    const desired = spec({
      extraSettings: { numbers: { kafka_max_block_size: 1024 }, strings: { kafka_client_id: 'orders' } },
    });
    const observed = pipe({ settings: { kafka_max_block_size: 1024, kafka_client_id: 'billing' } });
    expect(diffRecorded(desired, observed, ['kafka_client_id', 'kafka_max_block_size'])).toEqual({
      differences: ['settings.kafka_client_id'],
      settings: { kafka_client_id: 'orders' },
    });
  });

  it('resets with null an extra key the spec dropped, which status records as managed', () => {
    const observed = pipe({ settings: { kafka_read_committed: true } });
    expect(diffRecorded(spec(), observed, ['kafka_read_committed'])).toEqual({
      differences: ['settings.kafka_read_committed'],
      settings: { kafka_read_committed: null },
    });
  });

  it('plans nothing when the extra keys match, and leaves alone an extra key set by someone else', () => {
    const observed = pipe({ settings: { kafka_read_committed: false, kafka_client_id: 'theirs' } });
    expect(diffRecorded(spec(readCommitted(false)), observed, ['kafka_read_committed'])).toEqual({
      differences: [],
    });
  });

  it('sends settings and extra keys in one PUT', () => {
    const desired = spec({ settings: { engine_max_threads: 8 }, ...readCommitted(true) });
    expect(diff(desired, pipe({ settings: {} }))).toEqual({
      differences: ['settings.engine_max_threads', 'settings.kafka_read_committed'],
      settings: { engine_max_threads: 8, kafka_read_committed: true },
    });
  });

  it('creates the pipe with settings and extra keys in one settings object', () => {
    const desired = spec({ settings: { engine_max_threads: 8 }, ...readCommitted(true) });
    expect(pipeCreateBody(desired, secrets).settings).toEqual({
      engine_max_threads: 8,
      kafka_read_committed: true,
    });
  });
});

describe('extraSettingKeys', () => {
  const desired = spec({ extraSettings: { booleans: { kafka_read_committed: true } } });

  it('manages the keys the spec sets, and a recorded key while the cloud still holds it', () => {
    const observed = { kafka_read_committed: false, kafka_client_id: 'old', kafka_other: 'theirs' };
    expect(extraSettingKeys(desired, ['kafka_client_id'], observed)).toEqual([
      'kafka_client_id',
      'kafka_read_committed',
    ]);
  });

  it('forgets a recorded key once the cloud has reset it', () => {
    expect(extraSettingKeys(spec(), ['kafka_client_id'], { kafka_client_id: null })).toEqual([]);
    expect(extraSettingKeys(spec(), ['kafka_client_id'], {})).toEqual([]);
  });
});

describe('setSettings', () => {
  it('splits what the cloud reports as set into the contract keys and the others, leaving out nulls', () => {
    expect(
      setSettings({ engine_max_threads: 8, streaming_max_insert_wait_ms: null, kafka_read_committed: true }),
    ).toEqual({ settings: { engine_max_threads: 8 }, extraSettings: { kafka_read_committed: true } });
  });
});

describe('diffSettings', () => {
  it('sends only the settings keys that differ', () => {
    expect(
      diffSettings(
        { streaming_max_insert_wait_ms: 2000, engine_max_threads: 8, engine_parallel_view_processing: true },
        { streaming_max_insert_wait_ms: 1000, engine_max_threads: 8, engine_parallel_view_processing: true },
      ),
    ).toEqual({ streaming_max_insert_wait_ms: 2000 });
  });

  it('resets a key the spec dropped with null', () => {
    expect(
      diffSettings({}, { object_storage_concurrency: 4, engine_parallel_view_processing: false }),
    ).toEqual({
      object_storage_concurrency: null,
      engine_parallel_view_processing: null,
    });
  });

  it('compares and resets the extra keys it is given like the contract keys', () => {
    expect(
      diffSettings({ kafka_client_id: 'a' }, { kafka_client_id: 'b', kafka_read_committed: true }, [
        'kafka_client_id',
        'kafka_read_committed',
      ]),
    ).toEqual({ kafka_client_id: 'a', kafka_read_committed: null });
  });

  it.each([
    ['the settings match', { engine_max_threads: 8 }, { engine_max_threads: 8 }],
    ['neither side sets a key', {}, {}],
    ['the cloud reports a key the spec leaves out as null (its default)', {}, { engine_max_threads: null }],
    ['the cloud reports a key sluice does not know', {}, { engine_future_setting: 3 }],
  ])('never sends an empty settings body: nothing when %s', (_when, desired, observed) => {
    expect(diffSettings(desired, observed)).toBeUndefined();
  });
});

describe('stateCommand', () => {
  it.each([
    ['Stopped', 'Running', 'stop'],
    ['Stopped', 'Provisioning', 'stop'],
    ['Stopped', 'Failed', 'stop'],
    ['Stopped', 'Stopping', undefined],
    ['Stopped', 'Stopped', undefined],
    ['Stopped', 'Completed', undefined],
    ['Running', 'Stopped', 'start'],
    ['Running', 'Paused', 'start'],
    ['Running', 'Running', undefined],
    ['Running', 'Stopping', undefined],
    ['Running', 'Provisioning', undefined],
    ['Running', 'Completed', undefined],
    ['Running', 'Failed', undefined],
    ['Running', 'InternalError', undefined],
  ] as const)(
    'stops a running pipe when Stopped is desired and starts only a Stopped or Paused one: want %s, cloud %s → %s',
    (desired, state, command) => {
      expect(stateCommand(desired, state)).toBe(command);
    },
  );
});

describe('pipeAvailability', () => {
  it('is available when the cloud state is the desired one', () => {
    expect(pipeAvailability(spec(), 'Running')).toEqual({ available: true });
    expect(pipeAvailability(spec({ state: 'Stopped' }), 'Stopped')).toEqual({ available: true });
  });

  it('treats Completed as done for a one-shot object-storage pipe, whatever the desired state', () => {
    expect(pipeAvailability(objectStorage(), 'Completed')).toEqual({ available: true });
    expect(pipeAvailability({ ...objectStorage(), state: 'Stopped' }, 'Completed')).toEqual({
      available: true,
    });
  });

  it('does not count Completed as done for a continuous or streaming pipe', () => {
    const want = { available: false, waitingFor: 'pipe is Completed, want Running' };
    expect(pipeAvailability(objectStorage({ isContinuous: true }), 'Completed')).toEqual(want);
    expect(pipeAvailability(spec(), 'Completed')).toEqual(want);
  });

  it.each(['Failed', 'InternalError'])('reports %s as a cloud failure', (state) => {
    expect(pipeAvailability(spec(), state)).toEqual({
      available: false,
      failed: `the cloud reports the pipe ${state}`,
    });
  });

  it.each(['Provisioning', 'Setup', 'Snapshot', 'Modifying', 'Stopping', 'Pausing', 'Unknown'])(
    'waits while the pipe is %s',
    (state) => {
      expect(pipeAvailability(spec(), state)).toEqual({ available: false, waitingFor: `pipe is ${state}` });
    },
  );

  it('says which state it wants when the pipe rests in another', () => {
    expect(pipeAvailability(spec(), 'Stopped')).toEqual({
      available: false,
      waitingFor: 'pipe is Stopped, want Running',
    });
    expect(pipeAvailability(spec({ state: 'Stopped' }), 'Running')).toEqual({
      available: false,
      waitingFor: 'pipe is Running, want Stopped',
    });
  });
});

describe('pipeCreateBody', () => {
  it('create body carries Secret values in place of …SecretRef and no SecretRef key', () => {
    const body = pipeCreateBody(spec(), secrets);
    expect(body.source).toEqual({
      kafka: {
        brokers: kafka.brokers,
        topics: kafka.topics,
        credentials: SECRET_VALUES[CREDENTIALS],
        schemaRegistry: { url: kafka.schemaRegistry.url, credentials: SECRET_VALUES[REGISTRY_CREDENTIALS] },
      },
    });
    expect(JSON.stringify(body)).not.toContain('SecretRef');
  });

  it('sends referenced reverse private endpoints as ids after those named by id, and never the references', () => {
    const desired = spec({
      source: {
        kafka: {
          ...kafka,
          reversePrivateEndpointIds: ['rpe-by-id'],
          reversePrivateEndpointRefs: [{ name: 'gateway' }, { name: 'msk' }],
        },
      },
    });
    const body = pipeCreateBody(desired, secrets, ['rpe-gateway', 'rpe-by-id', 'rpe-msk']);
    expect(body.source.kafka?.reversePrivateEndpointIds).toEqual(['rpe-by-id', 'rpe-gateway', 'rpe-msk']);
    expect(JSON.stringify(body)).not.toContain('reversePrivateEndpointRefs');
    expect(pipeCreateBody(spec(), secrets).source.kafka).not.toHaveProperty('reversePrivateEndpointIds');
  });

  it('sends a connection string Secret as the string itself, an access key as an object', () => {
    const desired = objectStorage({
      accessKeySecretRef: { name: 's3-key' },
      connectionStringSecretRef: { name: 'azure' },
    });
    expect(pipeCreateBody(desired, secrets).source.objectStorage).toEqual({
      url: 'https://bucket.s3.amazonaws.com/*.json',
      accessKey: SECRET_VALUES['source.objectStorage.accessKeySecretRef'],
      connectionString: 'DefaultEndpointsProtocol=https',
    });
  });

  it('carries the cloud fields of the spec and none of the Kubernetes-only ones', () => {
    const desired = spec({
      credentialsRef: { name: 'other-org' },
      scaling: { replicas: 2 },
      settings: { engine_max_threads: 4 },
      source: { kafka, validateSamples: true },
    });
    const body = pipeCreateBody(desired, secrets);
    expect(Object.keys(body).sort()).toEqual([
      'destination',
      'fieldMappings',
      'name',
      'scaling',
      'settings',
      'source',
    ]);
    expect(body).toMatchObject({
      name: 'orders',
      destination: desired.destination,
      fieldMappings: mappings,
      scaling: { replicas: 2 },
      settings: { engine_max_threads: 4 },
      source: { validateSamples: true },
    });
  });
});

describe('pipeSecretUses', () => {
  it('lists each referenced Secret with the keys its field needs, a connection string as not replaceable', () => {
    expect(pipeSecretUses(spec())).toEqual([
      { field: CREDENTIALS, secretName: 'kafka-user', keys: ['username', 'password'] },
      { field: REGISTRY_CREDENTIALS, secretName: 'registry-user', keys: ['username', 'password'] },
    ]);
    expect(
      pipeSecretUses(
        objectStorage({
          accessKeySecretRef: { name: 's3-key' },
          connectionStringSecretRef: { name: 'azure' },
        }),
      ),
    ).toEqual([
      {
        field: 'source.objectStorage.accessKeySecretRef',
        secretName: 's3-key',
        keys: ['accessKeyId', 'secretKey'],
      },
      {
        field: 'source.objectStorage.connectionStringSecretRef',
        secretName: 'azure',
        keys: ['connectionString'],
        replaceable: false,
      },
    ]);
  });

  it('lists nothing for a pipe that references no Secret', () => {
    expect(pipeSecretUses(objectStorage())).toEqual([]);
  });
});

describe('unrotatableChanges', () => {
  const CONNECTION_STRING = 'source.objectStorage.connectionStringSecretRef';
  const withConnectionString = objectStorage({ connectionStringSecretRef: { name: 'azure' } });

  it('names a rotated connection string, which the PATCH operation cannot carry', () => {
    expect(unrotatableChanges(withConnectionString, new Set([CONNECTION_STRING]))).toEqual([
      CONNECTION_STRING,
    ]);
  });

  it('names nothing for credentials the PATCH can replace, or when nothing rotated', () => {
    expect(unrotatableChanges(spec(), new Set([CREDENTIALS, REGISTRY_CREDENTIALS]))).toEqual([]);
    expect(unrotatableChanges(withConnectionString, noneRotated)).toEqual([]);
  });
});
