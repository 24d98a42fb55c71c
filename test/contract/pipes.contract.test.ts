import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { PIPE_STATES, SCALING_BOUNDS } from '../../src/cloud/schemas/index.ts';
import { expectMgmtError, expectOk, useContractEmulator, UUID } from './support/api.ts';
import type { Json, Reply } from './support/api.ts';
import {
  accessKey,
  createPipe,
  createRunningService,
  credentials,
  getPipe,
  pipeBody,
  pipePath,
  pipesPath,
  SECRET,
  servicePath,
  waitPipeState,
  waitServiceState,
} from './support/fixtures.ts';
import type { PipeKind } from './support/fixtures.ts';

const { api, ctl } = useContractEmulator();
let serviceId: string;

beforeEach(async () => {
  serviceId = (await createRunningService(api)).id;
});

const KINDS: PipeKind[] = ['kafka', 'kinesis', 'objectStorage', 'postgres'];
/** Creates a pipe and waits until its state settles (Completed for a one-shot object-storage pipe). */
async function settledPipe(kind: PipeKind = 'kafka'): Promise<Json> {
  const pipe = await createPipe(api, serviceId, kind);
  return waitPipeState(api, serviceId, pipe.id, kind === 'objectStorage' ? 'Completed' : 'Running');
}
const listPipes = async (sid = serviceId): Promise<Json[]> => expectOk(await api.get(pipesPath(sid)));

/** No secret the tests sent (credentials, accessKey, schemaRegistry credentials, roles) comes back. */
function expectNoSecrets(reply: Reply): void {
  expect(reply.text).not.toContain(SECRET);
  const pipes: Json[] = Array.isArray(reply.body.result) ? reply.body.result : [reply.body.result];
  for (const pipe of pipes) {
    const source = pipe.source ?? {};
    expect(source).not.toHaveProperty('validateSamples');
    expect(source.kafka ?? {}).not.toHaveProperty('credentials');
    expect(source.kafka?.schemaRegistry ?? {}).not.toHaveProperty('credentials');
    expect(source.objectStorage ?? {}).not.toHaveProperty('accessKey');
    expect(source.kinesis ?? {}).not.toHaveProperty('accessKey');
    expect(source.postgres ?? {}).not.toHaveProperty('credentials');
    expect(pipe.destination ?? {}).not.toHaveProperty('roles');
  }
}

/** A request that must be refused with 400 naming `field` and leave the pipes of the service unchanged. */
async function expectCreateRejected(body: Record<string, unknown>, field: string | RegExp): Promise<string> {
  const before = (await listPipes()).map((p) => p.id);
  const message = expectMgmtError(await api.post(pipesPath(serviceId), body), 400, field);
  expect((await listPipes()).map((p) => p.id)).toEqual(before);
  return message;
}

describe('create (operation 4), get (6), list (5)', () => {
  it.each(KINDS)('creates a %s pipe and returns the pipe object', async (kind) => {
    const body = pipeBody(kind);
    const reply = await api.post(pipesPath(serviceId), body);
    const pipe = expectOk(reply);
    expect(pipe.id).toMatch(UUID);
    expect(pipe).toMatchObject({
      serviceId,
      name: body.name,
      fieldMappings: body.fieldMappings,
      scaling: body.scaling,
      destination: {
        database: 'default',
        table: 'events',
        managedTable: true,
        columns: body.destination.columns,
      },
    });
    expect(PIPE_STATES).toContain(pipe.state);
    expect(Object.keys(pipe.source)).toEqual([kind]);
    expect(pipe.settings).toBeTypeOf('object');
    expect(pipe.createdAt).toBeTypeOf('string');
    expect(pipe.updatedAt).toBeTypeOf('string');
    expectNoSecrets(reply);
  });

  it('returns the non-secret source fields as sent', async () => {
    const kafka = await createPipe(api, serviceId, 'kafka');
    expect(kafka.source.kafka).toMatchObject({
      brokers: 'broker-1:9092,broker-2:9092',
      topics: 'events',
      consumerGroup: 'sluice',
      offset: { timestamp: '2026-01-31T14:05' },
      schemaRegistry: { url: 'https://registry.example.com' },
    });
    const postgres = await createPipe(api, serviceId, 'postgres');
    expect(postgres.source.postgres).toMatchObject({
      host: 'db.example.com',
      port: 5432,
      database: 'app',
      tableMappings: [{ sourceSchemaName: 'public', sourceTable: 'events', targetTable: 'events' }],
    });
    const objectStorage = await createPipe(api, serviceId, 'objectStorage', {
      source: {
        objectStorage: {
          url: 'https://bucket/*.csv',
          connectionString: 'DefaultEndpointsProtocol=https',
          accessKey: accessKey(),
        },
      },
    });
    expect(objectStorage.source.objectStorage.connectionString).toBe('DefaultEndpointsProtocol=https');
  });

  it.each(KINDS)('never echoes secrets of a %s pipe in GET and list', async (kind) => {
    const pipe = await createPipe(api, serviceId, kind);
    expectNoSecrets(await api.get(pipePath(serviceId, pipe.id)));
    expectNoSecrets(await api.get(pipesPath(serviceId)));
  });

  it('lists the pipes of one service only; GET through another service is 404', async () => {
    const other = (await createRunningService(api)).id;
    const a = await createPipe(api, serviceId);
    const b = await createPipe(api, serviceId, 'kinesis');
    const c = await createPipe(api, other);
    expect((await listPipes()).map((p) => p.id).sort()).toEqual([a.id, b.id].sort());
    expect((await listPipes(other)).map((p) => p.id)).toEqual([c.id]);
    expect((await getPipe(api, serviceId, a.id)).id).toBe(a.id);
    expectMgmtError(await api.get(pipePath(other, a.id)), 404);
  });

  it('GET of an unknown pipe and pipes of an unknown service are 404', async () => {
    expectMgmtError(await api.get(pipePath(serviceId, randomUUID())), 404);
    expectMgmtError(await api.get(pipesPath(randomUUID())), 404);
    expectMgmtError(await api.post(pipesPath(randomUUID()), pipeBody()), 404);
  });
});

describe('create: validation (nothing is created on a 400)', () => {
  it('fieldMappings must cover every destination column', async () => {
    const body = pipeBody('kafka');
    body.destination.columns.push({ name: 'a', type: 'String' });
    const message = await expectCreateRejected(body, 'fieldMappings');
    expect(message).toBe('fieldMappings must cover every destination column; missing: a');
  });

  it('a destination without columns needs no mappings', async () => {
    const body = pipeBody('kafka', { fieldMappings: [] });
    delete body.destination.columns;
    expectOk(await api.post(pipesPath(serviceId), body));
  });

  it('the source must name exactly one kind', async () => {
    await expectCreateRejected(pipeBody('kafka', { source: {} }), 'source');
    await expectCreateRejected(
      pipeBody('kafka', { source: { ...pipeBody('kafka').source, ...pipeBody('kinesis').source } }),
      'source',
    );
  });

  it.each([
    ['name', { name: undefined }],
    ['source', { source: undefined }],
    ['destination', { destination: undefined }],
  ])('requires %s', async (field, override) => {
    await expectCreateRejected(pipeBody('kafka', override), field);
  });

  it.each([
    ['source.kafka.brokers', (b: Json) => delete b.source.kafka.brokers],
    ['source.kafka.topics', (b: Json) => delete b.source.kafka.topics],
    [
      'source.kafka.offset.timestamp',
      (b: Json) => (b.source.kafka.offset.timestamp = '2026-01-31T14:05:00Z'),
    ],
    ['source.kafka.schemaRegistry.url', (b: Json) => (b.source.kafka.schemaRegistry.url = 'not a url')],
    ['destination.database', (b: Json) => delete b.destination.database],
    ['destination.table', (b: Json) => delete b.destination.table],
    ['destination.colour', (b: Json) => (b.destination.colour = 'blue')],
  ])('refuses a bad %s, naming it', async (field, mutate) => {
    const body = pipeBody('kafka');
    mutate(body);
    await expectCreateRejected(body, field);
  });

  it('refuses a bad postgres port and a bad settings value, naming them', async () => {
    const body = pipeBody('postgres');
    body.source.postgres.port = 70_000;
    await expectCreateRejected(body, 'source.postgres.port');
    await expectCreateRejected(
      pipeBody('kafka', { settings: { engine_max_threads: 65 } }),
      'settings.engine_max_threads',
    );
  });

  it('kafka reversePrivateEndpointIds must be uuids', async () => {
    const body = pipeBody('kafka');
    body.source.kafka.reversePrivateEndpointIds = ['rpe-1'];
    await expectCreateRejected(body, 'source.kafka.reversePrivateEndpointIds[0]');
    body.source.kafka.reversePrivateEndpointIds = [randomUUID()];
    expect(
      (await createPipe(api, serviceId, 'kafka', { source: body.source })).source.kafka
        .reversePrivateEndpointIds,
    ).toEqual(body.source.kafka.reversePrivateEndpointIds);
  });

  it('accepts settings at create and returns them', async () => {
    const pipe = await createPipe(api, serviceId, 'kafka', {
      settings: { streaming_max_insert_wait_ms: 500, engine_parallel_view_processing: true },
    });
    expect(pipe.settings).toMatchObject({
      streaming_max_insert_wait_ms: 500,
      engine_parallel_view_processing: true,
    });
  });
});

describe('scaling bounds (replicas 1..40, replicaCpuMillicores 125..2000, replicaMemoryGb 0.5..8)', () => {
  const cases = Object.entries(SCALING_BOUNDS) as Array<
    [keyof typeof SCALING_BOUNDS, { min: number; max: number }]
  >;
  const below = (field: string, min: number) => (field === 'replicaMemoryGb' ? min - 0.25 : min - 1);
  const above = (field: string, max: number) => (field === 'replicaMemoryGb' ? max + 0.5 : max + 1);

  it.each(cases)('%s accepts its min and max on create', async (field, { min, max }) => {
    for (const value of [min, max]) {
      const pipe = await createPipe(api, serviceId, 'kafka', { scaling: { [field]: value } });
      expect(pipe.scaling[field]).toBe(value);
    }
  });

  it.each(cases)('%s refuses min−1 and max+1 on create', async (field, { min, max }) => {
    for (const value of [below(field, min), above(field, max)]) {
      await expectCreateRejected(pipeBody('kafka', { scaling: { [field]: value } }), `scaling.${field}`);
    }
  });

  it.each([
    ['replicas', 1.5],
    ['replicaCpuMillicores', 500.5],
  ])('%s must be an integer (%s refused)', async (field, value) => {
    await expectCreateRejected(pipeBody('kafka', { scaling: { [field]: value } }), `scaling.${field}`);
  });

  it.each(cases)('%s is checked on PATCH too', async (field, { min, max }) => {
    const pipe = await settledPipe();
    expectOk(await api.patch(pipePath(serviceId, pipe.id), { scaling: { [field]: max } }));
    expectOk(await api.patch(pipePath(serviceId, pipe.id), { scaling: { [field]: min } }));
    expectMgmtError(
      await api.patch(pipePath(serviceId, pipe.id), { scaling: { [field]: above(field, max) } }),
      400,
      `scaling.${field}`,
    );
    expect((await getPipe(api, serviceId, pipe.id)).scaling[field]).toBe(min);
  });
});

describe('update (PATCH, extension)', () => {
  it('changes name, scaling, fieldMappings and destination.columns', async () => {
    const pipe = await createPipe(api, serviceId);
    const columns = [...pipe.destination.columns, { name: 'extra', type: 'String' }];
    const fieldMappings = [...pipe.fieldMappings, { sourceField: 'x', destinationField: 'extra' }];
    const reply = await api.patch(pipePath(serviceId, pipe.id), {
      name: 'renamed',
      scaling: { replicas: 3 },
      destination: { columns },
      fieldMappings,
    });
    const updated = expectOk(reply);
    expect(updated).toMatchObject({ id: pipe.id, name: 'renamed', fieldMappings, destination: { columns } });
    expect(updated.scaling.replicas).toBe(3);
    expectNoSecrets(reply);
    expect(await getPipe(api, serviceId, pipe.id)).toMatchObject({ name: 'renamed', fieldMappings });
  });

  it.each([
    ['kafka', { source: { kafka: { credentials: credentials() } } }],
    ['kafka', { source: { kafka: { schemaRegistry: { credentials: credentials() } } } }],
    ['kinesis', { source: { kinesis: { accessKey: accessKey() } } }],
    ['objectStorage', { source: { objectStorage: { accessKey: accessKey() } } }],
    ['postgres', { source: { postgres: { credentials: credentials() } } }],
  ] as Array<[PipeKind, Json]>)('rotates %s credentials without echoing them', async (kind, body) => {
    const pipe = await createPipe(api, serviceId, kind);
    const reply = await api.patch(pipePath(serviceId, pipe.id), body);
    expectOk(reply);
    expectNoSecrets(reply);
  });

  it.each([
    ['source.kafka.brokers', 'kafka', { source: { kafka: { brokers: 'other:9092' } } }],
    ['source.kafka.topics', 'kafka', { source: { kafka: { topics: 'other' } } }],
    ['source.kafka.consumerGroup', 'kafka', { source: { kafka: { consumerGroup: 'other' } } }],
    ['source.kafka.offset', 'kafka', { source: { kafka: { offset: { timestamp: '2026-02-01T00:00' } } } }],
    ['source.objectStorage.url', 'objectStorage', { source: { objectStorage: { url: 'https://x/*.csv' } } }],
    ['source.kinesis.streamName', 'kinesis', { source: { kinesis: { streamName: 'other' } } }],
    ['source.postgres.host', 'postgres', { source: { postgres: { host: 'other' } } }],
    ['source.postgres.port', 'postgres', { source: { postgres: { port: 5433 } } }],
    ['source.postgres.database', 'postgres', { source: { postgres: { database: 'other' } } }],
    ['destination.database', 'kafka', { destination: { database: 'other' } }],
    ['destination.table', 'kafka', { destination: { table: 'other' } }],
    ['destination.managedTable', 'kafka', { destination: { managedTable: false } }],
    ['destination.tableDefinition', 'kafka', { destination: { tableDefinition: { primaryKey: 'id' } } }],
  ] as Array<[string, PipeKind, Json]>)(
    'refuses changing %s (the pipe must be replaced)',
    async (field, kind, body) => {
      const pipe = await settledPipe(kind);
      const before = await getPipe(api, serviceId, pipe.id);
      expectMgmtError(await api.patch(pipePath(serviceId, pipe.id), body), 400, field);
      expect(await getPipe(api, serviceId, pipe.id)).toEqual(before);
    },
  );

  it('refuses changing the source kind', async () => {
    const pipe = await settledPipe('kafka');
    expectMgmtError(
      await api.patch(pipePath(serviceId, pipe.id), { source: { kinesis: { accessKey: accessKey() } } }),
      400,
      /^source/,
    );
    expect(Object.keys((await getPipe(api, serviceId, pipe.id)).source)).toEqual(['kafka']);
  });

  it('a PATCH with one bad field changes nothing', async () => {
    const pipe = await settledPipe();
    const before = await getPipe(api, serviceId, pipe.id);
    expectMgmtError(
      await api.patch(pipePath(serviceId, pipe.id), {
        name: 'changed',
        scaling: { replicas: SCALING_BOUNDS.replicas.max + 1 },
      }),
      400,
      'scaling.replicas',
    );
    expectMgmtError(
      await api.patch(pipePath(serviceId, pipe.id), {
        name: 'changed',
        source: { kafka: { brokers: 'x:1' } },
      }),
      400,
      'source.kafka.brokers',
    );
    expect(await getPipe(api, serviceId, pipe.id)).toEqual(before);
  });

  it('the resulting pipe must still map every destination column', async () => {
    const pipe = await settledPipe();
    const before = await getPipe(api, serviceId, pipe.id);
    const message = expectMgmtError(
      await api.patch(pipePath(serviceId, pipe.id), {
        destination: { columns: [...pipe.destination.columns, { name: 'b', type: 'String' }] },
      }),
      400,
      'fieldMappings',
    );
    expect(message).toBe('fieldMappings must cover every destination column; missing: b');
    expectMgmtError(
      await api.patch(pipePath(serviceId, pipe.id), { fieldMappings: pipe.fieldMappings.slice(1) }),
      400,
      'fieldMappings',
    );
    expect(await getPipe(api, serviceId, pipe.id)).toEqual(before);
  });

  it('refuses an empty PATCH and an unknown pipe', async () => {
    const pipe = await createPipe(api, serviceId);
    expectMgmtError(await api.patch(pipePath(serviceId, pipe.id), {}), 400);
    expectMgmtError(await api.patch(pipePath(serviceId, randomUUID()), { name: 'x' }), 404);
  });
});

describe('delete (contract: exists; path DELETE .../pipes/{pipeId})', () => {
  it.each(KINDS)('deletes a %s pipe; then GET is 404 and the list omits it', async (kind) => {
    const pipe = await createPipe(api, serviceId, kind);
    expectOk(await api.delete(pipePath(serviceId, pipe.id)));
    expectMgmtError(await api.get(pipePath(serviceId, pipe.id)), 404);
    expect((await listPipes()).map((p) => p.id)).not.toContain(pipe.id);
  });

  it('is allowed in any state (Stopped, Failed)', async () => {
    for (const state of ['Stopped', 'Failed', 'Provisioning']) {
      const pipe = await createPipe(api, serviceId);
      await ctl.forceState('pipe', pipe.id, state);
      expectOk(await api.delete(pipePath(serviceId, pipe.id)));
      expectMgmtError(await api.get(pipePath(serviceId, pipe.id)), 404);
    }
  });

  it('of an unknown pipe is 404', async () => {
    expectMgmtError(await api.delete(pipePath(serviceId, randomUUID())), 404);
  });
});

describe('424 when the owning service is not running', () => {
  it.each(['idle', 'stopped', 'provisioning', 'degraded'])('pipe create on a %s service', async (state) => {
    await ctl.forceState('service', serviceId, state);
    const before = await listPipes();
    const message = expectMgmtError(await api.post(pipesPath(serviceId), pipeBody()), 424);
    expect(message).toBe(
      `pipe creation is allowed only when the service is running. Current state: ${state}`,
    );
    expect(await listPipes()).toEqual(before);
  });

  it('pipe create after the stop command', async () => {
    expectOk(await api.patch(`${servicePath(serviceId)}/state`, { command: 'stop' }));
    await waitServiceState(api, serviceId, 'stopped');
    expectMgmtError(await api.post(pipesPath(serviceId), pipeBody()), 424, /Current state: stopped/);
  });

  it('every change of an existing pipe (PATCH, settings, state); reads still work', async () => {
    const pipe = await settledPipe();
    await ctl.forceState('service', serviceId, 'idle');
    const before = await getPipe(api, serviceId, pipe.id);
    expectMgmtError(await api.patch(pipePath(serviceId, pipe.id), { name: 'x' }), 424, /Current state: idle/);
    expectMgmtError(
      await api.put(`${pipePath(serviceId, pipe.id)}/settings`, { engine_max_threads: 4 }),
      424,
      /Current state: idle/,
    );
    expectMgmtError(
      await api.patch(`${pipePath(serviceId, pipe.id)}/state`, { command: 'stop' }),
      424,
      /Current state: idle/,
    );
    expect(await getPipe(api, serviceId, pipe.id)).toEqual(before);
    expect((await listPipes()).map((p) => p.id)).toEqual([pipe.id]);
  });
});
