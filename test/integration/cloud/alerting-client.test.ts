import { describe, expect, it } from 'vitest';
import { AlertingClient } from '../../../src/cloud/alerting-client.ts';
import { ApiError, isNotFound } from '../../../src/cloud/errors.ts';
import { WEBHOOK_PAGE_MAX } from '../../../src/cloud/schemas/clickstack.ts';
import { calls, clearCalls, forceState, useEmulator, useAlertingClient } from './support.ts';

const emu = useEmulator();
const client = useAlertingClient(emu);

const tileAlert = {
  name: 'errors high',
  message: 'error rate above 5',
  threshold: 5,
  interval: '5m' as const,
  thresholdType: 'above' as const,
  source: 'tile' as const,
  dashboardId: 'dash-1',
  tileId: 'tile-1',
  channel: { type: 'webhook' as const, webhookId: 'hook-1' },
};

describe('AlertingClient', () => {
  it('creates, reads, lists, replaces and deletes an alert', async () => {
    const created = await client.createAlert(tileAlert);
    expect(created).toMatchObject({ name: 'errors high', threshold: 5, state: 'OK', source: 'tile' });

    expect(await client.getAlert(created.id)).toMatchObject({ id: created.id, tileId: 'tile-1' });
    expect((await client.listAlerts()).map((a) => a.id)).toEqual([created.id]);

    await forceState(emu, 'alert', created.id, 'ALERT');
    const replaced = await client.replaceAlert(created.id, {
      threshold: 10,
      interval: '1h',
      thresholdType: 'below',
      source: 'search',
      savedSearchId: 'search-1',
      channel: { type: 'webhook', webhookId: 'hook-2' },
    });
    expect(replaced).toMatchObject({ id: created.id, threshold: 10, interval: '1h', state: 'ALERT' });
    expect(replaced.name ?? undefined).toBeUndefined();

    await client.deleteAlert(created.id);
    const err = await client.getAlert(created.id).catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    expect(err).toMatchObject({ api: 'alerting', code: 'NOT_FOUND', route: '/api/v2/alerts/:id' });
  });

  it('derives the error code from the status and keeps the API message', async () => {
    const err = await client.createAlert({ ...tileAlert, tileId: undefined }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 400, code: 'BAD_REQUEST', requestId: undefined });
    expect((err as ApiError).apiMessage).toContain('tileId');
  });

  it('reports a wrong token as UNAUTHORIZED without echoing it', async () => {
    const wrong = new AlertingClient({ baseUrl: emu.url, token: 'not-the-token-123' }, { quota: false });
    const err = await wrong.listAlerts().catch((e: unknown) => e);
    await wrong.close();
    expect(err).toMatchObject({ status: 401, code: 'UNAUTHORIZED', apiMessage: 'Unauthorized' });
    expect((err as Error).message).not.toContain('not-the-token-123');
  });

  it('lists every webhook by following the pages of the list, one call a page', async () => {
    // Two full pages and a part of a third, made in the cloud's store (2,345 creates over HTTP would be slow).
    const count = 2 * WEBHOOK_PAGE_MAX + 345;
    const ids = Array.from({ length: count }, (_, i) => i.toString(16).padStart(24, '0'));
    for (const id of ids) {
      const at = new Date().toISOString();
      emu.store.webhooks.set(id, {
        id,
        name: `hook ${id}`,
        service: 'slack',
        url: 'https://hooks.example.com/x',
        createdAt: at,
        updatedAt: at,
      });
    }
    await clearCalls(emu);

    const listed = await client.listWebhooks();

    expect(listed.map((webhook) => webhook.id).sort()).toEqual(ids);
    expect((await calls(emu)).map((call) => `${call.method} ${call.path}`)).toEqual(
      Array(3).fill('GET /api/v2/webhooks'),
    );
  });
});
