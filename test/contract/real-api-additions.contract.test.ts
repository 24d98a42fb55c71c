/**
 * What the real API also takes (api-behaviour.md, last section): requests its official client sends, which the
 * emulator must accept like the real API does — and the things it must still refuse, naming the field.
 */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { SCALING_BOUNDS } from '../../src/cloud/schemas/index.ts';
import { expectMgmtError, expectOk, useContractEmulator } from './support/api.ts';
import type { Json } from './support/api.ts';
import {
  createPipe,
  createRunningService,
  getPipe,
  pipeBody,
  pipePath,
  pipesPath,
  SECRET,
  serviceBody,
  servicePath,
  waitPipeState,
} from './support/fixtures.ts';
import type { PipeKind } from './support/fixtures.ts';

let serviceId: string;

const { api, ctl } = useContractEmulator();
beforeEach(async () => {
  serviceId = (await createRunningService(api)).id;
});

/** A pipe body whose source (of `kind`) is merged with `fields`. */
function bodyWith(kind: PipeKind, fields: Record<string, unknown>): Record<string, Json> {
  const body = pipeBody(kind);
  Object.assign(body.source[kind], fields);
  return body;
}

describe('paths with a trailing slash are the same route', () => {
  it('POST …/pipes/ creates a pipe', async () => {
    const pipe = expectOk(await api.post(`${pipesPath(serviceId)}/`, pipeBody('kafka')));
    expect(expectOk(await api.get(pipesPath(serviceId))).map((p: Json) => p.id)).toEqual([pipe.id]);
  });

  it('GET …/services/{id}/ answers the service, and the call log names the route', async () => {
    await ctl.clearCalls();
    expect(expectOk(await api.get(`${servicePath(serviceId)}/`)).id).toBe(serviceId);
    const { calls } = await ctl.calls();
    expect(calls.map((c) => c.route)).toEqual(['/v1/organizations/:organizationId/services/:serviceId']);
  });
});

describe('isReadonly', () => {
  it('false is accepted without dataWarehouseId', async () => {
    const { service } = expectOk(await api.post('/services', serviceBody({ isReadonly: false })));
    expect(service.isReadonly).toBe(false);
  });

  it('true without dataWarehouseId is still refused, naming isReadonly', async () => {
    expectMgmtError(await api.post('/services', serviceBody({ isReadonly: true })), 400, 'isReadonly');
  });
});

describe('privateEndpointConfig and backupConfiguration (extensions)', () => {
  it('GET privateEndpointConfig answers {endpointServiceId, privateDnsHostname}, the same each time', async () => {
    const config = expectOk(await api.get(`${servicePath(serviceId)}/privateEndpointConfig`));
    expect(config).toEqual({
      endpointServiceId: expect.stringMatching(/^com\.amazonaws\.vpce\.us-east-1\.vpce-svc-/),
      privateDnsHostname: expect.stringContaining('us-east-1'),
    });
    expect(expectOk(await api.get(`${servicePath(serviceId)}/privateEndpointConfig`))).toEqual(config);
  });

  it('GET backupConfiguration answers the backup schedule, the defaults until one is set', async () => {
    expect(expectOk(await api.get(`${servicePath(serviceId)}/backupConfiguration`))).toEqual({
      backupPeriodInHours: 24,
      backupRetentionPeriodInHours: 24,
      backupStartTime: null,
    });
  });

  it.each(['privateEndpointConfig', 'backupConfiguration'])(
    '%s of an unknown service is 404',
    async (leaf) => {
      expectMgmtError(await api.get(`${servicePath(randomUUID())}/${leaf}`), 404);
    },
  );
});

describe("the real API's pipe fields", () => {
  const accepted: Array<[PipeKind, Record<string, unknown>]> = [
    [
      'kafka',
      {
        type: 'confluent',
        format: 'AvroConfluent',
        authentication: 'SCRAM-SHA-512',
        offset: { strategy: 'from_timestamp', timestamp: '2026-01-31T14:05' },
        exactlyOnce: true,
      },
    ],
    [
      'objectStorage',
      {
        type: 'gcs',
        format: 'Parquet',
        authentication: 'IAM_USER',
        compression: 'zstd',
        skipInitialLoad: true,
        startAfter: 'data/2026-01-01.parquet',
      },
    ],
    [
      'kinesis',
      { format: 'Avro', iteratorType: 'AT_TIMESTAMP', authentication: 'IAM_USER', timestamp: 1_767_225_600 },
    ],
    [
      'postgres',
      {
        type: 'supabase',
        authentication: 'basic',
        tlsHost: 'db.internal.example.com',
        caCertificate: '-----BEGIN CERTIFICATE-----',
        settings: { replicationMode: 'cdc_only', syncIntervalSeconds: 30 },
        tableMappings: [
          {
            sourceSchemaName: 'public',
            sourceTable: 'orders',
            targetTable: 'orders',
            tableEngine: 'ReplacingMergeTree',
          },
        ],
      },
    ],
  ];

  it.each(accepted)('%s: accepted and echoed (credentials still not)', async (kind, fields) => {
    const reply = await api.post(pipesPath(serviceId), bodyWith(kind, fields));
    const pipe = expectOk(reply);
    expect(pipe.source[kind]).toMatchObject(fields);
    expect(reply.text).not.toContain(SECRET);
    expect((await getPipe(api, serviceId, pipe.id)).source[kind]).toMatchObject(fields);
  });

  it('destination.tableDefinition.engine.type is accepted and echoed', async () => {
    const body = pipeBody('kafka');
    body.destination.tableDefinition = { engine: { type: 'SummingMergeTree' }, sortingKey: ['id'] };
    const pipe = expectOk(await api.post(pipesPath(serviceId), body));
    expect(pipe.destination.tableDefinition).toEqual(body.destination.tableDefinition);
  });

  it("a postgres pipe's destination names only database (tables come from tableMappings)", async () => {
    const body = pipeBody('postgres', { destination: { database: 'replica' }, fieldMappings: [] });
    const pipe = expectOk(await api.post(pipesPath(serviceId), body));
    expect(pipe.destination).toEqual({ database: 'replica' });
  });

  it('any other pipe still needs destination.table', async () => {
    const body = pipeBody('kafka');
    delete body.destination.table;
    expectMgmtError(await api.post(pipesPath(serviceId), body), 400, 'destination.table');
  });

  const rejected: Array<[string, PipeKind, Record<string, unknown>]> = [
    ['source.kafka.type', 'kafka', { type: 'pulsar' }],
    ['source.kafka.format', 'kafka', { format: 'Protobuf' }],
    ['source.kafka.authentication', 'kafka', { authentication: 'KERBEROS' }],
    ['source.kafka.offset.strategy', 'kafka', { offset: { strategy: 'from_middle' } }],
    ['source.kafka.exactlyOnce', 'kafka', { exactlyOnce: 'yes' }],
    ['source.objectStorage.type', 'objectStorage', { type: 'ftp' }],
    ['source.objectStorage.format', 'objectStorage', { format: 'XML' }],
    ['source.objectStorage.authentication', 'objectStorage', { authentication: 'PLAIN' }],
    ['source.objectStorage.compression', 'objectStorage', { compression: 'zip' }],
    ['source.objectStorage.skipInitialLoad', 'objectStorage', { skipInitialLoad: 1 }],
    ['source.kinesis.format', 'kinesis', { format: 'CSV' }],
    ['source.kinesis.iteratorType', 'kinesis', { iteratorType: 'AT_SEQUENCE_NUMBER' }],
    ['source.kinesis.authentication', 'kinesis', { authentication: 'CONNECTION_STRING' }],
    ['source.kinesis.timestamp', 'kinesis', { timestamp: '2026-01-31T14:05' }],
    ['source.postgres.type', 'postgres', { type: 'mysql' }],
    ['source.postgres.authentication', 'postgres', { authentication: 'IAM_USER' }],
    ['source.postgres.settings.replicationMode', 'postgres', { settings: { replicationMode: 'logical' } }],
    [
      'source.postgres.tableMappings[0].tableEngine',
      'postgres',
      {
        tableMappings: [
          { sourceSchemaName: 'public', sourceTable: 'a', targetTable: 'a', tableEngine: 'Log' },
        ],
      },
    ],
    ['source.kafka.nonsense', 'kafka', { nonsense: true }],
  ];

  it.each(rejected)('refuses a bad %s, naming it', async (field, kind, fields) => {
    expectMgmtError(await api.post(pipesPath(serviceId), bodyWith(kind, fields)), 400, field);
    expect(expectOk(await api.get(pipesPath(serviceId)))).toEqual([]);
  });

  it('refuses a bad destination.tableDefinition.engine.type, naming it', async () => {
    const body = pipeBody('kafka');
    body.destination.tableDefinition = { engine: { type: 'Log' } };
    expectMgmtError(
      await api.post(pipesPath(serviceId), body),
      400,
      'destination.tableDefinition.engine.type',
    );
  });
});

describe('kafka offset strategies', () => {
  it.each(['from_beginning', 'from_latest'])('%s needs no timestamp', async (strategy) => {
    const pipe = expectOk(await api.post(pipesPath(serviceId), bodyWith('kafka', { offset: { strategy } })));
    expect(pipe.source.kafka.offset).toEqual({ strategy });
  });

  it('from_timestamp without a timestamp is refused, naming the timestamp', async () => {
    const body = bodyWith('kafka', { offset: { strategy: 'from_timestamp' } });
    const message = expectMgmtError(
      await api.post(pipesPath(serviceId), body),
      400,
      'source.kafka.offset.timestamp',
    );
    expect(message).toMatch(/from_timestamp/);
  });

  it('a timestamp with from_latest is refused, naming the timestamp', async () => {
    const body = bodyWith('kafka', { offset: { strategy: 'from_latest', timestamp: '2026-01-31T14:05' } });
    expectMgmtError(await api.post(pipesPath(serviceId), body), 400, 'source.kafka.offset.timestamp');
  });

  it("the contract's {timestamp} without a strategy is still accepted", async () => {
    const offset = { timestamp: '2026-01-31T14:05' };
    const pipe = expectOk(await api.post(pipesPath(serviceId), bodyWith('kafka', { offset })));
    expect(pipe.source.kafka.offset).toEqual(offset);
  });
});

describe('PATCH …/pipes/{pipeId}/scaling (extension)', () => {
  const scalingPath = (pipeId: string) => `${pipePath(serviceId, pipeId)}/scaling`;

  it('changes only the keys sent and answers the pipe', async () => {
    const created = await createPipe(api, serviceId);
    const pipe = expectOk(await api.patch(scalingPath(created.id), { replicas: 3, replicaMemoryGb: 4 }));
    expect(pipe.id).toBe(created.id);
    expect(pipe.scaling).toEqual({ ...created.scaling, replicas: 3, replicaMemoryGb: 4 });
    expect((await getPipe(api, serviceId, created.id)).scaling).toEqual(pipe.scaling);
  });

  it.each([
    ['replicas', SCALING_BOUNDS.replicas.max + 1],
    ['replicas', SCALING_BOUNDS.replicas.min - 1],
    ['replicaCpuMillicores', SCALING_BOUNDS.replicaCpuMillicores.max + 1],
    ['replicaMemoryGb', SCALING_BOUNDS.replicaMemoryGb.min / 2],
  ])('refuses %s = %s, naming it, and changes nothing', async (field, value) => {
    const created = await createPipe(api, serviceId);
    expectMgmtError(await api.patch(scalingPath(created.id), { [field]: value }), 400, field);
    expect((await getPipe(api, serviceId, created.id)).scaling).toEqual(created.scaling);
  });

  it('refuses an empty body and unknown keys', async () => {
    const created = await createPipe(api, serviceId);
    expectMgmtError(await api.patch(scalingPath(created.id), {}), 400, /scaling must set at least one key/);
    expectMgmtError(await api.patch(scalingPath(created.id), { cpus: 2 }), 400, 'cpus');
  });

  it('needs a running service (424) and an existing pipe (404)', async () => {
    const created = await createPipe(api, serviceId);
    await waitPipeState(api, serviceId, created.id, 'Running');
    await ctl.forceState('service', serviceId, 'idle');
    expectMgmtError(await api.patch(scalingPath(created.id), { replicas: 2 }), 424, /Current state: idle/);
    await ctl.forceState('service', serviceId, 'running');
    expectMgmtError(await api.patch(scalingPath(randomUUID()), { replicas: 2 }), 404);
  });
});
