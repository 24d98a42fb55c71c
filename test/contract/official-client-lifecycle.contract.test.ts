/**
 * What the real API's official client needs over its whole lifecycle (api-behaviour.md, "Learned from the
 * official client's full lifecycle"): autoscaling modes, passwords set by hash, pipe settings holding only what
 * was set and keys beyond the contract's, the alert fields it sends, and the organization routes it reads —
 * each accepted as the real API does, while the contract's bounds keep holding for the fields it defines.
 */
import { createHash, randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { AUTOSCALING_REPLICAS, PIPE_SETTING_BOUNDS } from '../../src/cloud/schemas/index.ts';
import {
  alerting,
  clickstackCloud,
  expectAlertError,
  expectData,
  expectMgmtError,
  expectOk,
  mgmt,
  useContractEmulator,
} from './support/api.ts';
import {
  alertBody,
  createAlert,
  createPipe,
  createService,
  createRunningService,
  getPipe,
  getService,
  pipePath,
  serviceBody,
  servicePath,
} from './support/fixtures.ts';

const { emu, api } = useContractEmulator();

const HORIZONTAL = {
  autoscalingMode: 'horizontal',
  minReplicas: 2,
  maxReplicas: 5,
  minReplicaMemoryGb: 16,
  maxReplicaMemoryGb: 16,
};
const createBody = (fields: Record<string, unknown>) => api.post('/services', serviceBody(fields));
const resize = (serviceId: string, body: unknown) =>
  api.patch(`${servicePath(serviceId)}/replicaScaling`, body);

describe('autoscalingMode on create', () => {
  it('the default is vertical, answered without a replica range', async () => {
    const { service } = expectOk(await createBody({}));
    expect(service.autoscalingMode).toBe('vertical');
    expect(service).not.toHaveProperty('minReplicas');
    expect(service).not.toHaveProperty('maxReplicas');
  });

  it('vertical, as the official client sends it on every create, is accepted', async () => {
    const { service } = expectOk(await createBody({ autoscalingMode: 'vertical', minReplicaMemoryGb: 8 }));
    expect(service).toMatchObject({ autoscalingMode: 'vertical', minReplicaMemoryGb: 8 });
  });

  it('horizontal with a replica range and one replica size is answered with the range', async () => {
    const { service } = expectOk(await createBody(HORIZONTAL));
    expect(service).toMatchObject(HORIZONTAL);
    expect((await getService(api, service.id)).minReplicas).toBe(2);
  });

  it('horizontal without memory bounds gets one replica size', async () => {
    const { autoscalingMode, minReplicas, maxReplicas } = HORIZONTAL;
    const { service } = expectOk(await createBody({ autoscalingMode, minReplicas, maxReplicas }));
    expect(service.minReplicaMemoryGb).toBe(service.maxReplicaMemoryGb);
  });

  const refused: Array<[string, Record<string, unknown>, string]> = [
    ['an unknown mode', { autoscalingMode: 'diagonal' }, 'autoscalingMode'],
    ['horizontal without minReplicas', { ...HORIZONTAL, minReplicas: undefined }, 'minReplicas'],
    ['horizontal without maxReplicas', { ...HORIZONTAL, maxReplicas: undefined }, 'maxReplicas'],
    ['minReplicas above maxReplicas', { ...HORIZONTAL, minReplicas: 6 }, 'minReplicas'],
    ['horizontal with two replica sizes', { ...HORIZONTAL, maxReplicaMemoryGb: 32 }, 'minReplicaMemoryGb'],
    ['minReplicas below its bound', { ...HORIZONTAL, minReplicas: AUTOSCALING_REPLICAS.min - 1 }, 'minReplicas'],
    ['maxReplicas above its bound', { ...HORIZONTAL, maxReplicas: AUTOSCALING_REPLICAS.max + 1 }, 'maxReplicas'],
    ['a replica range without horizontal', { minReplicas: 2, maxReplicas: 3 }, 'minReplicas'],
    ['a contract bound broken beside the mode', { autoscalingMode: 'vertical', minReplicaMemoryGb: 10 }, 'minReplicaMemoryGb'],
  ]; // prettier-ignore
  it.each(refused)(
    '%s is refused, naming the field, and nothing is created',
    async (_what, fields, field) => {
      expectMgmtError(await createBody(fields), 400, field);
      expect(expectOk(await api.get('/services'))).toEqual([]);
    },
  );
});

describe('autoscalingMode on PATCH replicaScaling', () => {
  it('vertical alone, as the official client sends it on every resize, changes nothing', async () => {
    const before = await createRunningService(api);
    const after = expectOk(await resize(before.id, { autoscalingMode: 'vertical' }));
    expect(after).toMatchObject({
      autoscalingMode: 'vertical',
      minReplicaMemoryGb: before.minReplicaMemoryGb,
      maxReplicaMemoryGb: before.maxReplicaMemoryGb,
    });
  });

  it('switches to horizontal with a range and one size, and back to vertical without the range', async () => {
    const { id } = await createRunningService(api);
    expect(expectOk(await resize(id, HORIZONTAL))).toMatchObject(HORIZONTAL);
    expect(expectOk(await resize(id, { maxReplicas: 8 }))).toMatchObject({ minReplicas: 2, maxReplicas: 8 });
    const vertical = expectOk(await resize(id, { autoscalingMode: 'vertical', maxReplicaMemoryGb: 32 }));
    expect(vertical).toMatchObject({ autoscalingMode: 'vertical', maxReplicaMemoryGb: 32 });
    expect(vertical).not.toHaveProperty('minReplicas');
    expect(vertical).not.toHaveProperty('maxReplicas');
  });

  it('a range on a vertical service, or a second size on a horizontal one, is refused and changes nothing', async () => {
    const { id } = await createRunningService(api);
    const before = await getService(api, id);
    expectMgmtError(await resize(id, { maxReplicas: 4 }), 400, 'maxReplicas');
    expectMgmtError(await resize(id, { autoscalingMode: 'horizontal' }), 400, 'minReplicas');
    expect(await getService(api, id)).toEqual(before);
    expectOk(await resize(id, HORIZONTAL));
    expectMgmtError(await resize(id, { maxReplicaMemoryGb: 32 }), 400, 'maxReplicaMemoryGb');
    expectMgmtError(await resize(id, { minReplicas: 9 }), 400, 'minReplicas');
  });
});

describe('PATCH password with hashes', () => {
  const chosen = 'a password the client chose';
  const hashes = {
    newPasswordHash: createHash('sha256').update(chosen).digest('base64'),
    newDoubleSha1Hash: createHash('sha1').update(createHash('sha1').update(chosen).digest()).digest('hex'),
  };
  const setPassword = (serviceId: string, body: unknown) =>
    api.patch(`${servicePath(serviceId)}/password`, body);

  it('sets the password to the hashed one and answers no password', async () => {
    const { id } = await createRunningService(api);
    const result = expectOk(await setPassword(id, hashes));
    expect(result).not.toHaveProperty('password');
    const record = emu.store.services.get(id)!;
    expect(record.passwordSha256).toBe(createHash('sha256').update(chosen).digest('hex'));
    expect(record.passwordDoubleSha1).toBe(hashes.newDoubleSha1Hash);
  });

  it('{} still generates a password and returns it', async () => {
    const { id } = await createRunningService(api);
    expectOk(await setPassword(id, hashes));
    const { password } = expectOk(await setPassword(id, {}));
    expect(password).toEqual(expect.any(String));
    expect(emu.store.services.get(id)!.passwordSha256).toBe(
      createHash('sha256').update(password).digest('hex'),
    );
  });

  it('newDoubleSha1Hash alone is ignored: a password is generated and returned', async () => {
    const { id } = await createRunningService(api);
    const { password } = expectOk(await setPassword(id, { newDoubleSha1Hash: hashes.newDoubleSha1Hash }));
    expect(password).toEqual(expect.any(String));
  });

  it.each([
    ['newPasswordHash', { newPasswordHash: createHash('sha256').update(chosen).digest('hex') }],
    ['newDoubleSha1Hash', { ...hashes, newDoubleSha1Hash: 'not hex' }],
    ['password', { password: chosen }],
  ])(
    'a malformed or unknown field (%s) is refused, naming it, and the password stays',
    async (field, body) => {
      const { id } = await createRunningService(api);
      const before = emu.store.services.get(id)!.passwordSha256;
      expectMgmtError(await setPassword(id, body), 400, field);
      expect(emu.store.services.get(id)!.passwordSha256).toBe(before);
    },
  );
});

describe('pipe settings hold only the keys that were set', () => {
  let serviceId: string;
  beforeEach(async () => {
    serviceId = (await createRunningService(api)).id;
  });
  const settingsPath = (pipeId: string) => `${pipePath(serviceId, pipeId)}/settings`;

  it('a pipe created without settings answers {} in the pipe and in GET settings', async () => {
    const pipe = await createPipe(api, serviceId, 'kafka');
    expect(pipe.settings).toEqual({});
    expect(expectOk(await api.get(settingsPath(pipe.id)))).toEqual({});
  });

  it('a key set at create is the only key; reset with null it is absent, not null', async () => {
    const pipe = await createPipe(api, serviceId, 'kafka', { settings: { engine_max_threads: 4 } });
    expect(pipe.settings).toEqual({ engine_max_threads: 4 });
    expect(expectOk(await api.put(settingsPath(pipe.id), { engine_max_threads: null }))).toEqual({});
    expect((await getPipe(api, serviceId, pipe.id)).settings).toEqual({});
  });
});

describe('pipe settings beyond the contract’s keys', () => {
  let serviceId: string;
  beforeEach(async () => {
    serviceId = (await createRunningService(api)).id;
  });
  const settingsPath = (pipeId: string) => `${pipePath(serviceId, pipeId)}/settings`;
  const other = { kafka_read_committed: true, some_mode: 'fast', some_limit: 3.5 };

  it('string, number and boolean values are taken at create and by PUT, returned, and reset with null', async () => {
    const pipe = await createPipe(api, serviceId, 'kafka', { settings: other });
    expect(pipe.settings).toEqual(other);
    expectOk(await api.put(settingsPath(pipe.id), { kafka_read_committed: null, engine_max_threads: 2 }));
    expect(expectOk(await api.get(settingsPath(pipe.id)))).toEqual({
      some_mode: 'fast',
      some_limit: 3.5,
      engine_max_threads: 2,
    });
  });

  it.each([
    ['an object value', { kafka_read_committed: { on: true } }, 'kafka_read_committed'],
    ['a list value', { kafka_topics: ['a'] }, 'kafka_topics'],
    [
      'a contract key out of its bounds beside another key',
      { kafka_read_committed: true, engine_max_threads: PIPE_SETTING_BOUNDS.engine_max_threads.max + 1 },
      'engine_max_threads',
    ],
    ['a contract boolean key given a string', { engine_parallel_view_processing: 'yes' }, 'engine_parallel_view_processing'],
  ])('%s is refused, naming the key, and nothing changes', async (_what, body, field) => {
    const pipe = await createPipe(api, serviceId, 'kafka', { settings: { some_mode: 'slow' } });
    expectMgmtError(await api.put(settingsPath(pipe.id), body), 400, field);
    expect(expectOk(await api.get(settingsPath(pipe.id)))).toEqual({ some_mode: 'slow' });
  }); // prettier-ignore
});

describe('alerts as the official client sends them', () => {
  const alerts = () => alerting(emu);
  const savedSearch = (fields: Record<string, unknown> = {}) =>
    alertBody('search', { source: 'saved_search', scheduleStartAt: null, ...fields });

  it('source saved_search with savedSearchId: echoed as sent, the saved search under both names', async () => {
    const alert = await createAlert(alerts(), savedSearch());
    expect(alert).toMatchObject({
      source: 'saved_search',
      savedSearch: 'search-1',
      savedSearchId: 'search-1',
    });
    expect(expectData(await alerts().get(`/alerts/${alert.id}`))).toEqual(alert);
  });

  it('source saved_search without savedSearchId is refused, naming it', async () => {
    expectAlertError(
      await alerts().post('/alerts', savedSearch({ savedSearchId: undefined })),
      400,
      'savedSearchId',
    );
  });

  it('the schedule, window, range and note fields are echoed; a PUT with scheduleStartAt null clears them', async () => {
    const extras = {
      scheduleStartAt: '2026-03-01T08:00:00Z',
      scheduleOffsetMinutes: 15,
      numConsecutiveWindows: 3,
      thresholdMax: 50,
      note: 'page the on-call',
    };
    const alert = await createAlert(alerts(), savedSearch(extras));
    expect(alert).toMatchObject(extras);
    const replaced = expectData(await alerts().put(`/alerts/${alert.id}`, savedSearch()));
    expect(replaced.scheduleStartAt).toBeNull();
    for (const field of ['scheduleOffsetMinutes', 'numConsecutiveWindows', 'thresholdMax', 'note'])
      expect(replaced).not.toHaveProperty(field);
  });

  it.each([
    ['scheduleStartAt', { scheduleStartAt: 'next monday' }],
    ['scheduleOffsetMinutes', { scheduleOffsetMinutes: -1 }],
    ['numConsecutiveWindows', { numConsecutiveWindows: 0 }],
    ['thresholdMax', { thresholdMax: 'high' }],
    ['name', { name: 'x'.repeat(513) }],
  ])('a bad %s is refused, naming it, and nothing is created', async (field, fields) => {
    expectAlertError(await alerts().post('/alerts', savedSearch(fields)), 400, field);
    expect(expectData(await alerts().get('/alerts'))).toEqual([]);
  });
});

describe('organization and its API keys (extensions)', () => {
  it('GET keys lists the key in use by id and suffix, never its secret', async () => {
    const reply = await api.get('/keys');
    const keys = expectOk(reply);
    expect(keys).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: expect.any(String),
        state: 'enabled',
        roles: expect.any(Array),
        keySuffix: expect.any(String),
        createdAt: expect.any(String),
        expireAt: null,
        usedAt: expect.any(String),
        ipAccessList: [],
      },
    ]);
    expect(emu.credentials.keyId.endsWith(keys[0].keySuffix)).toBe(true);
    expect(reply.text).not.toContain(emu.credentials.keySecret);
    expect(expectOk(await api.get('/keys'))[0].id).toBe(keys[0].id);
  });

  it('GET answers the organization; PATCH changes its name and enableCoreDumps', async () => {
    const org = expectOk(await api.get(''));
    expect(org).toEqual({
      id: emu.credentials.organizationId,
      name: expect.any(String),
      createdAt: expect.any(String),
      privateEndpoints: [],
      enableCoreDumps: false,
    });
    const patched = expectOk(await api.patch('', { name: 'renamed org', enableCoreDumps: true }));
    expect(patched).toEqual({ ...org, name: 'renamed org', enableCoreDumps: true });
    expect(expectOk(await api.get(''))).toEqual(patched);
  });

  it.each([
    ['enableCoreDumps', { enableCoreDumps: 'yes' }],
    ['name', { name: '' }],
    ['privateEndpoints', { privateEndpoints: [] }],
  ])('PATCH with a bad %s is refused, naming it, and nothing changes', async (field, body) => {
    const before = expectOk(await api.get(''));
    expectMgmtError(await api.patch('', body), 400, field);
    expect(expectOk(await api.get(''))).toEqual(before);
  });

  it("another organization's id is 403 on every organization route", async () => {
    const other = mgmt(emu, { organizationId: randomUUID() });
    expectMgmtError(await other.get(''), 403);
    expectMgmtError(await other.get('/keys'), 403);
    expectMgmtError(await other.patch('', { name: 'x' }), 403);
  });
});

describe('a dashboard read back, as the client imports it', () => {
  const dashboardBody = {
    name: 'checkout',
    tags: ['team-a'],
    tiles: ['errors', 'latency'].map((name, i) => ({
      name,
      x: i * 6,
      y: 0,
      w: 6,
      h: 3,
      config: { displayType: 'line', sourceId: 'logs', select: [{ aggFn: 'count' }] },
    })),
  };

  it.each([
    ['self-hosted', async () => ({ client: alerting(emu), unwrap: expectData })],
    [
      'cloud',
      async () => {
        const { id } = (await createService(api)).service;
        return { client: clickstackCloud(emu, () => id), unwrap: expectOk };
      },
    ],
  ])(
    'on the %s path holds no timestamps, so its body less its id is taken back unchanged',
    async (_path, open) => {
      const { client, unwrap } = await open();
      const { id } = unwrap(await client.post('/dashboards', dashboardBody));
      const answer = unwrap(await client.get(`/dashboards/${id}`));
      expect(answer).not.toHaveProperty('createdAt');
      expect(answer).not.toHaveProperty('updatedAt');
      const { id: _id, ...body } = answer;
      expect(unwrap(await client.put(`/dashboards/${id}`, body))).toEqual(answer);
      expect(unwrap(await client.get('/dashboards'))).toEqual([answer]);
    },
  );
});
