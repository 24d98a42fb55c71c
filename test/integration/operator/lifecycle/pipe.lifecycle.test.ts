import { beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { condition, isReady, writes, type SluiceObject, useOperatorEnv, isReadyWithId } from '../support.ts';
import {
  kafkaPipe,
  objectStoragePipe,
  kinesisPipe,
  postgresPipe,
  PIPE,
  PIPES,
} from '../../../../tools/fixtures/pipe.ts';

/** The digest status keeps of the kafka credentials the cloud was last sent. */
const credentialsDigest = (p: SluiceObject | undefined) =>
  (p?.status?.secretDigests as { fields: Record<string, { digest: string }> } | undefined)?.fields[
    'source.kafka.credentialsSecretRef'
  ]?.digest;

describe.skipIf(clusterSkipReason())('Pipe lifecycle on a real apiserver against the emulator', () => {
  const env = useOperatorEnv('pipe-lifecycle', { operator: { managementQuota: '100/1s' } });
  const pipes = () => env.of<SluiceObject>('Pipe');
  let serviceId: string;

  beforeAll(async () => {
    await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass-1' });
    await env.putSecret('registry-user', { username: 'reg', password: 'registry-pass' });
    await env.putSecret('s3-key', { accessKeyId: 'AKIAEXAMPLE', secretKey: 's3-secret-value' });
    await env.putSecret('pg-user', { username: 'replicator', password: 'pg-pass-value' });
    await env.apply('analytics', { name: 'analytics' });
    serviceId = (await env.waitFor('analytics', 'service Ready', isReady)).status!.id!;
  });

  const SECRETS = [
    'kafka-pass-1',
    'registry-pass',
    's3-secret-value',
    'pg-pass-value',
    'before-rotation',
    'after-rotation',
  ];

  it.each([
    [
      'kafka',
      kafkaPipe('orders'),
      'Running',
      { kafka: { credentials: { username: 'ingest', password: 'kafka-pass-1' } } },
    ],
    [
      'objectStorage (one-shot)',
      objectStoragePipe('backfill'),
      'Completed',
      { objectStorage: { accessKey: { accessKeyId: 'AKIAEXAMPLE', secretKey: 's3-secret-value' } } },
    ],
    [
      'kinesis',
      kinesisPipe('clicks'),
      'Running',
      { kinesis: { accessKey: { accessKeyId: 'AKIAEXAMPLE', secretKey: 's3-secret-value' } } },
    ],
    [
      'postgres',
      postgresPipe('replica'),
      'Running',
      { postgres: { credentials: { username: 'replicator', password: 'pg-pass-value' } } },
    ],
  ])(
    '%s: creates the pipe once, Ready with id and state, credentials only in the cloud',
    async (_kind, spec, state, credentials) => {
      const name = spec.name;
      await pipes().apply(name, spec);
      const pipe = await pipes().waitFor(name, 'Ready', isReadyWithId, 30_000);
      expect(pipe.status).toMatchObject({ serviceId, state, observedGeneration: pipe.metadata.generation });
      expect(condition(pipe, 'Synced')).toMatchObject({ status: 'True' });

      const stored = env.emulator.store.findPipe(pipe.status!.id!);
      expect(stored?.source).toMatchObject(credentials);
      const posts = (await env.calls()).filter(
        (c) =>
          c.method === 'POST' && c.route === PIPES && c.body && (c.body as { name?: string }).name === name,
      );
      expect(posts).toHaveLength(1);
      const everything = JSON.stringify(pipe);
      for (const secret of ['kafka-pass-1', 'registry-pass', 's3-secret-value', 'pg-pass-value']) {
        expect(everything).not.toContain(secret);
      }
    },
  );

  it('applies a settings edit as one PUT of only the changed keys, and a removed key as null', async () => {
    const spec = kafkaPipe('tuned', {
      settings: { streaming_max_insert_wait_ms: 1000, engine_max_threads: 4 },
    });
    await pipes().apply('tuned', spec);
    const created = await pipes().waitFor('tuned', 'Ready', isReadyWithId);
    await env.clearCalls();

    await pipes().patchSpec('tuned', {
      settings: { streaming_max_insert_wait_ms: 2000, engine_max_threads: 4 },
    });
    await pipes().waitFor(
      'tuned',
      'edit Ready',
      (p) => isReadyWithId(p) && p!.status!.observedGeneration === 2,
    );
    let changes = writes(await env.calls());
    expect(changes.map((c) => `${c.method} ${c.route}`)).toEqual([`PUT ${PIPE}/settings`]);
    expect(changes[0]!.body).toEqual({ streaming_max_insert_wait_ms: 2000 });

    await env.clearCalls();
    await pipes().patchSpec('tuned', {
      settings: { streaming_max_insert_wait_ms: 2000, engine_max_threads: null },
    });
    await pipes().waitFor(
      'tuned',
      'removal Ready',
      (p) => isReadyWithId(p) && p!.status!.observedGeneration === 3,
    );
    changes = writes(await env.calls());
    expect(changes.map((c) => `${c.method} ${c.route}`)).toEqual([`PUT ${PIPE}/settings`]);
    expect(changes[0]!.body).toEqual({ engine_max_threads: null });
    const pipe = await pipes().get('tuned');
    expect(pipe!.status!.settings).toEqual({ streaming_max_insert_wait_ms: 2000 });
    expect(created.status!.id).toBe(pipe!.status!.id);
  });

  it('creates the pipe with an extra setting, changes it with one PUT, resets it when dropped and leaves others alone', async () => {
    const readCommitted = (value: boolean | null) => ({
      extraSettings: { booleans: { kafka_read_committed: value } },
    });
    await pipes().apply('committed', { ...kafkaPipe('committed'), ...readCommitted(true) });
    const created = await pipes().waitFor('committed', 'Ready', isReadyWithId);
    const post = (await env.calls()).find(
      (c) => c.method === 'POST' && c.route === PIPES && (c.body as { name?: string }).name === 'committed',
    );
    expect((post!.body as { settings?: unknown }).settings).toEqual({ kafka_read_committed: true });
    const id = created.status!.id!;
    // Someone sets a key of their own in the cloud: not drift, and never reset by this Pipe.
    env.emulator.store.findPipe(id)!.settings.kafka_client_id = 'theirs';
    await env.clearCalls();

    await pipes().patchSpec('committed', readCommitted(false));
    await pipes().waitFor(
      'committed',
      'edit Ready',
      (p) => isReadyWithId(p) && p!.status!.observedGeneration === 2,
    );
    let changes = writes(await env.calls());
    expect(changes.map((c) => `${c.method} ${c.route}`)).toEqual([`PUT ${PIPE}/settings`]);
    expect(changes[0]!.body).toEqual({ kafka_read_committed: false });

    await env.clearCalls();
    await pipes().patchSpec('committed', readCommitted(null));
    const removed = await pipes().waitFor(
      'committed',
      'removal Ready',
      (p) =>
        isReadyWithId(p) &&
        p!.status!.observedGeneration === 3 &&
        (p!.status!.extraSettingKeys as string[]).length === 0,
    );
    changes = writes(await env.calls());
    expect(changes.map((c) => `${c.method} ${c.route}`)).toEqual([`PUT ${PIPE}/settings`]);
    expect(changes[0]!.body).toEqual({ kafka_read_committed: null });
    expect(env.emulator.store.findPipe(id)!.settings).toEqual({ kafka_client_id: 'theirs' });
    expect(removed.status!.extraSettings).toEqual({ kafka_client_id: 'theirs' });
  });

  it('applies a name and mappings edit as exactly one PATCH, and a desired Stopped as one state command', async () => {
    await pipes().apply('renamed', kafkaPipe('renamed'));
    await pipes().waitFor('renamed', 'Ready', isReadyWithId);
    await env.clearCalls();

    const spec = kafkaPipe('renamed');
    await pipes().patchSpec('renamed', {
      name: 'renamed v2',
      fieldMappings: [...spec.fieldMappings, { sourceField: 'total', destinationField: 'amount' }],
      destination: {
        ...spec.destination,
        columns: [...spec.destination.columns, { name: 'amount', type: 'Float64' }],
      },
    });
    await pipes().waitFor(
      'renamed',
      'edit Ready',
      (p) => isReadyWithId(p) && p!.status!.observedGeneration === 2,
    );
    let changes = writes(await env.calls());
    expect(changes.map((c) => `${c.method} ${c.route}`)).toEqual([`PATCH ${PIPE}`]);
    expect(changes[0]!.body).toMatchObject({
      name: 'renamed v2',
      destination: { columns: expect.any(Array) },
    });
    expect(changes[0]!.body).not.toHaveProperty('settings');

    await env.clearCalls();
    await pipes().patchSpec('renamed', { state: 'Stopped' });
    const stopped = await pipes().waitFor(
      'renamed',
      'Stopped',
      (p) => isReadyWithId(p) && p!.status!.state === 'Stopped',
    );
    changes = writes(await env.calls());
    expect(changes.map((c) => `${c.method} ${c.route} ${JSON.stringify(c.body)}`)).toEqual([
      `PATCH ${PIPE}/state {"command":"stop"}`,
    ]);
    expect(stopped.status!.state).toBe('Stopped');
  });

  it('sends exactly one PATCH with the new credentials when a referenced Secret rotates, none for an unrelated one', async () => {
    await env.putSecret('rotating', { username: 'ingest', password: 'before-rotation' });
    await pipes().apply('rotated', kafkaPipe('rotated', { credentialsSecret: 'rotating' }));
    const pipe = await pipes().waitFor('rotated', 'Ready', isReadyWithId);
    await env.clearCalls();

    await env.putSecret('unrelated', { username: 'x', password: 'unrelated-pass' });
    // Looked at since the unrelated Secret was written (the request came after it): nothing to send.
    await env.freshLook('Pipe', 'rotated');
    expect(writes(await env.calls())).toEqual([]);

    await env.putSecret('rotating', { username: 'ingest', password: 'after-rotation' });
    await pipes().waitFor(
      'rotated',
      'rotation recorded',
      (p) => isReadyWithId(p) && credentialsDigest(p) !== credentialsDigest(pipe),
    );
    await env.freshLook('Pipe', 'rotated');
    const changes = writes(await env.calls());
    expect(changes.map((c) => `${c.method} ${c.route}`)).toEqual([`PATCH ${PIPE}`]);
    expect(env.emulator.store.findPipe(pipe.status!.id!)?.source.kafka?.credentials).toEqual({
      username: 'ingest',
      password: 'after-rotation',
    });
    const events = await env.core.listNamespacedEvent({ namespace: env.namespace });
    const everything = JSON.stringify([await pipes().get('rotated'), events.items, env.logs]);
    for (const secret of SECRETS) expect(everything).not.toContain(secret);
  });

  it('is Ready only once every reverse private endpoint of the kafka source is Ready, and reports them in status', async () => {
    const endpoint = await env.cloud.createReversePrivateEndpoint(serviceId, {
      description: 'msk',
      type: 'VPC_ENDPOINT_SERVICE',
      vpcEndpointServiceName: 'com.amazonaws.vpce.us-east-1.vpce-svc-0123',
    });
    await env.forceState({ kind: 'reversePrivateEndpoint', id: endpoint.id, state: 'PendingAcceptance' });
    const spec = kafkaPipe('private');
    await pipes().apply('private', {
      ...spec,
      source: { kafka: { ...spec.source.kafka, reversePrivateEndpointIds: [endpoint.id] } },
    });
    const waiting = await pipes().waitFor('private', 'waiting for the endpoint', (p) =>
      (condition(p, 'Ready')?.message ?? '').includes('PendingAcceptance'),
    );
    expect(condition(waiting, 'Ready')).toMatchObject({
      status: 'False',
      message: `reverse private endpoint ${endpoint.id} is PendingAcceptance`,
    });
    expect(waiting.status!.reversePrivateEndpoints).toEqual([
      expect.objectContaining({ id: endpoint.id, status: 'PendingAcceptance' }),
    ]);

    await env.forceState({ kind: 'reversePrivateEndpoint', id: endpoint.id, state: 'Ready' });
    const done = await pipes().waitFor('private', 'Ready', isReadyWithId, 40_000);
    expect(done.status!.reversePrivateEndpoints).toEqual([
      expect.objectContaining({ id: endpoint.id, status: 'Ready', dnsNames: expect.any(Array) }),
    ]);
  }, 60_000);
});
