import { describe, expect, it } from 'vitest';
import {
  alerting,
  control,
  expectMgmtError,
  expectOk,
  http,
  mgmt,
  sleep,
  startTestEmulator,
  useContractEmulator,
  clickstackCloud,
  useEmulator,
} from './support/api.ts';
import type { Reply } from './support/api.ts';

/** Asserts a 429 with integer `Retry-After` ≥ 1 (and `X-RateLimit-Reset` on the management API). */
function expectLimited(reply: Reply, windowSeconds: number, management = true): number {
  expect(reply.status, reply.text).toBe(429);
  const retryAfter = reply.headers.get('retry-after');
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(windowSeconds);
  if (management) {
    const reset = reply.headers.get('x-ratelimit-reset');
    expect(reset).toMatch(/^\d+$/);
    expect(Number(reset)).toBeGreaterThanOrEqual(1);
    expect(Number(reset)).toBeLessThanOrEqual(windowSeconds);
    expectMgmtError(reply, 429);
  }
  return Number(retryAfter);
}

describe('default management limit: 10 requests per 10 s per key', () => {
  const { emu, api } = useContractEmulator({ rateLimit: undefined });

  it('the 11th call in the window is 429 TOO_MANY_REQUESTS with Retry-After and X-RateLimit-Reset', async () => {
    for (let i = 0; i < 10; i++) expectOk(await api.get('/services'));
    expectLimited(await api.get('/services'), 10);
    expectLimited(await api.post('/services', { name: 'x', provider: 'aws', region: 'us-east-1' }), 10);
  });

  it('a refused call creates nothing', async () => {
    for (let i = 0; i < 10; i++) expectOk(await api.get('/services'));
    expectLimited(await api.post('/services', { name: 'x', provider: 'aws', region: 'us-east-1' }), 10);
    await control(emu).reset();
    expect(expectOk(await api.get('/services'))).toEqual([]);
  });

  it('reset clears the window', async () => {
    for (let i = 0; i < 10; i++) expectOk(await api.get('/services'));
    expectLimited(await api.get('/services'), 10);
    await control(emu).reset();
    expectOk(await api.get('/services'));
  });

  it('control routes are not counted', async () => {
    for (let i = 0; i < 15; i++) await control(emu).calls();
    for (let i = 0; i < 10; i++) expectOk(await api.get('/services'));
  });

  it('errors count too (every request spends the budget)', async () => {
    for (let i = 0; i < 10; i++) expect((await api.get('/services/not-a-uuid')).status).toBe(400);
    expectLimited(await api.get('/services'), 10);
  });

  it('the alerting API has its own budget', async () => {
    for (let i = 0; i < 10; i++) expectOk(await api.get('/services'));
    expectLimited(await api.get('/services'), 10);
    expect((await alerting(emu).get('/alerts')).status).toBe(200);
  });
});

describe('custom management limit {requests: 3, windowSeconds: 1}', () => {
  const { api } = useContractEmulator({ rateLimit: { requests: 3, windowSeconds: 1 } });

  it('the 4th call is 429 and calls pass again once the window has passed', async () => {
    for (let i = 0; i < 3; i++) expectOk(await api.get('/services'));
    const retryAfter = expectLimited(await api.get('/services'), 1);
    await sleep(retryAfter * 1000 + 100);
    for (let i = 0; i < 3; i++) expectOk(await api.get('/services'));
    expectLimited(await api.get('/services'), 1);
  });
});

describe("rateLimit: 'off'", () => {
  const emu = useEmulator({ rateLimit: 'off' }, { reset: false });

  it('never answers 429, on either API', async () => {
    const api = mgmt(emu);
    const alerts = alerting(emu);
    const replies = await Promise.all(Array.from({ length: 40 }, () => api.get('/services')));
    for (const reply of replies) expectOk(reply);
    const alertReplies = await Promise.all(Array.from({ length: 120 }, () => alerts.get('/alerts')));
    for (const reply of alertReplies) expect(reply.status).toBe(200);
  });
});

describe('alerting limit', () => {
  const emu = useEmulator({
    rateLimit: undefined,
    alertsRateLimit: { requests: 3, windowSeconds: 1 },
  });

  it('over the budget → 429 with Retry-After; passes again after the window', async () => {
    const alerts = alerting(emu);
    for (let i = 0; i < 3; i++) expect((await alerts.get('/alerts')).status).toBe(200);
    const retryAfter = expectLimited(await alerts.get('/alerts'), 1, false);
    await sleep(retryAfter * 1000 + 100);
    expect((await alerts.get('/alerts')).status).toBe(200);
  });

  it('the management API has its own budget', async () => {
    const alerts = alerting(emu);
    for (let i = 0; i < 3; i++) await alerts.get('/alerts');
    expectLimited(await alerts.get('/alerts'), 1, false);
    expectOk(await mgmt(emu).get('/services'));
  });
});

describe('default alerting limit: 100 requests per minute per token', () => {
  const emu = useEmulator({ rateLimit: undefined }, { reset: false });

  it('the 101st call is 429 with Retry-After', async () => {
    const alerts = alerting(emu);
    for (let i = 0; i < 100; i++) expect((await alerts.get('/alerts')).status).toBe(200);
    expectLimited(await alerts.get('/alerts'), 60, false);
    // The 429 still comes in the alerting shape, not the management one.
    const reply = await http(emu, 'GET', '/api/v2/alerts', { auth: `Bearer ${emu.credentials.alertsToken}` });
    expect(reply.status).toBe(429);
    expect(reply.body?.message ?? reply.text).toBeTruthy();
    expect(reply.body?.error).toBeUndefined();
  });
});

describe('default alerting limit over every family of the alerting API, on both of its paths', () => {
  const emu = useEmulator({ rateLimit: undefined }, { reset: false });
  const FAMILIES = ['/webhooks', '/saved-searches', '/dashboards', '/sources', '/alerts'];

  it('100 calls per 60 s per token on /api/v2 and per management key under a service, each its own window', async () => {
    const api = mgmt(emu);
    const serviceId = expectOk(
      await api.post('/services', { name: 'quota', provider: 'aws', region: 'us-east-1' }),
    ).service.id as string;
    for (const client of [alerting(emu), clickstackCloud(emu, () => serviceId)]) {
      for (let i = 0; i < 100; i++)
        expect((await client.get(FAMILIES[i % FAMILIES.length]!)).status).toBe(200);
      expect((await client.get('/webhooks')).status).toBe(429);
    }
    // The management key's own budget (10 per 10 s) was not spent by its 100 alerting calls.
    expectOk(await api.get(`/services/${serviceId}`));
  });
});

describe('timeScale 10: the default limits on compressed time', () => {
  const { api, alerts } = useContractEmulator({ rateLimit: undefined, timeScale: 10 });

  it('allows 10 management calls per 1 s window and 100 alerting calls per 6 s window, then passes again', async () => {
    for (let i = 0; i < 10; i++) expectOk(await api.get('/services'));
    const started = Date.now();
    expectLimited(await api.get('/services'), 1);
    // The 1 s window ends: the next call opens a new one, well before the real 10 s would have passed.
    let reply = await api.get('/services');
    while (reply.status === 429 && Date.now() - started < 5_000) {
      await sleep(50);
      reply = await api.get('/services');
    }
    expectOk(reply);
    expect(Date.now() - started).toBeLessThan(5_000);

    for (let i = 0; i < 100; i++) expect((await alerts.get('/alerts')).status).toBe(200);
    expectLimited(await alerts.get('/alerts'), 6, false);
  });

  it('refuses a time scale outside 1 to 100, naming it', async () => {
    await expect(startTestEmulator({ timeScale: 0.5 })).rejects.toThrow(
      'timeScale must be a number from 1 (real time) to 100 (got "0.5")',
    );
  });
});
