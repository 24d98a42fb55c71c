// Every list answers with exactly the objects the single GETs answer with (settings, tags, state and all), so
// a client may observe by list; and a list spends the rate limit like any other call.
import { beforeAll, describe, expect, it } from 'vitest';
import { PIPE_SETTING_BOUNDS } from '../../src/cloud/schemas/index.ts';
import {
  alerting,
  control,
  expectData,
  expectOk,
  mgmt,
  startTestEmulator,
  useContractEmulator,
} from './support/api.ts';
import type { Json } from './support/api.ts';
import {
  alertBody,
  createAlert,
  createPipe,
  createRunningService,
  createService,
  pipePath,
  pipesPath,
  rpeBody,
  rpesPath,
  servicePath,
  waitPipeState,
} from './support/fixtures.ts';

/** Each item of `list` equals the single GET of its id; the ids are exactly `ids`. */
async function expectListMatchesGets(list: Json[], ids: string[], get: (id: string) => Promise<Json>) {
  expect(list.map((item) => item.id).sort()).toEqual([...ids].sort());
  for (const item of list) expect(item).toEqual(await get(item.id));
}

describe('lists answer what the single GETs answer', () => {
  const { emu, api, alerts } = useContractEmulator({}, { reset: false });
  // Every object in a state of its own, with the optional parts set on some: what a list could drop or get wrong.
  const ids = {
    services: [] as string[],
    pipes: [] as string[],
    rpes: [] as string[],
    alerts: [] as string[],
  };
  let serviceId: string;

  beforeAll(async () => {
    const running = await createRunningService(api, {
      tags: [
        { key: 'team', value: 'data' },
        { key: 'env', value: 'prod' },
      ],
      ipAccessList: [{ source: '10.0.0.0/8', description: 'office' }],
    });
    serviceId = running.id;
    const stopped = await createRunningService(api, { endpoints: [{ protocol: 'mysql', enabled: true }] });
    expectOk(await api.patch(`${servicePath(stopped.id)}/state`, { command: 'stop' }));
    // One setting set away from the service default, whichever the schema lists first.
    const [settingKey, { min }] = Object.entries(PIPE_SETTING_BOUNDS)[0] as [string, { min: number }];
    const withSettings = await createPipe(api, serviceId, 'kafka');
    expectOk(await api.put(`${pipePath(serviceId, withSettings.id)}/settings`, { [settingKey]: min }));
    const stoppedPipe = await createPipe(api, serviceId, 'kinesis');
    await waitPipeState(api, serviceId, stoppedPipe.id, 'Running');
    expectOk(await api.patch(`${pipePath(serviceId, stoppedPipe.id)}/state`, { command: 'stop' }));
    const postgres = await createPipe(api, serviceId, 'postgres');
    const oneShot = await createPipe(api, serviceId, 'objectStorage');
    const types = ['VPC_ENDPOINT_SERVICE', 'VPC_RESOURCE', 'MSK_MULTI_VPC'] as const;
    for (const type of types) ids.rpes.push(expectOk(await api.post(rpesPath(serviceId), rpeBody(type))).id);
    const tile = await createAlert(alerts, alertBody('tile'));
    const search = await createAlert(alerts, alertBody('search', { name: 'slow queries' }));
    await control(emu).forceState('alert', search.id, 'ALERT');
    // The last service is left provisioning, and then every state holds still while lists and GETs are compared.
    await control(emu).holdTransitions();
    const provisioning = (await createService(api, { tags: [{ key: 'env', value: 'dev' }] })).service;
    ids.services.push(running.id, stopped.id, provisioning.id);
    ids.pipes.push(withSettings.id, stoppedPipe.id, postgres.id, oneShot.id);
    ids.alerts.push(tile.id, search.id);
  });

  it('the services list: every service as GET service answers it', async () => {
    const list = expectOk(await api.get('/services'));
    await expectListMatchesGets(list, ids.services, async (id) => expectOk(await api.get(servicePath(id))));
    expect(new Set(list.map((service: Json) => service.state)).size).toBeGreaterThan(1);
  });

  it('the services list filtered by tag: the tagged services as GET service answers them', async () => {
    const list = expectOk(await api.get('/services?filter=tag:env=prod'));
    await expectListMatchesGets(list, [serviceId], async (id) => expectOk(await api.get(servicePath(id))));
  });

  it("a service's pipes list: every pipe as GET pipe answers it", async () => {
    const list = expectOk(await api.get(pipesPath(serviceId)));
    await expectListMatchesGets(list, ids.pipes, async (id) =>
      expectOk(await api.get(pipePath(serviceId, id))),
    );
    expect(new Set(list.map((pipe: Json) => pipe.state)).size).toBeGreaterThan(1);
  });

  it("a service's reverse private endpoints list: every endpoint as GET endpoint answers it", async () => {
    const list = expectOk(await api.get(rpesPath(serviceId)));
    await expectListMatchesGets(list, ids.rpes, async (id) =>
      expectOk(await api.get(`${rpesPath(serviceId)}/${id}`)),
    );
  });

  it('the alerts list: every alert as GET alert answers it', async () => {
    const list = expectData(await alerts.get('/alerts'));
    await expectListMatchesGets(list, ids.alerts, async (id) =>
      expectData(await alerts.get(`/alerts/${id}`)),
    );
    expect(new Set(list.map((alert: Json) => alert.state)).size).toBeGreaterThan(1);
  });
});

describe('a list spends the rate limit like any call', () => {
  // A fresh emulator per case, at the real 10 per 10 s: the create spends one call, nine lists the rest.
  const lists: Array<[string, (serviceId: string) => string]> = [
    ['the services list', () => '/services'],
    ["a service's pipes list", (id) => pipesPath(id)],
    ["a service's reverse private endpoints list", (id) => rpesPath(id)],
  ];

  it.each(lists)('%s: the eleventh call of the window is 429, and a GET after it too', async (_, path) => {
    const emu = await startTestEmulator({ rateLimit: undefined });
    try {
      const api = mgmt(emu);
      const { service } = await createService(api);
      for (let i = 0; i < 9; i++) expectOk(await api.get(path(service.id)));
      expect((await api.get(path(service.id))).status).toBe(429);
      expect((await api.get(servicePath(service.id))).status).toBe(429);
    } finally {
      await emu.stop();
    }
  });

  it('the alerts list: counted in the alerting budget with the single calls', async () => {
    const emu = await startTestEmulator({
      rateLimit: undefined,
      alertsRateLimit: { requests: 3, windowSeconds: 60 },
    });
    try {
      const alerts = alerting(emu);
      const alert = await createAlert(alerts);
      for (let i = 0; i < 2; i++) expectData(await alerts.get('/alerts'));
      expect((await alerts.get('/alerts')).status).toBe(429);
      expect((await alerts.get(`/alerts/${alert.id}`)).status).toBe(429);
    } finally {
      await emu.stop();
    }
  });
});
