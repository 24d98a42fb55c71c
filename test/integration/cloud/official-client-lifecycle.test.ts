/**
 * The real API's official client, unchanged, against the emulator: its Terraform provider's alerting resources
 * (webhook, saved search, dashboard, source, and an alert on them) run create → update → import → destroy under
 * OpenTofu, on both ways the alerting API is reached: the self-hosted path with the token, and the cloud path
 * under a service with the management key. Each step is asserted on the client's side (exit code, state, plan)
 * and on the emulator's (the writes in its call log, what its store holds).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertBody } from '../../contract/support/fixtures.ts';
import { alerting, clickstackCloud, expectData, expectOk, type Reply } from '../../contract/support/api.ts';
import {
  findOfficialClient,
  output,
  PROVIDER_SOURCE,
  TofuDir,
  type OfficialClient,
  type Run,
} from './official-client.ts';
import {
  calls,
  clearCalls,
  managementClient,
  resetEmulator,
  runningService,
  useEmulator,
} from './support.ts';
import type { Call, Emulator } from './support.ts';

const client = findOfficialClient();
const SELF_HOSTED = '/api/v2';
const CLOUD = '/v1/organizations/:organizationId/services/:serviceId/clickstack';

interface Transport {
  name: string;
  /** The route patterns' prefix in the call log. */
  prefix: string;
  /** The key the call log names. */
  key: (emu: Emulator) => string;
  provider: (emu: Emulator, serviceId: string) => Record<string, string>;
  /** The source's connection: made by the client on the self-hosted path; the cloud service's own on the other. */
  managesConnection: boolean;
}

const TRANSPORTS: Transport[] = [
  {
    name: 'self-hosted (/api/v2, bearer token)',
    prefix: SELF_HOSTED,
    key: () => 'alerts',
    provider: (emu) => ({ clickstack_endpoint: emu.url, clickstack_api_key: emu.credentials.alertsToken }),
    managesConnection: true,
  },
  {
    name: 'cloud (…/services/{id}/clickstack, management key)',
    prefix: CLOUD,
    key: (emu) => emu.credentials.keyId,
    provider: (emu, serviceId) => ({
      api_url: `${emu.url}/v1`,
      organization_id: emu.credentials.organizationId,
      token_key: emu.credentials.keyId,
      token_secret: emu.credentials.keySecret,
      clickstack_service_id: serviceId,
    }),
    managesConnection: false,
  },
];

/** What changes between the applies; `tileIds` writes the dashboard as its server answers it (after an import). */
interface Edition {
  version: 1 | 2;
  tileIds?: string[];
}

const hookToken = (version: number) => `Bearer hook-token-v${version}`;
const CLOUD_CONNECTION = '0123456789abcdef01234567';
const ref = (address: string) => `\${${address}.id}`;

/**
 * JSON with its keys sorted and no spaces: the text `jsonencode` gives an author in HCL, and the one the client
 * writes when it imports a dashboard. The client compares a dashboard's text before its content, so a body equal
 * to the imported one but written otherwise plans an update at every plan.
 */
function canonicalJson(value: unknown): string {
  const sorted = (inner: unknown): unknown =>
    Array.isArray(inner)
      ? inner.map(sorted)
      : inner !== null && typeof inner === 'object'
        ? Object.fromEntries(
            Object.entries(inner)
              .sort(([a], [b]) => (a < b ? -1 : 1))
              .map(([key, v]) => [key, sorted(v)]),
          )
        : inner;
  return JSON.stringify(sorted(value));
}

function configuration(emu: Emulator, transport: Transport, serviceId: string, edition: Edition): object {
  const v = edition.version;
  const connectionId = transport.managesConnection
    ? ref('clickhouse_clickstack_connection.main')
    : CLOUD_CONNECTION;
  const tile = (i: number, name: string, where: string) => ({
    ...(edition.tileIds ? { id: edition.tileIds[i] } : {}),
    name,
    x: i * 12,
    y: 0,
    w: 12,
    h: 3,
    config: {
      displayType: i === 0 ? 'line' : 'number',
      sourceId: ref('clickhouse_clickstack_source.logs'),
      where,
      whereLanguage: 'lucene',
      select: [{ aggFn: 'count' }],
    },
  });
  return {
    terraform: { required_providers: { clickhouse: { source: PROVIDER_SOURCE } } },
    provider: { clickhouse: transport.provider(emu, serviceId) },
    resource: {
      ...(transport.managesConnection
        ? {
            clickhouse_clickstack_connection: {
              main: {
                name: 'main',
                host: 'https://clickhouse.example.com:8443',
                username: 'default',
                password: 'connection-password',
              },
            },
          }
        : {}),
      clickhouse_clickstack_source: {
        logs: {
          name: `Logs v${v}`,
          kind: 'log',
          connection_id: connectionId,
          from: { database_name: 'otel', table_name: 'otel_logs' },
          timestamp_value_expression: 'Timestamp',
          default_table_select_expression: v === 1 ? 'Timestamp, Body' : 'Timestamp, ServiceName, Body',
          body_expression: 'Body',
        },
      },
      clickhouse_clickstack_saved_search: {
        errors: {
          name: `Errors v${v}`,
          source_id: ref('clickhouse_clickstack_source.logs'),
          where: v === 1 ? 'level:error' : 'level:error OR level:fatal',
          tags: ['team-a'],
        },
      },
      clickhouse_clickstack_webhook: {
        hook: {
          name: 'team-a',
          service: 'generic',
          url: `https://hooks.example.com/team-a/v${v}`,
          description: `v${v}`,
          body: '{"text":"{{title}}"}',
          headers: { Authorization: hookToken(v) },
          headers_version: `v${v}`,
        },
      },
      clickhouse_clickstack_dashboard: {
        board: {
          dashboard_json: canonicalJson({
            name: `Errors v${v}`,
            tags: ['team-a'],
            tiles: [
              tile(0, 'Error count', 'level:error'),
              tile(1, 'Fatal count', v === 1 ? 'level:fatal' : 'level:fatal OR level:panic'),
            ],
          }),
        },
      },
      clickhouse_clickstack_alert: {
        errors: {
          saved_search_id: ref('clickhouse_clickstack_saved_search.errors'),
          channel: { type: 'webhook', webhook_id: ref('clickhouse_clickstack_webhook.hook') },
          threshold: 100,
          threshold_type: 'above',
          interval: '5m',
          name: `too many errors v${v}`,
        },
      },
    },
  };
}

const ADDRESS = {
  source: 'clickhouse_clickstack_source.logs',
  savedSearch: 'clickhouse_clickstack_saved_search.errors',
  webhook: 'clickhouse_clickstack_webhook.hook',
  dashboard: 'clickhouse_clickstack_dashboard.board',
  alert: 'clickhouse_clickstack_alert.errors',
} as const;
/** The four resources whose whole lifecycle is the point; the alert and the connection come along. */
const FOUR = [ADDRESS.webhook, ADDRESS.savedSearch, ADDRESS.dashboard, ADDRESS.source] as const;

/** The calls that change something, as `METHOD route`, in order: the validate call stores nothing. */
const writes = (log: Call[]) =>
  log
    .filter((call) => call.method !== 'GET' && !call.route.endsWith('/dashboards/validate'))
    .map((call) => `${call.method} ${call.route}`);

describe.skipIf('missing' in client).each(TRANSPORTS)('$name', (transport) => {
  const official = client as OfficialClient;
  // At the real quotas (100 alerting calls per 60 s per key or token): a lifecycle makes about 80.
  const emu = useEmulator({ rateLimit: undefined }, { reset: false });
  const route = (family: string, byId = false) => `${transport.prefix}/${family}${byId ? '/:id' : ''}`;
  let tofu: TofuDir;
  let serviceId = '';
  const ids: Record<string, string> = {};
  let tileIds: string[] = [];
  let tileAlertId = '';
  let consoleWebhookId = '';

  beforeAll(async () => {
    await resetEmulator(emu);
    if (transport.prefix === CLOUD) {
      const management = managementClient(emu);
      serviceId = await runningService(management, 'observability');
      await management.close();
    }
    tofu = await TofuDir.create(official);
  });
  afterAll(async () => {
    await tofu?.remove();
  });

  /** Clears the call log, runs the step, and returns its run and the calls it made. */
  async function step(run: () => Promise<Run>) {
    await clearCalls(emu);
    const result = await run();
    return { result, log: await calls(emu) };
  }

  /** The alerting API on this transport, as a console or a script calls it; `read` unwraps the answer. */
  const cloud = transport.prefix === CLOUD;
  const byHand = () => (cloud ? clickstackCloud(emu, () => serviceId) : alerting(emu));
  const read = (reply: Reply) => (cloud ? expectOk(reply) : expectData(reply));

  const apply = (edition: Edition) => async () => {
    await tofu.configure(configuration(emu, transport, serviceId, edition));
    return tofu.run('apply', '-auto-approve');
  };

  it('creates each object with one POST on its own path and key, the secret header stored but never answered or kept', async () => {
    const { result, log } = await step(apply({ version: 1 }));
    expect(result.code, output(result)).toBe(0);

    const state = await tofu.state();
    for (const address of [...FOUR, ADDRESS.alert]) ids[address] = String(state.get(address)?.id);
    expect(new Set(writes(log))).toEqual(
      new Set([
        ...(transport.managesConnection ? [`POST ${route('connections')}`] : []),
        `POST ${route('sources')}`,
        `POST ${route('saved-searches')}`,
        `POST ${route('webhooks')}`,
        `POST ${route('dashboards')}`,
        `POST ${route('alerts')}`,
      ]),
    );
    expect(writes(log)).toHaveLength(transport.managesConnection ? 6 : 5);
    expect(new Set(log.map((call) => call.key))).toEqual(new Set([transport.key(emu)]));

    const webhook = emu.store.webhooks.get(ids[ADDRESS.webhook]!);
    expect(webhook).toMatchObject({
      name: 'team-a',
      service: 'generic',
      url: 'https://hooks.example.com/team-a/v1',
      description: 'v1',
      body: '{"text":"{{title}}"}',
      headers: { Authorization: hookToken(1) },
    });
    const source = emu.store.sources.get(ids[ADDRESS.source]!);
    expect(source).toMatchObject({ name: 'Logs v1', kind: 'log', timestampValueExpression: 'Timestamp' });
    expect(emu.store.savedSearches.get(ids[ADDRESS.savedSearch]!)).toMatchObject({
      name: 'Errors v1',
      sourceId: ids[ADDRESS.source],
      where: 'level:error',
      whereLanguage: 'lucene',
      tags: ['team-a'],
    });
    const dashboard = emu.store.dashboards.get(ids[ADDRESS.dashboard]!)!;
    expect(dashboard.tiles.map((t) => t.name)).toEqual(['Error count', 'Fatal count']);
    tileIds = dashboard.tiles.map((t) => t.id);
    expect(emu.store.alerts.get(ids[ADDRESS.alert]!)).toMatchObject({
      channel: { type: 'webhook', webhookId: ids[ADDRESS.webhook] },
    });

    // Write-only: sent once, held by the service, in no answer, no state and no call log.
    expect(JSON.stringify(read(await byHand().get('/webhooks')))).not.toContain('hook-token');
    expect(await tofu.stateFile()).not.toContain('hook-token');
    expect(JSON.stringify(log)).not.toContain('hook-token');

    const plan = await tofu.plan();
    expect(plan.code, output(plan)).toBe(0);
  });

  it('changes each object in place with one PUT, keeping every id and the dashboard tiles’ ids (and so an alert on a tile)', async () => {
    // An alert made on the first tile outside the client, as in the console, notifying a webhook made there too:
    // the tile's id must survive the client's updates.
    const made = async (path: string, body: object) => String(read(await byHand().post(path, body)).id);
    consoleWebhookId = await made('/webhooks', {
      name: 'console',
      service: 'slack',
      url: 'https://hooks.example.com/c',
    });
    tileAlertId = await made(
      '/alerts',
      alertBody('tile', {
        dashboardId: ids[ADDRESS.dashboard],
        tileId: tileIds[0],
        channel: { type: 'webhook', webhookId: consoleWebhookId },
      }),
    );

    const { result, log } = await step(apply({ version: 2 }));
    expect(result.code, output(result)).toBe(0);

    expect(new Set(writes(log))).toEqual(
      new Set([
        `PUT ${route('sources', true)}`,
        `PUT ${route('saved-searches', true)}`,
        `PUT ${route('webhooks', true)}`,
        `PUT ${route('dashboards', true)}`,
        `PUT ${route('alerts', true)}`,
      ]),
    );
    expect(writes(log)).toHaveLength(5);
    const state = await tofu.state();
    for (const address of [...FOUR, ADDRESS.alert]) expect(state.get(address)?.id).toBe(ids[address]);

    expect(emu.store.webhooks.get(ids[ADDRESS.webhook]!)).toMatchObject({
      url: 'https://hooks.example.com/team-a/v2',
      description: 'v2',
      headers: { Authorization: hookToken(2) },
    });
    expect(emu.store.sources.get(ids[ADDRESS.source]!)).toMatchObject({
      name: 'Logs v2',
      defaultTableSelectExpression: 'Timestamp, ServiceName, Body',
    });
    expect(emu.store.savedSearches.get(ids[ADDRESS.savedSearch]!)).toMatchObject({
      name: 'Errors v2',
      where: 'level:error OR level:fatal',
    });
    const dashboard = emu.store.dashboards.get(ids[ADDRESS.dashboard]!)!;
    expect(dashboard.name).toBe('Errors v2');
    expect(dashboard.tiles.map((t) => t.id)).toEqual(tileIds);
    expect(dashboard.tiles[1]!.config).toMatchObject({ where: 'level:fatal OR level:panic' });
    expect(emu.store.alerts.has(tileAlertId)).toBe(true);
    expect(emu.store.alerts.get(ids[ADDRESS.alert]!)).toMatchObject({ name: 'too many errors v2' });

    const plan = await tofu.plan();
    expect(plan.code, output(plan)).toBe(0);
  });

  it('imports each object by its id with reads alone; the one change then planned re-sends the webhook’s write-only headers', async () => {
    const before = await tofu.state();
    // The dashboard as its server answers it: with its tiles' ids (the client keeps what it imports).
    await tofu.configure(configuration(emu, transport, serviceId, { version: 2, tileIds }));
    const forget = await tofu.run('state', 'rm', ...FOUR);
    expect(forget.code, output(forget)).toBe(0);

    await clearCalls(emu);
    for (const address of FOUR) {
      const imported = await tofu.run('import', address, ids[address]!);
      expect(imported.code, `${address}: ${output(imported)}`).toBe(0);
    }
    // The one change planned: the webhook, to send its write-only headers again (their version is in no answer).
    expect(Object.fromEntries(await tofu.plannedChanges())).toEqual({
      [ADDRESS.webhook]: { actions: ['update'], attributes: ['headers_version'] },
    });
    expect(writes(await calls(emu))).toEqual([]);

    const after = await tofu.state();
    for (const address of FOUR) expect(after.get(address)?.id).toBe(ids[address]);
    // What the service answers comes back as it was; write-only headers and their version cannot.
    const { headers_version: _version, ...webhookBefore } = before.get(ADDRESS.webhook)!;
    expect(after.get(ADDRESS.webhook)).toEqual({ ...webhookBefore, headers_version: null });
    expect(after.get(ADDRESS.source)).toEqual(before.get(ADDRESS.source));
    expect(after.get(ADDRESS.savedSearch)).toEqual(before.get(ADDRESS.savedSearch));
    expect(after.get(ADDRESS.dashboard)?.normalized_json).toBe(
      before.get(ADDRESS.dashboard)?.normalized_json,
    );

    const reapplied = await step(() => tofu.run('apply', '-auto-approve'));
    expect(reapplied.result.code, output(reapplied.result)).toBe(0);
    expect(writes(reapplied.log)).toEqual([`PUT ${route('webhooks', true)}`]);
    expect(emu.store.webhooks.get(ids[ADDRESS.webhook]!)?.headers).toEqual({ Authorization: hookToken(2) });
    expect(emu.store.dashboards.get(ids[ADDRESS.dashboard]!)?.tiles.map((t) => t.id)).toEqual(tileIds);
    expect(emu.store.alerts.has(tileAlertId)).toBe(true);
    const plan = await tofu.plan();
    expect(plan.code, output(plan)).toBe(0);
  });

  it('destroys every object with one DELETE each, the alert before the webhook it notifies', async () => {
    const { result, log } = await step(() => tofu.run('destroy', '-auto-approve'));
    expect(result.code, output(result)).toBe(0);

    const deletes = writes(log);
    expect(new Set(deletes)).toEqual(
      new Set([
        ...(transport.managesConnection ? [`DELETE ${route('connections', true)}`] : []),
        `DELETE ${route('sources', true)}`,
        `DELETE ${route('saved-searches', true)}`,
        `DELETE ${route('webhooks', true)}`,
        `DELETE ${route('dashboards', true)}`,
        `DELETE ${route('alerts', true)}`,
      ]),
    );
    expect(log.filter((call) => call.status >= 400)).toEqual([]);
    expect(deletes.indexOf(`DELETE ${route('alerts', true)}`)).toBeLessThan(
      deletes.indexOf(`DELETE ${route('webhooks', true)}`),
    );

    expect((await tofu.state()).size).toBe(0);
    expect([...emu.store.webhooks.keys()]).toEqual([consoleWebhookId]);
    expect(emu.store.savedSearches.size).toBe(0);
    expect(emu.store.dashboards.size).toBe(0);
    expect(emu.store.sources.size).toBe(0);
    expect(emu.store.connections.size).toBe(0);
    // The client's alert went by its DELETE, the tile's with its dashboard.
    expect(emu.store.alerts.size).toBe(0);
  });
});

if ('missing' in client) {
  describe('the official client against the emulator', () => {
    it.skip(`runs create → update → import → destroy on both paths: skipped, ${client.missing}`, () => {});
  });
}
