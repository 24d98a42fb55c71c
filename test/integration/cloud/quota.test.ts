import { afterEach, describe, expect, it } from 'vitest';
import { DeferredRequestError } from '../../../src/cloud/errors.ts';
import type { QuotaWaitEvent, RetryEvent } from '../../../src/cloud/hooks.ts';
import { QuotaRegistry } from '../../../src/cloud/quota.ts';
import { addFault, calls, type Emulator, managementClient, ROUTES, startTestEmulator } from './support.ts';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
});

describe('the client-side quota against the emulator’s real fixed-window limit (scaled to 10 per 1 s)', () => {
  it('sends 100 quick calls without a single 429', { timeout: 60_000 }, async () => {
    emu = await startTestEmulator({ rateLimit: { requests: 10, windowSeconds: 1 } });
    const retries: RetryEvent[] = [];
    const waits: QuotaWaitEvent[] = [];
    const client = managementClient(emu, {
      quota: { requests: 10, windowMs: 1_000 },
      hooks: { onRetry: (e) => retries.push(e), onQuotaWait: (e) => waits.push(e) },
    });
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: 100 }, () => client.listServices()));
    const elapsedMs = performance.now() - started;
    await client.close();

    const log = await calls(emu);
    const statuses = log.map((c) => c.status);
    console.log(
      `quota: 100 calls in ${(elapsedMs / 1000).toFixed(2)} s, ${statuses.filter((s) => s === 429).length} × 429, ` +
        `max quota wait ${(Math.max(...waits.map((w) => w.waitMs)) / 1000).toFixed(2)} s`,
    );
    expect(results).toHaveLength(100);
    expect(statuses).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    expect(retries).toEqual([]);
    // 10 per window: the 100th call cannot start before 9 windows (+ margins) have passed.
    expect(elapsedMs).toBeGreaterThanOrEqual(9_000);
    expect(elapsedMs).toBeLessThan(15_000);
    expect(waits).toHaveLength(100);
    expect(waits.filter((w) => w.waitMs === 0)).toHaveLength(10);
  });

  it('without the quota the same burst earns 429s (the test above is not vacuous)', async () => {
    emu = await startTestEmulator({ rateLimit: { requests: 10, windowSeconds: 1 } });
    const client = managementClient(emu, { quota: false, retry: { maxAttempts: 1 } });
    const outcomes = await Promise.allSettled(Array.from({ length: 30 }, () => client.listServices()));
    await client.close();
    expect(outcomes.filter((o) => o.status === 'rejected').length).toBeGreaterThan(0);
    expect((await calls(emu)).filter((c) => c.status === 429).length).toBeGreaterThan(0);
  });

  it('is one budget per key: two clients of the same key share it', { timeout: 30_000 }, async () => {
    emu = await startTestEmulator({ rateLimit: { requests: 10, windowSeconds: 1 } });
    const registry = new QuotaRegistry();
    const a = managementClient(emu, { quota: { requests: 10, windowMs: 1_000 }, quotaRegistry: registry });
    const b = managementClient(emu, { quota: { requests: 10, windowMs: 1_000 }, quotaRegistry: registry });
    expect(a.quota).toBe(b.quota);
    await Promise.all([
      ...Array.from({ length: 20 }, () => a.listServices()),
      ...Array.from({ length: 20 }, () => b.listServices()),
    ]);
    expect(a.quotaRemaining()).toBe(0);
    await a.close();
    await b.close();
    expect((await calls(emu)).filter((c) => c.status === 429)).toEqual([]);
  });
});

describe('priorities', () => {
  it('serves a user call queued after several poll calls first once the budget is drained', async () => {
    emu = await startTestEmulator();
    const client = managementClient(emu, { quota: { requests: 1, windowMs: 300, safetyMarginMs: 50 } });
    const { service } = await client.createService({ name: 'prio', provider: 'aws', region: 'us-east-1' });
    expect(client.quotaRemaining()).toBe(0); // drained by the create

    const order: string[] = [];
    const polls = Array.from({ length: 3 }, (_, i) =>
      client.listServices({}, { priority: 'poll' }).then(() => order.push(`poll${i}`)),
    );
    const user = client.getService(service.id, { priority: 'user' }).then(() => order.push('user'));
    await Promise.all([...polls, user]);
    await client.close();

    expect(order).toEqual(['user', 'poll0', 'poll1', 'poll2']);
    const log = (await calls(emu)).map((c) => `${c.method} ${c.route}`);
    expect(log).toEqual([
      `POST ${ROUTES.services}`,
      `GET ${ROUTES.service}`,
      `GET ${ROUTES.services}`,
      `GET ${ROUTES.services}`,
      `GET ${ROUTES.services}`,
    ]);
  });

  it('defaults writes to user and reads to poll', async () => {
    emu = await startTestEmulator();
    const waits: QuotaWaitEvent[] = [];
    const client = managementClient(emu, {
      quota: { requests: 100, windowMs: 1_000 },
      hooks: { onQuotaWait: (e) => waits.push(e) },
    });
    const { service } = await client.createService({ name: 'p', provider: 'aws', region: 'us-east-1' });
    await client.getService(service.id);
    await client.close();
    expect(waits.map((w) => w.priority)).toEqual(['user', 'poll']);
    expect(waits[0]).toMatchObject({ api: 'management', remaining: 99 });
    expect(waits[0]!.key).toContain(emu.credentials.keyId);
  });
});

describe('a wait deadline (maxWaitMs): waiting must not hold the caller', () => {
  const body = { name: 'deferred', provider: 'aws', region: 'us-east-1' } as const;

  it('defers a call the budget cannot serve in time at once, sending nothing, and says when it can', async () => {
    emu = await startTestEmulator();
    const client = managementClient(emu, { quota: { requests: 1, windowMs: 60_000 }, maxWaitMs: 1_000 });
    await client.listServices();

    const started = performance.now();
    const err = await client.createService(body).catch((e: unknown) => e);
    const elapsedMs = performance.now() - started;
    await client.close();

    expect(err).toBeInstanceOf(DeferredRequestError);
    expect(err).toMatchObject({ code: 'DEFERRED', mayHaveSucceeded: false, attempts: 0 });
    expect((err as DeferredRequestError).retryAfterMs).toBeGreaterThan(59_000);
    expect(elapsedMs).toBeLessThan(500);
    // The create never left: safe to send again later.
    expect((await calls(emu)).map((c) => c.method)).toEqual(['GET']);
  });

  it('defers on a 429 whose Retry-After is longer than the deadline instead of sleeping through it', async () => {
    emu = await startTestEmulator();
    const client = managementClient(emu, { maxWaitMs: 1_000 });
    await addFault(emu, { method: 'POST', route: ROUTES.services, status: 429, retryAfter: 30, count: 1 });

    const started = performance.now();
    const err = await client.createService(body).catch((e: unknown) => e);
    await client.close();

    expect(performance.now() - started).toBeLessThan(1_000);
    expect(err).toBeInstanceOf(DeferredRequestError);
    expect(err).toMatchObject({ retryAfterMs: 30_000, mayHaveSucceeded: false });
    expect(emu.store.services.size).toBe(0);
  });
});
