/**
 * The alerting API's webhooks, saved searches, dashboards, sources and connections, on both of its paths: the
 * self-hosted one (`/api/v2`, bearer token, `{data}`, `{message}`) and the cloud one (under a service,
 * `…/clickstack`, the management key, `{result}`, `{error}`), over one store.
 */
import { describe, expect, it, beforeEach } from 'vitest';
import {
  alerting,
  clickstackCloud,
  expectAlertError,
  expectData,
  expectMgmtError,
  expectOk,
  mgmt,
  useContractEmulator,
  type ApiClient,
  type Json,
  type Reply,
} from './support/api.ts';
import { alertBody, createService, SECRET } from './support/fixtures.ts';

const { emu, api } = useContractEmulator();

let serviceId = '';
beforeEach(async () => {
  serviceId = (await createService(api)).service.id;
});

interface Path {
  name: string;
  client: ApiClient;
  /** The same path with no credentials. */
  anonymous: ApiClient;
  unwrap(reply: Reply): Json;
  expectError(reply: Reply, status: 400 | 404 | 409, field?: string | RegExp): string;
}

const selfHosted: Path = {
  name: 'self-hosted /api/v2',
  client: alerting(emu),
  anonymous: alerting(emu, { auth: null }),
  unwrap: expectData,
  expectError: expectAlertError,
};
const cloud: Path = {
  name: 'cloud …/services/{id}/clickstack',
  client: clickstackCloud(emu, () => serviceId),
  anonymous: clickstackCloud(emu, () => serviceId, { auth: null }),
  unwrap: expectOk,
  expectError: expectMgmtError,
};

const webhookBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'team on-call',
  service: 'generic',
  url: 'https://hooks.example.com/alerts',
  description: 'pages the on-call',
  body: '{"text": "{{title}}"}',
  headers: { Authorization: `Bearer ${SECRET}` },
  queryParams: { token: SECRET },
  ...overrides,
});

const tile = (name: string, x: number, overrides: Record<string, unknown> = {}) => ({
  name,
  x,
  y: 0,
  w: 6,
  h: 3,
  config: { displayType: 'line', sourceId: 'logs', select: [{ aggFn: 'count' }] },
  ...overrides,
});
const dashboardBody = (tiles: Record<string, unknown>[] = [tile('errors', 0), tile('latency', 6)]) => ({
  name: 'checkout',
  tags: ['team-a'],
  tiles,
});

describe.each([selfHosted, cloud])('$name', (path) => {
  const { client } = path;
  const listWebhooks = async (): Promise<Json[]> => path.unwrap(await client.get('/webhooks'));
  const createWebhook = async (overrides: Record<string, unknown> = {}): Promise<Json> =>
    path.unwrap(await client.post('/webhooks', webhookBody(overrides)));

  it('refuses a call without credentials (401) on every family', async () => {
    for (const family of ['/webhooks', '/saved-searches', '/dashboards', '/sources', '/alerts'])
      expect((await path.anonymous.get(family)).status).toBe(401);
  });

  it('strips a body field it does not know, on every family and at every depth, instead of refusing it', async () => {
    const extra = { colour: 'red' };
    const created = {
      webhook: path.unwrap(await client.post('/webhooks', webhookBody(extra))),
      search: path.unwrap(await client.post('/saved-searches', { name: 'x', sourceId: 'logs', ...extra })),
      dashboard: path.unwrap(
        await client.post('/dashboards', dashboardBody([{ ...tile('a', 0), ...extra }])),
      ),
      source: path.unwrap(
        await client.post('/sources', {
          ...extra,
          name: 'logs',
          kind: 'log',
          connection: 'conn-1',
          from: { databaseName: 'otel', tableName: 'otel_logs', ...extra },
          timestampValueExpression: 'Timestamp',
          querySettings: [{ setting: 'max_threads', value: '4', ...extra }],
        }),
      ),
      alert: path.unwrap(await client.post('/alerts', { ...alertBody('tile'), ...extra })),
    };
    expect(JSON.stringify(created)).not.toContain('colour');
    expect(created.source).toMatchObject({ from: { databaseName: 'otel' }, querySettings: [{ value: '4' }] });
    const stored = [
      emu.store.webhooks.get(created.webhook.id),
      emu.store.savedSearches.get(created.search.id),
      emu.store.dashboards.get(created.dashboard.id),
      emu.store.sources.get(created.source.id),
      emu.store.alerts.get(created.alert.id),
    ];
    expect(stored.every((object) => object !== undefined)).toBe(true);
    expect(JSON.stringify(stored)).not.toContain('colour');
  });

  describe('webhooks', () => {
    it('create answers the webhook without its write-only headers and query parameters; a list shows it', async () => {
      const reply = await client.post('/webhooks', webhookBody());
      const webhook = path.unwrap(reply);
      expect(webhook).toMatchObject({ name: 'team on-call', service: 'generic', url: webhookBody().url });
      expect(webhook.id).toMatch(/^[0-9a-f]{24}$/);
      expect(reply.text).not.toContain(SECRET);
      const listed = await client.get('/webhooks');
      expect(listed.text).not.toContain(SECRET);
      expect(path.unwrap(listed).map((hook: Json) => hook.id)).toEqual([webhook.id]);
    });

    it('has no GET by id: a reader lists', async () => {
      const webhook = await createWebhook();
      expect((await client.get(`/webhooks/${webhook.id}`)).status).toBe(404);
    });

    it('update clears an omitted description, keeps omitted headers, and clears them when the url changes', async () => {
      const webhook = await createWebhook();
      const { description: _d, headers: _h, queryParams: _q, ...bare } = webhookBody();
      const updated = path.unwrap(await client.put(`/webhooks/${webhook.id}`, bare));
      expect(updated.description).toBeUndefined();
      expect(emu.store.webhooks.get(webhook.id)?.headers).toEqual(webhookBody().headers);
      path.unwrap(
        await client.put(`/webhooks/${webhook.id}`, { ...bare, url: 'https://other.example.com/x' }),
      );
      expect(emu.store.webhooks.get(webhook.id)?.headers).toBeUndefined();
      expect(emu.store.webhooks.get(webhook.id)?.queryParams).toBeUndefined();
    });

    it('refuses bad input with a 400 naming the field, and stores nothing', async () => {
      path.expectError(await client.post('/webhooks', webhookBody({ url: 'not a url' })), 400, 'url');
      path.expectError(await client.post('/webhooks', webhookBody({ service: 'email' })), 400, 'service');
      path.expectError(
        await client.post(
          '/webhooks',
          webhookBody({ service: 'slack', body: undefined, queryParams: undefined }),
        ),
        400,
        'headers',
      );
      expect(await listWebhooks()).toEqual([]);
    });

    it('refuses a second webhook of the same service and name (400 naming name)', async () => {
      await createWebhook();
      path.expectError(await client.post('/webhooks', webhookBody()), 400, 'name');
    });

    it('a delete answers 409 naming the alerts while an alert notifies the webhook, and 200 once none does', async () => {
      const webhook = await createWebhook();
      const alert = path.unwrap(
        await client.post(
          '/alerts',
          alertBody('tile', { channel: { type: 'webhook', webhookId: webhook.id } }),
        ),
      );
      const message = path.expectError(await client.delete(`/webhooks/${webhook.id}`), 409);
      expect(message).toContain(alert.id);
      expect((await listWebhooks()).map((hook) => hook.id)).toEqual([webhook.id]);
      expect((await client.delete(`/alerts/${alert.id}`)).status).toBe(200);
      expect((await client.delete(`/webhooks/${webhook.id}`)).status).toBe(200);
      expect(await listWebhooks()).toEqual([]);
      path.expectError(await client.delete(`/webhooks/${webhook.id}`), 404);
    });
  });

  describe('saved searches', () => {
    const body = {
      name: 'errors',
      sourceId: 'logs',
      where: 'level:error',
      whereLanguage: 'lucene',
      tags: ['a'],
    };

    it('create, get, replace (omitted fields back to their defaults) and delete', async () => {
      const search = path.unwrap(
        await client.post('/saved-searches', { ...body, orderBy: 'Timestamp DESC' }),
      );
      expect(search).toMatchObject({ ...body, orderBy: 'Timestamp DESC', select: '' });
      expect(path.unwrap(await client.get(`/saved-searches/${search.id}`))).toEqual(search);
      const replaced = path.unwrap(await client.put(`/saved-searches/${search.id}`, body));
      expect(replaced).toMatchObject({ id: search.id, orderBy: '' });
      expect((await client.delete(`/saved-searches/${search.id}`)).status).toBe(200);
      path.expectError(await client.get(`/saved-searches/${search.id}`), 404);
    });

    it('filters default to [] when a create or replace leaves them out', async () => {
      const search = path.unwrap(await client.post('/saved-searches', body));
      expect(search.filters).toEqual([]);
      const pinned = [{ type: 'sql', condition: "ServiceName = 'api'" }];
      path.unwrap(await client.put(`/saved-searches/${search.id}`, { ...body, filters: pinned }));
      expect(emu.store.savedSearches.get(search.id)?.filters).toEqual(pinned);
      expect(path.unwrap(await client.put(`/saved-searches/${search.id}`, body)).filters).toEqual([]);
    });

    it('deleting a saved search deletes the alerts on it', async () => {
      const search = path.unwrap(await client.post('/saved-searches', body));
      const alert = path.unwrap(
        await client.post('/alerts', alertBody('search', { savedSearchId: search.id })),
      );
      await client.delete(`/saved-searches/${search.id}`);
      path.expectError(await client.get(`/alerts/${alert.id}`), 404);
    });

    it('refuses bad input with a 400 naming the field', async () => {
      path.expectError(await client.post('/saved-searches', { name: 'x' }), 400, 'sourceId');
      path.expectError(
        await client.post('/saved-searches', { ...body, whereLanguage: 'kql' }),
        400,
        'whereLanguage',
      );
    });
  });

  describe('dashboards', () => {
    it('create gives each tile an id; a replace that sends the ids keeps them, one without gets a new one', async () => {
      const dashboard = path.unwrap(await client.post('/dashboards', dashboardBody()));
      const [errors, latency] = dashboard.tiles;
      expect(errors.id).toMatch(/^[0-9a-f]{24}$/);
      expect(latency.id).not.toBe(errors.id);
      const edited = dashboardBody([{ ...tile('errors', 0, { h: 4 }), id: errors.id }, tile('latency', 6)]);
      const replaced = path.unwrap(await client.put(`/dashboards/${dashboard.id}`, edited));
      expect(replaced.tiles[0]).toMatchObject({ id: errors.id, h: 4 });
      expect(replaced.tiles[1].id).not.toBe(latency.id);
    });

    it('a replace deletes the alerts of the tiles it drops and keeps those of the tiles it keeps', async () => {
      const dashboard = path.unwrap(await client.post('/dashboards', dashboardBody()));
      const [errors, latency] = dashboard.tiles;
      const alertOn = async (tileId: string) =>
        path.unwrap(await client.post('/alerts', alertBody('tile', { dashboardId: dashboard.id, tileId })));
      const onErrors = await alertOn(errors.id);
      const onLatency = await alertOn(latency.id);
      path.unwrap(
        await client.put(
          `/dashboards/${dashboard.id}`,
          dashboardBody([{ ...tile('errors', 0), id: errors.id }]),
        ),
      );
      expect(path.unwrap(await client.get(`/alerts/${onErrors.id}`)).id).toBe(onErrors.id);
      path.expectError(await client.get(`/alerts/${onLatency.id}`), 404);
      await client.delete(`/dashboards/${dashboard.id}`);
      path.expectError(await client.get(`/alerts/${onErrors.id}`), 404);
    });

    it('validate answers the verdict with every problem by path, and stores nothing', async () => {
      const good = await client.post('/dashboards/validate', dashboardBody());
      const verdict = path === selfHosted ? good.body : expectOk(good);
      expect(good.status).toBe(200);
      expect(verdict).toMatchObject({ valid: true, errors: [] });
      const bad = await client.post('/dashboards/validate', dashboardBody([tile('a', 20), tile('', 0)]));
      const problems = path === selfHosted ? bad.body : expectOk(bad);
      expect(problems.valid).toBe(false);
      expect(problems.errors.map((error: Json) => error.path).sort()).toEqual([
        'tiles[0].w',
        'tiles[1].name',
      ]);
      expect(path.unwrap(await client.get('/dashboards'))).toEqual([]);
    });

    it('refuses bad input with a 400 naming the field', async () => {
      path.expectError(await client.post('/dashboards', dashboardBody([tile('a', 20)])), 400, 'tiles[0].w');
      path.expectError(await client.post('/dashboards', { tiles: [] }), 400, 'name');
    });
  });

  describe('sources', () => {
    const source = {
      name: 'logs',
      kind: 'log',
      connection: 'conn-1',
      from: { databaseName: 'otel', tableName: 'otel_logs' },
      timestampValueExpression: 'TimestampTime',
      bodyExpression: 'Body',
    };

    it('create (an id in the body is ignored), list, replace and delete', async () => {
      const created = path.unwrap(await client.post('/sources', { ...source, id: 'mine' }));
      expect(created.id).toMatch(/^[0-9a-f]{24}$/);
      expect(created).toMatchObject(source);
      expect(path.unwrap(await client.get('/sources'))).toEqual([created]);
      const replaced = path.unwrap(
        await client.put(`/sources/${created.id}`, { ...source, bodyExpression: 'Msg' }),
      );
      expect(replaced).toMatchObject({ id: created.id, bodyExpression: 'Msg' });
      expect((await client.delete(`/sources/${created.id}`)).status).toBe(200);
      expect(path.unwrap(await client.get('/sources'))).toEqual([]);
    });

    it('accepts every kind, promql included', async () => {
      for (const kind of ['log', 'trace', 'metric', 'session', 'promql'])
        expect(path.unwrap(await client.post('/sources', { ...source, name: kind, kind })).kind).toBe(kind);
    });

    it('refuses bad input with a 400 naming the field', async () => {
      path.expectError(await client.post('/sources', { ...source, kind: 'span' }), 400, 'kind');
      path.expectError(
        await client.post('/sources', { ...source, from: { tableName: 'x' } }),
        400,
        'from.databaseName',
      );
    });
  });
});

describe('the two paths', () => {
  const cloudClient = clickstackCloud(emu, () => serviceId);
  const selfHostedClient = alerting(emu);

  it('share one store: what one creates the other lists and deletes', async () => {
    const webhook = expectData(await selfHostedClient.post('/webhooks', webhookBody()));
    expect(expectOk(await cloudClient.get('/webhooks')).map((hook: Json) => hook.id)).toEqual([webhook.id]);
    const dashboard = expectOk(await cloudClient.post('/dashboards', dashboardBody()));
    expect(expectData(await selfHostedClient.get(`/dashboards/${dashboard.id}`))).toEqual(dashboard);
    expect((await cloudClient.delete(`/webhooks/${webhook.id}`)).status).toBe(200);
    expect(expectData(await selfHostedClient.get('/webhooks'))).toEqual([]);
  });

  it('the self-hosted webhook list pages with limit and offset and says the total', async () => {
    for (const name of ['a', 'b', 'c']) await selfHostedClient.post('/webhooks', webhookBody({ name }));
    const page = await selfHostedClient.get('/webhooks?limit=2&offset=1');
    expect(page.body.meta).toEqual({ total: 3, limit: 2, offset: 1 });
    expect(page.body.data).toHaveLength(2);
    expectAlertError(await selfHostedClient.get('/webhooks?limit=0'), 400, 'limit');
  });

  it('the cloud path needs an existing service (404) of the key organization (403)', async () => {
    const gone = clickstackCloud(emu, () => '00000000-0000-4000-8000-000000000000');
    expectMgmtError(await gone.get('/webhooks'), 404);
    const other = mgmt(emu, { organizationId: '00000000-0000-4000-8000-000000000001' });
    expectMgmtError(await other.get(`/services/${serviceId}/clickstack/webhooks`), 403);
  });

  it('the cloud path has no source by id; connections only on the self-hosted path, never with their password', async () => {
    expectMgmtError(await cloudClient.get('/sources/0123456789abcdef01234567'), 404);
    expectMgmtError(await cloudClient.get('/connections'), 404);
    const body = {
      name: 'local',
      host: 'https://ch.example.com:8443',
      username: 'default',
      password: SECRET,
    };
    const created = await selfHostedClient.post('/connections', body);
    const connection = expectData(created);
    expect(created.text).not.toContain(SECRET);
    const { password: _p, ...rest } = body;
    const updated = expectData(await selfHostedClient.put(`/connections/${connection.id}`, rest));
    expect(updated).toMatchObject(rest);
    expect(emu.store.connections.get(connection.id)?.password).toBe(SECRET);
    expect((await selfHostedClient.get('/connections')).text).not.toContain(SECRET);
    expectAlertError(await selfHostedClient.post('/connections', { ...body, host: 'ch' }), 400, 'host');
  });
});

describe('the alerting quota on the cloud path', () => {
  const limited = useContractEmulator({
    rateLimit: { requests: 2, windowSeconds: 60 },
    alertsRateLimit: { requests: 4, windowSeconds: 60 },
  });
  let limitedService = '';
  beforeEach(async () => {
    limitedService = (await createService(limited.api)).service.id;
  });

  it('counts the management key against the alerting limit, not the management one', async () => {
    const client = clickstackCloud(limited.emu, () => limitedService);
    for (let call = 0; call < 4; call++) expectOk(await client.get('/webhooks'));
    const refused = await client.get('/webhooks');
    expectMgmtError(refused, 429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The management window still has its second call.
    expectOk(await limited.api.get(`/services/${limitedService}`));
  });
});
