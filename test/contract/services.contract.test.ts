import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  BYOC_REPLICA_MEMORY,
  IDLE_TIMEOUT_MINUTES_MIN,
  MAX_TAGS,
  NUM_REPLICAS,
  PROFILES,
  PROVIDER_REGIONS,
  PROVIDERS,
  RELEASE_CHANNELS,
  REPLICA_MEMORY,
  SERVICE_NAME_MAX,
  TIERS,
  TOTAL_MEMORY,
} from '../../src/cloud/schemas/index.ts';
import { expectMgmtError, expectOk, mgmt, useContractEmulator, useEmulator, UUID } from './support/api.ts';
import type { Json } from './support/api.ts';
import {
  createRunningService,
  createService,
  getService,
  serviceBody,
  servicePath,
} from './support/fixtures.ts';

const { api } = useContractEmulator();

const listServices = async (query = ''): Promise<Json[]> => expectOk(await api.get(`/services${query}`));
/** Ids only: states move on their own, so whole objects are not comparable across calls. */
const serviceIds = async (client = api): Promise<string[]> =>
  (expectOk(await client.get('/services')) as Json[]).map((s) => s.id).sort();
const tags = (n: number, prefix = 'k') =>
  Array.from({ length: n }, (_, i) => ({ key: `${prefix}${i}`, value: `v${i}` }));

/** A create that must be refused with 400 naming `field`, and must leave the organization unchanged. */
async function expectRejected(body: Record<string, unknown>, field: string | RegExp): Promise<string> {
  const before = await serviceIds();
  const message = expectMgmtError(await api.post('/services', body), 400, field);
  expect(await serviceIds()).toEqual(before);
  return message;
}

describe('create (operation 1)', () => {
  it('answers 200 with {service, password}; the service has the response fields and starts provisioning', async () => {
    const body = serviceBody({ ipAccessList: [{ source: '10.0.0.0/8', description: 'office' }] });
    const result = expectOk(await api.post('/services', body));
    expect(Object.keys(result).sort()).toEqual(['password', 'service']);
    expect(result.password).toBeTypeOf('string');
    expect(result.password.length).toBeGreaterThan(0);
    const service = result.service;
    expect(service.id).toMatch(UUID);
    expect(service).toMatchObject({
      name: body.name,
      provider: 'aws',
      region: 'us-east-1',
      ipAccessList: [{ source: '10.0.0.0/8', description: 'office' }],
      idleScaling: true,
    });
    expect(service.state).toBe('provisioning');
    expect(service.engineVersion).toBeTypeOf('string');
    expect(Array.isArray(service.endpoints)).toBe(true);
    for (const endpoint of service.endpoints) {
      expect(endpoint.protocol).toBeTypeOf('string');
      expect(endpoint.host).toBeTypeOf('string');
      expect(Number.isInteger(endpoint.port)).toBe(true);
    }
    expect(new Date(service.createdAt).toISOString()).toBeTruthy();
    expect(service.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(service).not.toHaveProperty('password');
  });

  it('keeps the initial password only in the create response (never in GET, list, PATCH)', async () => {
    const { service, password } = await createService(api);
    const replies = [
      await api.get(servicePath(service.id)),
      await api.get('/services'),
      await api.patch(servicePath(service.id), { name: 'renamed' }),
    ];
    for (const reply of replies) {
      expectOk(reply);
      expect(reply.text).not.toContain(password);
      expect(reply.text).not.toContain('"password"');
    }
  });

  it('accepts every provider with each of its regions, every release channel and tier', async () => {
    for (const provider of PROVIDERS) {
      for (const region of PROVIDER_REGIONS[provider]) {
        expectOk(await api.post('/services', serviceBody({ provider, region })));
      }
    }
    for (const releaseChannel of RELEASE_CHANNELS) {
      expectOk(await api.post('/services', serviceBody({ releaseChannel, tier: 'production' })));
    }
    for (const tier of TIERS) expectOk(await api.post('/services', serviceBody({ tier })));
  });

  it.each([
    ['provider', { provider: 'ibm' }],
    ['region', { region: 'mars-north-1' }],
    ['tier', { tier: 'enterprise' }],
    ['releaseChannel', { releaseChannel: 'beta' }],
    ['profile', { profile: 'v2-default' }],
    ['complianceType', { complianceType: 'sox' }],
  ])('refuses an unknown %s value with 400 naming it', async (field, override) => {
    await expectRejected(serviceBody(override), field);
  });

  it.each([
    ['gcp', 'eu-central-1', 'aws'],
    ['aws', 'europe-west4', 'gcp'],
    ['azure', 'us-east1', 'gcp'],
    ['gcp', 'eastus', 'azure'],
  ])(
    'refuses provider %s with region %s (a region of %s) with 400 naming both',
    async (provider, region, owner) => {
      const message = await expectRejected(serviceBody({ provider, region }), 'region');
      expect(message).toContain(`region ${region} is a region of ${owner}, not of provider ${provider}`);
    },
  );

  it.each(['name', 'provider', 'region'])('refuses a body without %s', async (field) => {
    const body = serviceBody();
    delete body[field];
    await expectRejected(body, field);
  });

  it('refuses an unknown field, naming it', async () => {
    await expectRejected(serviceBody({ colour: 'blue' }), 'colour');
  });

  it('refuses releaseChannel on a development service (production services only)', async () => {
    await expectRejected(serviceBody({ tier: 'development', releaseChannel: 'fast' }), 'releaseChannel');
  });

  it('refuses an ipAccessList entry whose source is not an IP or CIDR, naming the entry', async () => {
    await expectRejected(
      serviceBody({ ipAccessList: [{ source: '10.0.0.1' }, { source: 'not-an-ip' }] }),
      'ipAccessList[1].source',
    );
  });

  it('accepts the top-tier options (profile, hasTransparentDataEncryption) for a paid organization', async () => {
    expectOk(await api.post('/services', serviceBody({ profile: PROFILES[1] })));
    expectOk(await api.post('/services', serviceBody({ hasTransparentDataEncryption: true })));
  });

  it('still accepts the deprecated creation fields (tier, total memory, privateEndpointIds)', async () => {
    const { service } = expectOk(
      await api.post(
        '/services',
        serviceBody({
          tier: 'production',
          minTotalMemoryGb: TOTAL_MEMORY.min,
          maxTotalMemoryGb: TOTAL_MEMORY.min * 2,
          privateEndpointIds: ['vpce-legacy'],
        }),
      ),
    );
    expect(service.privateEndpointIds).toEqual(['vpce-legacy']);
  });

  it('returns the optional creation fields it was given', async () => {
    const { service } = expectOk(
      await api.post(
        '/services',
        serviceBody({
          idleScaling: false,
          encryptionKey: 'arn:aws:kms:us-east-1:123456789012:key/abc',
          encryptionAssumedRoleIdentifier: 'arn:aws:iam::123456789012:role/enc',
          releaseChannel: 'slow',
          complianceType: 'hipaa',
          privatePreviewTermsChecked: true,
        }),
      ),
    );
    expect(service).toMatchObject({
      idleScaling: false,
      encryptionKey: 'arn:aws:kms:us-east-1:123456789012:key/abc',
      encryptionAssumedRoleIdentifier: 'arn:aws:iam::123456789012:role/enc',
      releaseChannel: 'slow',
    });
  });

  it('enables the mysql endpoint at create when asked', async () => {
    const { service } = expectOk(
      await api.post('/services', serviceBody({ endpoints: [{ protocol: 'mysql', enabled: true }] })),
    );
    expect(service.endpoints.some((e: Json) => e.protocol === 'mysql')).toBe(true);
  });

  it('refuses a backupId that is not a uuid and an endpoint toggle with an unknown protocol', async () => {
    await expectRejected(serviceBody({ backupId: 'backup-1' }), 'backupId');
    await expectRejected(
      serviceBody({ endpoints: [{ protocol: 'gopher', enabled: true }] }),
      'endpoints[0].protocol',
    );
  });

  it('refuses a malformed JSON body with the management error shape', async () => {
    expectMgmtError(await api.post('/services', undefined, { rawBody: '{"name": ' }), 400);
  });
});

describe('create: name (alphanumeric with whitespace, up to 50 characters)', () => {
  it(`accepts ${SERVICE_NAME_MAX} characters and letters, digits and spaces`, async () => {
    expectOk(await api.post('/services', serviceBody({ name: 'a'.repeat(SERVICE_NAME_MAX) })));
    expectOk(await api.post('/services', serviceBody({ name: 'My Service 42' })));
  });
  it.each([
    ['51 characters', 'a'.repeat(SERVICE_NAME_MAX + 1)],
    ['a dash', 'my-service'],
    ['an underscore', 'my_service'],
    ['empty', ''],
  ])('refuses a name with %s', async (_label, name) => {
    await expectRejected(serviceBody({ name }), 'name');
  });
  it('refuses a non-string name', async () => {
    await expectRejected(serviceBody({ name: 42 }), 'name');
  });
});

describe('create: memory bounds', () => {
  const { min: rMin, max: rMax, step: rStep } = REPLICA_MEMORY;
  const { min: tMin, max: tMax, step: tStep } = TOTAL_MEMORY;

  it.each(['minReplicaMemoryGb', 'maxReplicaMemoryGb'])(`%s accepts ${rMin} and ${rMax}`, async (field) => {
    for (const value of [rMin, rMax]) {
      const pair =
        field === 'minReplicaMemoryGb' ? { maxReplicaMemoryGb: rMax } : { minReplicaMemoryGb: rMin };
      const { service } = expectOk(await api.post('/services', serviceBody({ ...pair, [field]: value })));
      expect(service[field]).toBe(value);
    }
  });

  it.each(['minReplicaMemoryGb', 'maxReplicaMemoryGb'])(
    `%s refuses ${rMin - rStep}, ${rMax + rStep}, a non-multiple of ${rStep} and a string`,
    async (field) => {
      for (const value of [rMin - rStep, rMax + rStep, rMin + 2, rMin + 0.5, '16']) {
        await expectRejected(serviceBody({ [field]: value }), field);
      }
    },
  );

  it('names the multiple-of rule', async () => {
    const message = await expectRejected(serviceBody({ maxReplicaMemoryGb: 10 }), 'maxReplicaMemoryGb');
    expect(message).toMatch(/multiple of 4/);
  });

  it.each(['minTotalMemoryGb', 'maxTotalMemoryGb'])(
    `deprecated %s accepts ${tMin} and ${tMax}`,
    async (field) => {
      for (const value of [tMin, tMax]) {
        const pair = field === 'minTotalMemoryGb' ? { maxTotalMemoryGb: tMax } : { minTotalMemoryGb: tMin };
        expectOk(await api.post('/services', serviceBody({ ...pair, [field]: value })));
      }
    },
  );

  it.each(['minTotalMemoryGb', 'maxTotalMemoryGb'])(
    `deprecated %s refuses ${tMin - tStep}, ${tMax + tStep} and a non-multiple of ${tStep}`,
    async (field) => {
      for (const value of [tMin - tStep, tMax + tStep, tMin + 6]) {
        await expectRejected(serviceBody({ [field]: value }), field);
      }
    },
  );

  it('refuses min replica memory above max replica memory', async () => {
    await expectRejected(serviceBody({ minReplicaMemoryGb: 64, maxReplicaMemoryGb: 32 }), /ReplicaMemoryGb /);
  });

  it(`a paid organization may go above the non-paid maxima (${REPLICA_MEMORY.unpaidMax}, ${TOTAL_MEMORY.unpaidMax})`, async () => {
    expectOk(await api.post('/services', serviceBody({ maxReplicaMemoryGb: REPLICA_MEMORY.unpaidMax + 4 })));
    expectOk(await api.post('/services', serviceBody({ maxTotalMemoryGb: TOTAL_MEMORY.unpaidMax + 12 })));
  });
});

describe('create: a non-paid organization', () => {
  const unpaid = useEmulator({ unpaid: true }, { reset: false });
  const unpaidApi = mgmt(unpaid);

  it(`accepts maxReplicaMemoryGb ${REPLICA_MEMORY.unpaidMax} and refuses ${REPLICA_MEMORY.unpaidMax + 4}`, async () => {
    expectOk(
      await unpaidApi.post('/services', serviceBody({ maxReplicaMemoryGb: REPLICA_MEMORY.unpaidMax })),
    );
    const before = await serviceIds(unpaidApi);
    expectMgmtError(
      await unpaidApi.post('/services', serviceBody({ maxReplicaMemoryGb: REPLICA_MEMORY.unpaidMax + 4 })),
      400,
      'maxReplicaMemoryGb',
    );
    expect(await serviceIds(unpaidApi)).toEqual(before);
  });

  it(`accepts maxTotalMemoryGb ${TOTAL_MEMORY.unpaidMax} and refuses ${TOTAL_MEMORY.unpaidMax + 12}`, async () => {
    expectOk(await unpaidApi.post('/services', serviceBody({ maxTotalMemoryGb: TOTAL_MEMORY.unpaidMax })));
    expectMgmtError(
      await unpaidApi.post('/services', serviceBody({ maxTotalMemoryGb: TOTAL_MEMORY.unpaidMax + 12 })),
      400,
      'maxTotalMemoryGb',
    );
  });

  it.each([
    ['profile', { profile: PROFILES[1] }],
    ['hasTransparentDataEncryption', { hasTransparentDataEncryption: true }],
  ])('refuses the top-tier option %s', async (field, override) => {
    expectMgmtError(await unpaidApi.post('/services', serviceBody(override)), 400, field);
  });
});

describe('create: numReplicas and warehouses', () => {
  it(`without dataWarehouseId (first in a new warehouse): ${NUM_REPLICAS.firstInWarehouseMin} and ${NUM_REPLICAS.max} ok`, async () => {
    for (const numReplicas of [NUM_REPLICAS.firstInWarehouseMin, NUM_REPLICAS.max]) {
      const { service } = expectOk(await api.post('/services', serviceBody({ numReplicas })));
      expect(service.numReplicas).toBe(numReplicas);
    }
  });

  it.each([NUM_REPLICAS.firstInWarehouseMin - 1, NUM_REPLICAS.max + 1, 0, 2.5])(
    'without dataWarehouseId refuses numReplicas %s',
    async (numReplicas) => {
      await expectRejected(serviceBody({ numReplicas }), 'numReplicas');
    },
  );

  it('the first service of a warehouse is its primary and names the warehouse', async () => {
    const { service } = await createService(api);
    expect(service.dataWarehouseId).toBeTypeOf('string');
    expect(service.isPrimary).toBe(true);
  });

  it(`joining an existing warehouse allows numReplicas ${NUM_REPLICAS.min}..${NUM_REPLICAS.max}`, async () => {
    const primary = await createRunningService(api);
    for (const numReplicas of [NUM_REPLICAS.min, NUM_REPLICAS.max]) {
      const { service } = expectOk(
        await api.post('/services', serviceBody({ dataWarehouseId: primary.dataWarehouseId, numReplicas })),
      );
      expect(service.dataWarehouseId).toBe(primary.dataWarehouseId);
      expect(service.isPrimary).toBe(false);
      expect(service.numReplicas).toBe(numReplicas);
    }
    for (const numReplicas of [NUM_REPLICAS.min - 1, NUM_REPLICAS.max + 1]) {
      await expectRejected(
        serviceBody({ dataWarehouseId: primary.dataWarehouseId, numReplicas }),
        'numReplicas',
      );
    }
  });

  it('refuses a dataWarehouseId that names no existing warehouse', async () => {
    await expectRejected(serviceBody({ dataWarehouseId: randomUUID() }), 'dataWarehouseId');
  });

  it('refuses a dataWarehouseId that is not a uuid', async () => {
    await expectRejected(serviceBody({ dataWarehouseId: 'warehouse-1' }), 'dataWarehouseId');
  });

  it('isReadonly is allowed only with dataWarehouseId', async () => {
    await expectRejected(serviceBody({ isReadonly: true }), 'isReadonly');
    const primary = await createRunningService(api);
    const { service } = expectOk(
      await api.post(
        '/services',
        serviceBody({ dataWarehouseId: primary.dataWarehouseId, isReadonly: true }),
      ),
    );
    expect(service.isReadonly).toBe(true);
  });
});

describe('create: idleTimeoutMinutes (>= 5)', () => {
  it(`accepts ${IDLE_TIMEOUT_MINUTES_MIN} and refuses ${IDLE_TIMEOUT_MINUTES_MIN - 1}`, async () => {
    const { service } = expectOk(
      await api.post('/services', serviceBody({ idleTimeoutMinutes: IDLE_TIMEOUT_MINUTES_MIN })),
    );
    expect(service.idleTimeoutMinutes).toBe(IDLE_TIMEOUT_MINUTES_MIN);
    await expectRejected(
      serviceBody({ idleTimeoutMinutes: IDLE_TIMEOUT_MINUTES_MIN - 1 }),
      'idleTimeoutMinutes',
    );
  });
});

describe('create: byoc services', () => {
  it.each(BYOC_REPLICA_MEMORY)('accepts replica memory %s for min and max', async (value) => {
    const { service } = expectOk(
      await api.post(
        '/services',
        serviceBody({ byocId: 'byoc-1', minReplicaMemoryGb: value, maxReplicaMemoryGb: value }),
      ),
    );
    expect(service.byocId).toBe('byoc-1');
  });

  it('accepts different allowed values for min and max', async () => {
    expectOk(
      await api.post(
        '/services',
        serviceBody({
          byocId: 'byoc-1',
          minReplicaMemoryGb: BYOC_REPLICA_MEMORY[0],
          maxReplicaMemoryGb: BYOC_REPLICA_MEMORY[3],
        }),
      ),
    );
  });

  it.each(['minReplicaMemoryGb', 'maxReplicaMemoryGb'] as const)('requires %s', async (field) => {
    const body = serviceBody({ byocId: 'byoc-1', minReplicaMemoryGb: 48, maxReplicaMemoryGb: 232 });
    delete body[field];
    await expectRejected(body, field);
  });

  it.each(['minReplicaMemoryGb', 'maxReplicaMemoryGb'] as const)(
    'refuses a valid multiple of 4 that is not a byoc size for %s',
    async (field) => {
      const body = serviceBody({
        byocId: 'byoc-1',
        minReplicaMemoryGb: 48,
        maxReplicaMemoryGb: 232,
        [field]: 64,
      });
      if (field === 'minReplicaMemoryGb') body.maxReplicaMemoryGb = 232;
      await expectRejected(body, field);
    },
  );
});

describe('create: tags (extension)', () => {
  it(`accepts ${MAX_TAGS} tags and refuses ${MAX_TAGS + 1}`, async () => {
    const { service } = expectOk(await api.post('/services', serviceBody({ tags: tags(MAX_TAGS) })));
    expect(service.tags).toHaveLength(MAX_TAGS);
    await expectRejected(serviceBody({ tags: tags(MAX_TAGS + 1) }), 'tags');
  });
});

describe('list and get (extensions)', () => {
  it('lists the services of the organization; GET returns one service', async () => {
    expect(await listServices()).toEqual([]);
    const a = (await createService(api)).service;
    const b = (await createService(api)).service;
    const listed = await listServices();
    expect(listed.map((s: Json) => s.id).sort()).toEqual([a.id, b.id].sort());
    const got = await getService(api, a.id);
    expect(got.id).toBe(a.id);
    expect(got.name).toBe(a.name);
  });

  it('GET of an unknown service is 404', async () => {
    expectMgmtError(await api.get(servicePath(randomUUID())), 404);
  });

  it('filters by tag; repeated filters must all match', async () => {
    const tagged = async (env: string, team: string) =>
      (
        await createService(api, {
          tags: [
            { key: 'env', value: env },
            { key: 'team', value: team },
          ],
        })
      ).service;
    const prodA = await tagged('prod', 'a');
    const prodB = await tagged('prod', 'b');
    await tagged('dev', 'a');
    await createService(api);
    const ids = (services: Json[]) => services.map((s) => s.id).sort();
    expect(ids(await listServices('?filter=tag:env=prod'))).toEqual([prodA.id, prodB.id].sort());
    expect(ids(await listServices('?filter=tag:env=prod&filter=tag:team=a'))).toEqual([prodA.id]);
    expect(ids(await listServices('?filter=tag:env=prod&filter=tag:team=c'))).toEqual([]);
    expect(ids(await listServices(`?filter=${encodeURIComponent('tag:env=prod')}`))).toEqual(
      [prodA.id, prodB.id].sort(),
    );
  });
});

describe('update (operation 2)', () => {
  let service: Json;
  beforeEach(async () => {
    service = await createRunningService(api, {
      ipAccessList: [{ source: '10.0.0.0/8', description: 'office' }],
      tags: [{ key: 'env', value: 'prod' }],
    });
  });
  const patch = (body: unknown) => api.patch(servicePath(service.id), body);

  it('renames the service and returns the service object', async () => {
    const updated = expectOk(await patch({ name: 'New Name 1' }));
    expect(updated.id).toBe(service.id);
    expect(updated.name).toBe('New Name 1');
    expect((await getService(api, service.id)).name).toBe('New Name 1');
  });

  it('applies the name rule (50 ok, 51 and a dash refused)', async () => {
    expectOk(await patch({ name: 'b'.repeat(SERVICE_NAME_MAX) }));
    expectMgmtError(await patch({ name: 'b'.repeat(SERVICE_NAME_MAX + 1) }), 400, 'name');
    expectMgmtError(await patch({ name: 'with-dash' }), 400, 'name');
  });

  it('edits ipAccessList with {add, remove}; remove is applied before add', async () => {
    let updated = expectOk(
      await patch({ ipAccessList: { add: [{ source: '192.168.1.1', description: 'home' }] } }),
    );
    expect(updated.ipAccessList.map((e: Json) => e.source).sort()).toEqual(['10.0.0.0/8', '192.168.1.1']);
    updated = expectOk(
      await patch({
        ipAccessList: {
          remove: [{ source: '10.0.0.0/8', description: 'office' }],
          add: [{ source: '10.0.0.0/8', description: 'office again' }],
        },
      }),
    );
    expect(updated.ipAccessList).toContainEqual({ source: '10.0.0.0/8', description: 'office again' });
    updated = expectOk(await patch({ ipAccessList: { remove: [{ source: '192.168.1.1' }] } }));
    expect(updated.ipAccessList.map((e: Json) => e.source)).toEqual(['10.0.0.0/8']);
  });

  it('refuses an invalid ip entry naming it', async () => {
    expectMgmtError(
      await patch({ ipAccessList: { add: [{ source: 'nope' }] } }),
      400,
      'ipAccessList.add[0].source',
    );
  });

  it('edits privateEndpointIds with {add, remove}', async () => {
    let updated = expectOk(await patch({ privateEndpointIds: { add: ['vpce-1', 'vpce-2'] } }));
    expect([...updated.privateEndpointIds].sort()).toEqual(['vpce-1', 'vpce-2']);
    updated = expectOk(await patch({ privateEndpointIds: { remove: ['vpce-1'] } }));
    expect(updated.privateEndpointIds).toEqual(['vpce-2']);
  });

  it('sets releaseChannel and refuses an unknown one', async () => {
    expect(expectOk(await patch({ releaseChannel: 'fast' })).releaseChannel).toBe('fast');
    expectMgmtError(await patch({ releaseChannel: 'nightly' }), 400, 'releaseChannel');
  });

  it('toggles the mysql endpoint', async () => {
    const on = expectOk(await patch({ endpoints: [{ protocol: 'mysql', enabled: true }] }));
    expect(on.endpoints.some((e: Json) => e.protocol === 'mysql')).toBe(true);
    const off = expectOk(await patch({ endpoints: [{ protocol: 'mysql', enabled: false }] }));
    expect(off.endpoints.some((e: Json) => e.protocol === 'mysql')).toBe(false);
  });

  it('edits tags with {add, remove} (extension)', async () => {
    const updated = expectOk(
      await patch({ tags: { remove: [{ key: 'env', value: 'prod' }], add: [{ key: 'env', value: 'dev' }] } }),
    );
    expect(updated.tags).toEqual([{ key: 'env', value: 'dev' }]);
  });

  it('identifies a tag by its whole value: removing a different value removes nothing', async () => {
    const updated = expectOk(await patch({ tags: { remove: [{ key: 'env', value: 'staging' }] } }));
    expect(updated.tags).toEqual([{ key: 'env', value: 'prod' }]);
  });

  it(`refuses adding more than ${MAX_TAGS} tags in one edit`, async () => {
    expectMgmtError(await patch({ tags: { add: tags(MAX_TAGS + 1, 'x') } }), 400, 'tags');
    expect((await getService(api, service.id)).tags).toEqual([{ key: 'env', value: 'prod' }]);
  });

  it(`refuses an edit that would leave more than ${MAX_TAGS} tags on the service`, async () => {
    expectOk(await patch({ tags: { add: tags(MAX_TAGS - 1, 'x') } }));
    expectMgmtError(await patch({ tags: { add: [{ key: 'one', value: 'more' }] } }), 400, 'tags');
    expect((await getService(api, service.id)).tags).toHaveLength(MAX_TAGS);
  });

  it.each([
    ['provider', { provider: 'gcp' }],
    ['region', { region: 'eu-west-1' }],
    ['tier', { tier: 'production' }],
    ['byocId', { byocId: 'byoc-2' }],
    ['encryptionKey', { encryptionKey: 'k2' }],
    ['dataWarehouseId', { dataWarehouseId: randomUUID() }],
    ['isReadonly', { isReadonly: true }],
    ['complianceType', { complianceType: 'pci' }],
    ['hasTransparentDataEncryption', { hasTransparentDataEncryption: true }],
  ])('refuses changing %s after create, naming it', async (field, body) => {
    expectMgmtError(await patch(body), 400, field);
  });

  it('a PATCH with one bad field changes nothing', async () => {
    const before = await getService(api, service.id);
    expectMgmtError(
      await patch({ name: 'Changed', ipAccessList: { add: [{ source: '1.2.3.4' }, { source: 'bad' }] } }),
      400,
      'ipAccessList.add[1].source',
    );
    expect(await getService(api, service.id)).toEqual(before);
  });

  it('PATCH of an unknown service is 404', async () => {
    expectMgmtError(await api.patch(servicePath(randomUUID()), { name: 'x' }), 404);
  });
});

describe('password reset (extension)', () => {
  it('PATCH .../password with {} returns a new password', async () => {
    const { service, password } = await createService(api);
    const result = expectOk(await api.patch(`${servicePath(service.id)}/password`, {}));
    expect(result.password).toBeTypeOf('string');
    expect(result.password.length).toBeGreaterThan(0);
    expect(result.password).not.toBe(password);
    const again = expectOk(await api.patch(`${servicePath(service.id)}/password`, {}));
    expect(again.password).not.toBe(result.password);
  });

  it('refuses a body with fields, and an unknown service', async () => {
    const { service } = await createService(api);
    expectMgmtError(
      await api.patch(`${servicePath(service.id)}/password`, { password: 'mine' }),
      400,
      'password',
    );
    expectMgmtError(await api.patch(`${servicePath(randomUUID())}/password`, {}), 404);
  });
});
