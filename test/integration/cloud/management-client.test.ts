import { describe, expect, it } from 'vitest';
import { ApiError, isConflict, isNotFound } from '../../../src/cloud/errors.ts';
import {
  calls,
  eventually,
  forceState,
  runningService,
  useEmulator,
  useManagementClient,
} from './support.ts';

const emu = useEmulator();
const client = useManagementClient(emu);

const kafkaPipe = (name = 'orders') => ({
  name,
  source: {
    kafka: {
      brokers: 'broker-1:9092',
      topics: 'orders',
      credentials: { username: 'ingest', password: 'kafka-password-1' },
    },
  },
  destination: {
    database: 'default',
    table: 'orders',
    managedTable: true,
    columns: [{ name: 'id', type: 'UInt64' }],
  },
  fieldMappings: [{ sourceField: 'id', destinationField: 'id' }],
});

describe('ManagementClient services', () => {
  it('creates a service and returns it with its one-time password', async () => {
    const created = await client.createService({
      name: 'analytics',
      provider: 'aws',
      region: 'eu-west-1',
      tags: [{ key: 'sluice.dev/uid', value: 'u-1' }],
    });
    expect(created.password).toEqual(expect.any(String));
    expect(created.service).toMatchObject({ name: 'analytics', region: 'eu-west-1', state: 'provisioning' });
    const read = await eventually(
      () => client.getService(created.service.id),
      (s) => expect(s.state).toBe('running'),
    );
    expect(read.id).toBe(created.service.id);
    expect(read.tags).toEqual([{ key: 'sluice.dev/uid', value: 'u-1' }]);
  });

  it('lists services, filtered by every given tag', async () => {
    const a = await client.createService({
      name: 'a',
      provider: 'aws',
      region: 'us-east-1',
      tags: [
        { key: 'team', value: 'data' },
        { key: 'env', value: 'prod' },
      ],
    });
    await client.createService({
      name: 'b',
      provider: 'aws',
      region: 'us-east-1',
      tags: [{ key: 'team', value: 'data' }],
    });
    await client.createService({ name: 'c', provider: 'gcp', region: 'us-east1' });

    expect((await client.listServices()).map((s) => s.name).sort()).toEqual(['a', 'b', 'c']);
    expect((await client.listServices({ tags: { team: 'data' } })).map((s) => s.name).sort()).toEqual([
      'a',
      'b',
    ]);
    const both = await client.listServices({
      tags: [
        { key: 'team', value: 'data' },
        { key: 'env', value: 'prod' },
      ],
    });
    expect(both.map((s) => s.id)).toEqual([a.service.id]);
    expect(await client.listServices({ tags: { team: 'nobody' } })).toEqual([]);
    const listed = (await calls(emu)).filter((c) => c.method === 'GET' && c.route.endsWith('/services'));
    expect(listed).toHaveLength(4);
  });

  it('patches a service with {add, remove} edits', async () => {
    const id = await runningService(client);
    const updated = await client.updateService(id, {
      name: 'renamed',
      ipAccessList: { add: [{ source: '10.0.0.0/8', description: 'office' }] },
      tags: { add: [{ key: 'k', value: 'v' }] },
    });
    expect(updated).toMatchObject({ name: 'renamed', tags: [{ key: 'k', value: 'v' }] });
    expect(updated.ipAccessList).toContainEqual({ source: '10.0.0.0/8', description: 'office' });
    const again = await client.updateService(id, { ipAccessList: { remove: [{ source: '10.0.0.0/8' }] } });
    expect(again.ipAccessList ?? []).not.toContainEqual(expect.objectContaining({ source: '10.0.0.0/8' }));
  });

  it('stops, starts and awakes a service', async () => {
    const id = await runningService(client);
    await client.changeServiceState(id, 'stop');
    await eventually(
      () => client.getService(id),
      (s) => expect(s.state).toBe('stopped'),
    );
    await client.changeServiceState(id, 'start');
    await eventually(
      () => client.getService(id),
      (s) => expect(s.state).toBe('running'),
    );
    await forceState(emu, 'service', id, 'idle');
    await client.changeServiceState(id, 'awake');
    await eventually(
      () => client.getService(id),
      (s) => expect(s.state).toBe('running'),
    );
  });

  it('resets the password', async () => {
    const id = await runningService(client);
    const first = await client.resetServicePassword(id);
    const second = await client.resetServicePassword(id);
    expect(first.password).toEqual(expect.any(String));
    expect(second.password).not.toBe(first.password);
  });

  it('refuses to delete a running service (409) and deletes a stopped one', async () => {
    const id = await runningService(client);
    const refused = await client.deleteService(id).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect(isConflict(refused)).toBe(true);
    expect(refused).toMatchObject({ status: 409, code: 'CONFLICT', method: 'DELETE', attempts: 1 });
    expect((refused as ApiError).apiMessage).toContain("Current state: 'running'");
    expect((refused as ApiError).requestId).toMatch(/^[0-9a-f-]{36}$/);

    await client.changeServiceState(id, 'stop');
    await eventually(
      () => client.getService(id),
      (s) => expect(s.state).toBe('stopped'),
    );
    await client.deleteService(id);
    const gone = await eventually(
      () => client.getService(id).catch((err: unknown) => err),
      (err) => expect(isNotFound(err)).toBe(true),
    );
    expect(gone).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('resizes a service in place and reads its private endpoint and backup configuration', async () => {
    const id = await runningService(client);
    const resized = await client.updateReplicaScaling(id, { numReplicas: 4, idleTimeoutMinutes: 30 });
    expect(resized).toMatchObject({ id, numReplicas: 4, idleTimeoutMinutes: 30 });
    const refused = await client.updateReplicaScaling(id, { numReplicas: 99 }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect((refused as ApiError).apiMessage).toMatch(/^numReplicas /);
    expect(await client.getPrivateEndpointConfig(id)).toEqual({
      endpointServiceId: expect.any(String),
      privateDnsHostname: expect.any(String),
    });
    expect(await client.getBackupConfiguration(id)).toMatchObject({
      backupPeriodInHours: expect.any(Number),
    });
  });

  it('turns an invalid body into a BAD_REQUEST ApiError that names the field', async () => {
    const err = await client
      .createService({ name: 'x', provider: 'aws', region: 'us-east-1', maxReplicaMemoryGb: 10 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      status: 400,
      code: 'BAD_REQUEST',
      retryable: false,
      mayHaveSucceeded: false,
    });
    expect((err as ApiError).apiMessage).toMatch(/^maxReplicaMemoryGb /);
    expect((err as ApiError).isBadRequest()).toBe(true);
  });
});

describe('ManagementClient pipes', () => {
  it('creates, lists, reads, patches, stops, starts and deletes a pipe', async () => {
    const serviceId = await runningService(client);
    const pipe = await client.createPipe(serviceId, kafkaPipe());
    expect(pipe).toMatchObject({ serviceId, name: 'orders' });
    expect(JSON.stringify(pipe)).not.toContain('kafka-password-1');

    await eventually(
      () => client.getPipe(serviceId, pipe.id),
      (p) => expect(p.state).toBe('Running'),
    );
    expect((await client.listPipes(serviceId)).map((p) => p.id)).toEqual([pipe.id]);

    const renamed = await client.updatePipe(serviceId, pipe.id, {
      name: 'orders-v2',
      source: { kafka: { credentials: { username: 'ingest', password: 'rotated-password-2' } } },
    });
    expect(renamed.name).toBe('orders-v2');

    await client.changePipeState(serviceId, pipe.id, 'stop');
    await eventually(
      () => client.getPipe(serviceId, pipe.id),
      (p) => expect(p.state).toBe('Stopped'),
    );
    await client.changePipeState(serviceId, pipe.id, 'start');
    await eventually(
      () => client.getPipe(serviceId, pipe.id),
      (p) => expect(p.state).toBe('Running'),
    );

    await client.deletePipe(serviceId, pipe.id);
    await eventually(
      () => client.getPipe(serviceId, pipe.id).catch((err: unknown) => err),
      (err) => expect(isNotFound(err)).toBe(true),
    );
  });

  it('scales a pipe', async () => {
    const serviceId = await runningService(client);
    const pipe = await client.createPipe(serviceId, kafkaPipe());
    const scaled = await client.updatePipeScaling(serviceId, pipe.id, { replicas: 2, replicaMemoryGb: 1 });
    expect(scaled).toMatchObject({ id: pipe.id, scaling: { replicas: 2, replicaMemoryGb: 1 } });
  });

  it('reads and merges pipe settings', async () => {
    const serviceId = await runningService(client);
    const pipe = await client.createPipe(serviceId, kafkaPipe());
    await eventually(
      () => client.getPipe(serviceId, pipe.id),
      (p) => expect(p.state).toBe('Running'),
    );
    const put = await client.putPipeSettings(serviceId, pipe.id, { streaming_max_insert_wait_ms: 1_000 });
    expect(put).toMatchObject({ streaming_max_insert_wait_ms: 1_000 });
    await client.putPipeSettings(serviceId, pipe.id, { engine_max_threads: 4 });
    expect(await client.getPipeSettings(serviceId, pipe.id)).toMatchObject({
      streaming_max_insert_wait_ms: 1_000,
      engine_max_threads: 4,
    });
  });

  it('reports FAILED_DEPENDENCY when the service is not running', async () => {
    const serviceId = await runningService(client);
    await forceState(emu, 'service', serviceId, 'idle');
    const err = await client.createPipe(serviceId, kafkaPipe()).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 424, code: 'FAILED_DEPENDENCY', mayHaveSucceeded: false });
  });
});

describe('ManagementClient reverse private endpoints', () => {
  it('creates, lists, reads and deletes one', async () => {
    const serviceId = await runningService(client);
    const rpe = await client.createReversePrivateEndpoint(serviceId, {
      description: 'msk',
      type: 'VPC_ENDPOINT_SERVICE',
      vpcEndpointServiceName: 'com.amazonaws.vpce.us-east-1.vpce-svc-0123',
    });
    expect(rpe).toMatchObject({ serviceId, type: 'VPC_ENDPOINT_SERVICE', description: 'msk' });
    expect((await client.listReversePrivateEndpoints(serviceId)).map((r) => r.id)).toEqual([rpe.id]);
    expect((await client.getReversePrivateEndpoint(serviceId, rpe.id)).id).toBe(rpe.id);
    await client.deleteReversePrivateEndpoint(serviceId, rpe.id);
    await eventually(
      () => client.getReversePrivateEndpoint(serviceId, rpe.id).catch((err: unknown) => err),
      (err) => expect(isNotFound(err)).toBe(true),
    );
  });
});

describe('ManagementClient query endpoint', () => {
  it('upserts (replacing the whole configuration), reads and deletes it', async () => {
    const serviceId = await runningService(client);
    expect(isNotFound(await client.getQueryEndpoint(serviceId).catch((e: unknown) => e))).toBe(true);
    const first = await client.upsertQueryEndpoint(serviceId, {
      roles: ['sql_console_read_only'],
      openApiKeys: ['key-1'],
      allowedOrigins: 'example.com',
    });
    expect(first).toMatchObject({ roles: ['sql_console_read_only'], openApiKeys: ['key-1'] });
    const second = await client.upsertQueryEndpoint(serviceId, { roles: ['sql_console_admin'] });
    expect(second.roles).toEqual(['sql_console_admin']);
    expect(second.openApiKeys ?? []).toEqual([]);
    expect((await client.getQueryEndpoint(serviceId)).roles).toEqual(['sql_console_admin']);
    await client.deleteQueryEndpoint(serviceId);
    expect(isNotFound(await client.getQueryEndpoint(serviceId).catch((e: unknown) => e))).toBe(true);
  });
});

describe('ManagementClient auth', () => {
  it('reports a wrong key as UNAUTHORIZED and never retries it', async () => {
    const { organizationId, keyId } = emu.credentials;
    const { ManagementClient } = await import('../../../src/cloud/management-client.ts');
    const wrong = new ManagementClient(
      { baseUrl: emu.url, organizationId, keyId, keySecret: 'wrong-secret-value' },
      { quota: false },
    );
    const err = await wrong.listServices().catch((e: unknown) => e);
    await wrong.close();
    expect(err).toMatchObject({ status: 401, code: 'UNAUTHORIZED', attempts: 1, retryable: false });
    expect(String((err as Error).message)).not.toContain('wrong-secret-value');
  });
});
