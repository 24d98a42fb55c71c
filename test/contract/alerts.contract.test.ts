import { describe, expect, it } from 'vitest';
import {
  ALERT_INTERVALS,
  ALERT_MESSAGE_MAX,
  ALERT_NAME_MAX,
  ALERT_SOURCES,
  ALERT_STATES,
  ALERT_THRESHOLD_TYPES,
} from '../../src/cloud/schemas/index.ts';
import { alerting, basicAuth, expectAlertError, expectData, useContractEmulator } from './support/api.ts';
import type { Json, Reply } from './support/api.ts';
import { alertBody, createAlert } from './support/fixtures.ts';

const { emu, alerts, ctl } = useContractEmulator();

const list = async (): Promise<Json[]> => expectData(await alerts.get('/alerts'));

/** A create that must be refused with 400 naming `field`, leaving the alert list unchanged. */
async function expectRejected(body: Record<string, unknown>, field: string): Promise<void> {
  const before = await list();
  expectAlertError(await alerts.post('/alerts', body), 400, field);
  expect(await list()).toEqual(before);
}

function expectPlainUnauthorized(reply: Reply): void {
  expect(reply.status).toBe(401);
  expect(reply.text).toBe('Unauthorized');
  expect(reply.headers.get('content-type') ?? '').toMatch(/^text\/plain/);
}

describe('create (operation 10)', () => {
  it('a tile alert: 200 {data: alert}, state OK, dashboardId returned as dashboard and as dashboardId', async () => {
    const before = Date.now();
    const alert = await createAlert(alerts, alertBody('tile'));
    expect(alert.id).toBeTypeOf('string');
    expect(alert).toMatchObject({
      name: 'errors spike',
      message: 'too many errors',
      threshold: 10,
      interval: '5m',
      source: 'tile',
      thresholdType: 'above',
      channel: { type: 'webhook', webhookId: 'hook-1' },
      dashboard: 'dash-1',
      tileId: 'tile-1',
      state: 'OK',
    });
    expect(alert.dashboardId).toBe('dash-1');
    for (const field of ['createdAt', 'updatedAt']) {
      expect(alert[field]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
      expect(Date.parse(alert[field])).toBeGreaterThanOrEqual(before - 1000);
    }
  });

  it('a search alert: savedSearchId returned as savedSearch and as savedSearchId, with groupBy', async () => {
    const alert = await createAlert(alerts, alertBody('search'));
    expect(alert).toMatchObject({ source: 'search', savedSearch: 'search-1', groupBy: 'host', state: 'OK' });
    expect(alert.savedSearchId).toBe('search-1');
  });

  it('accepts every interval, threshold type and source', async () => {
    for (const interval of ALERT_INTERVALS)
      expect((await createAlert(alerts, alertBody('tile', { interval }))).interval).toBe(interval);
    for (const thresholdType of ALERT_THRESHOLD_TYPES)
      await createAlert(alerts, alertBody('tile', { thresholdType }));
    for (const source of ALERT_SOURCES) await createAlert(alerts, alertBody(source));
  });

  it('accepts an alert without the optional name and message', async () => {
    const body = alertBody('tile');
    delete body.name;
    delete body.message;
    const alert = await createAlert(alerts, body);
    expect(alert.name ?? '').toBe('');
  });

  it(`name: ${ALERT_NAME_MAX} characters ok, ${ALERT_NAME_MAX + 1} refused`, async () => {
    expect(
      (await createAlert(alerts, alertBody('tile', { name: 'n'.repeat(ALERT_NAME_MAX) }))).name,
    ).toHaveLength(ALERT_NAME_MAX);
    await expectRejected(alertBody('tile', { name: 'n'.repeat(ALERT_NAME_MAX + 1) }), 'name');
  });

  it(`message: ${ALERT_MESSAGE_MAX} characters ok, ${ALERT_MESSAGE_MAX + 1} refused`, async () => {
    await createAlert(alerts, alertBody('tile', { message: 'm'.repeat(ALERT_MESSAGE_MAX) }));
    await expectRejected(alertBody('tile', { message: 'm'.repeat(ALERT_MESSAGE_MAX + 1) }), 'message');
  });

  it.each([
    ['interval', { interval: '2m' }],
    ['interval', { interval: '5' }],
    ['thresholdType', { thresholdType: 'equal' }],
    ['source', { source: 'query' }],
    ['channel.type', { channel: { type: 'email', webhookId: 'hook-1' } }],
    ['channel.webhookId', { channel: { type: 'webhook' } }],
    ['threshold', { threshold: 'ten' }],
  ])('refuses a bad %s, naming it', async (field, override) => {
    await expectRejected(alertBody('tile', override), field);
  });

  it.each(['threshold', 'interval', 'source', 'thresholdType', 'channel'])('requires %s', async (field) => {
    const body = alertBody('tile');
    delete body[field];
    await expectRejected(body, field);
  });

  it.each(['dashboardId', 'tileId'])('source tile requires %s', async (field) => {
    const body = alertBody('tile');
    delete body[field];
    await expectRejected(body, field);
  });

  it('source search requires savedSearchId', async () => {
    const body = alertBody('search');
    delete body.savedSearchId;
    await expectRejected(body, 'savedSearchId');
  });

  it('a malformed JSON body is 400 in the alerting error shape', async () => {
    expectAlertError(await alerts.post('/alerts', undefined, { rawBody: '{"threshold":' }), 400);
  });
});

describe('get, list, replace, delete (extensions)', () => {
  it('GET returns the alert; list returns {data: [...]}', async () => {
    const a = await createAlert(alerts, alertBody('tile'));
    const b = await createAlert(alerts, alertBody('search'));
    expect(expectData(await alerts.get(`/alerts/${a.id}`))).toEqual(a);
    expect((await list()).map((x) => x.id).sort()).toEqual([a.id, b.id].sort());
  });

  it('PUT replaces the whole alert: omitted optional fields are cleared', async () => {
    const a = await createAlert(alerts, alertBody('tile'));
    const replacement = {
      threshold: 3,
      interval: '1h',
      source: 'tile',
      thresholdType: 'below',
      channel: { type: 'webhook', webhookId: 'hook-2' },
      dashboardId: 'dash-2',
      tileId: 'tile-2',
    };
    const updated = expectData(await alerts.put(`/alerts/${a.id}`, replacement));
    expect(updated).toMatchObject({
      id: a.id,
      threshold: 3,
      interval: '1h',
      thresholdType: 'below',
      channel: { type: 'webhook', webhookId: 'hook-2' },
      dashboard: 'dash-2',
      tileId: 'tile-2',
    });
    expect(updated.name ?? '').toBe('');
    expect(updated.message ?? '').toBe('');
    expect(expectData(await alerts.get(`/alerts/${a.id}`))).toEqual(updated);
  });

  it('PUT from tile to search clears the tile fields', async () => {
    const a = await createAlert(alerts, alertBody('tile'));
    const updated = expectData(await alerts.put(`/alerts/${a.id}`, alertBody('search')));
    expect(updated).toMatchObject({ source: 'search', savedSearch: 'search-1' });
    expect(updated.dashboard ?? '').toBe('');
    expect(updated.tileId ?? '').toBe('');
  });

  it('PUT validates like create and changes nothing on a 400', async () => {
    const a = await createAlert(alerts, alertBody('tile'));
    expectAlertError(
      await alerts.put(`/alerts/${a.id}`, alertBody('tile', { interval: '7m' })),
      400,
      'interval',
    );
    const body = alertBody('tile');
    delete body.tileId;
    expectAlertError(await alerts.put(`/alerts/${a.id}`, body), 400, 'tileId');
    expect(expectData(await alerts.get(`/alerts/${a.id}`))).toEqual(a);
  });

  it('PUT does not reset the state', async () => {
    const a = await createAlert(alerts, alertBody('tile'));
    const forced = await ctl.forceState('alert', a.id, 'ALERT');
    expect(forced.state).toBe('ALERT');
    expect(expectData(await alerts.get(`/alerts/${a.id}`)).state).toBe('ALERT');
    const updated = expectData(await alerts.put(`/alerts/${a.id}`, alertBody('tile', { threshold: 99 })));
    expect(updated.state).toBe('ALERT');
    expect(expectData(await alerts.get(`/alerts/${a.id}`)).state).toBe('ALERT');
  });

  it('every forced state is reported', async () => {
    const a = await createAlert(alerts, alertBody('tile'));
    for (const state of ALERT_STATES) {
      await ctl.forceState('alert', a.id, state);
      expect(expectData(await alerts.get(`/alerts/${a.id}`)).state).toBe(state);
    }
  });

  it('PUT bumps updatedAt and keeps createdAt', async () => {
    const a = await createAlert(alerts, alertBody('tile'));
    await new Promise((r) => setTimeout(r, 20));
    const updated = expectData(await alerts.put(`/alerts/${a.id}`, alertBody('tile', { threshold: 1 })));
    expect(updated.createdAt).toBe(a.createdAt);
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(a.updatedAt));
  });

  it('DELETE answers {} and the alert is gone (GET, PUT, DELETE then 404)', async () => {
    const a = await createAlert(alerts, alertBody('tile'));
    const reply = await alerts.delete(`/alerts/${a.id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({});
    expectAlertError(await alerts.get(`/alerts/${a.id}`), 404);
    expectAlertError(await alerts.put(`/alerts/${a.id}`, alertBody('tile')), 404);
    expectAlertError(await alerts.delete(`/alerts/${a.id}`), 404);
    expect(await list()).toEqual([]);
  });
});

describe('authentication (bearer)', () => {
  it('no token, a wrong token and Basic credentials are 401 plain-text Unauthorized', async () => {
    const { keyId, keySecret } = emu.credentials;
    for (const auth of [
      null,
      'Bearer wrong',
      `Bearer ${emu.credentials.alertsToken}x`,
      basicAuth(keyId, keySecret),
      emu.credentials.alertsToken,
    ]) {
      const client = alerting(emu, { auth });
      expectPlainUnauthorized(await client.get('/alerts'));
      expectPlainUnauthorized(await client.post('/alerts', alertBody('tile')));
    }
    expect(await list()).toEqual([]);
  });

  it('401 comes before validation and lookup', async () => {
    const a = await createAlert(alerts, alertBody('tile'));
    const anonymous = alerting(emu, { auth: null });
    expectPlainUnauthorized(await anonymous.post('/alerts', { interval: 'never' }));
    expectPlainUnauthorized(await anonymous.get(`/alerts/${a.id}`));
    expectPlainUnauthorized(await anonymous.put(`/alerts/${a.id}`, alertBody('tile')));
    expectPlainUnauthorized(await anonymous.delete(`/alerts/${a.id}`));
    expect(expectData(await alerts.get(`/alerts/${a.id}`))).toEqual(a);
  });
});
