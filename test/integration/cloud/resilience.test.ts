import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  AmbiguousRequestError,
  ApiError,
  NetworkError,
  RequestAbortedError,
} from '../../../src/cloud/errors.ts';
import type { RequestEvent, RetryEvent } from '../../../src/cloud/hooks.ts';
import { ManagementClient } from '../../../src/cloud/management-client.ts';
import {
  addFault,
  alertingClient,
  calls,
  managementClient,
  ROUTES,
  serviceBody,
  testOptions,
  useEmulator,
  startTestEmulator,
  type Emulator,
  type Fault,
} from './support.ts';

const emu = useEmulator();

const callsTo = async (method: string, route: string) =>
  (await calls(emu)).filter((c) => c.method === method && c.route === route);

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('429 with Retry-After', () => {
  it('waits at least the advised time, then succeeds (also for a create: the server refused it)', async () => {
    const retries: RetryEvent[] = [];
    const client = managementClient(emu, { hooks: { onRetry: (e) => retries.push(e) } });
    await addFault(emu, { method: 'POST', route: ROUTES.services, status: 429, retryAfter: 1, count: 1 });
    const started = performance.now();
    const created = await client.createService(serviceBody());
    const elapsed = performance.now() - started;
    await client.close();

    expect(created.service.id).toEqual(expect.any(String));
    expect(elapsed).toBeGreaterThanOrEqual(1_000);
    expect(elapsed).toBeLessThan(3_000);
    expect((await callsTo('POST', ROUTES.services)).map((c) => c.status)).toEqual([429, 200]);
    expect(retries).toEqual([expect.objectContaining({ code: '429', attempt: 1 })]);
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1_000);
  });

  it('surfaces the 429 when the advised wait is longer than the client will sleep', async () => {
    const client = managementClient(emu, { retry: { maxRetryAfterMs: 500 } });
    await addFault(emu, { method: 'GET', route: ROUTES.services, status: 429, retryAfter: 30, count: 1 });
    const err = await client.listServices().catch((e: unknown) => e);
    await client.close();
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      status: 429,
      code: 'TOO_MANY_REQUESTS',
      retryAfterMs: 30_000,
      retryable: true,
    });
  });

  it('honours Retry-After on the alerting API too', async () => {
    const client = alertingClient(emu);
    await addFault(emu, { method: 'GET', route: ROUTES.alerts, status: 429, retryAfter: 1, count: 1 });
    const started = performance.now();
    expect(await client.listAlerts()).toEqual([]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_000);
    await client.close();
    expect((await callsTo('GET', ROUTES.alerts)).map((c) => c.status)).toEqual([429, 200]);
  });
});

describe('5xx', () => {
  it('retries an idempotent call with backoff until it succeeds', async () => {
    const events: RequestEvent[] = [];
    const client = managementClient(emu, { hooks: { onRequest: (e) => events.push(e) } });
    await addFault(emu, { method: 'GET', route: ROUTES.services, status: 500, count: 2 });
    expect(await client.listServices()).toEqual([]);
    await client.close();
    expect((await callsTo('GET', ROUTES.services)).map((c) => c.status)).toEqual([500, 500, 200]);
    expect(events.map((e) => [e.code, e.attempt])).toEqual([
      ['500', 1],
      ['500', 2],
      ['200', 3],
    ]);
    expect(events[0]).toMatchObject({
      api: 'management',
      method: 'GET',
      route: ROUTES.services,
      priority: 'poll',
    });
  });

  it('gives up after maxAttempts with the last error', async () => {
    const client = managementClient(emu, { retry: { maxAttempts: 3, baseDelayMs: 10 } });
    await addFault(emu, { method: 'GET', route: ROUTES.services, status: 503 });
    const err = await client.listServices().catch((e: unknown) => e);
    await client.close();
    expect(err).toMatchObject({ status: 503, attempts: 3, retryable: true, mayHaveSucceeded: false });
    expect(await callsTo('GET', ROUTES.services)).toHaveLength(3);
  });

  it('does not retry a create that failed with 5xx: it may have been applied', async () => {
    const client = managementClient(emu);
    await addFault(emu, { method: 'POST', route: ROUTES.services, status: 500, count: 1 });
    const err = await client.createService(serviceBody()).catch((e: unknown) => e);
    await client.close();
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 500, attempts: 1, retryable: true, mayHaveSucceeded: true });
    expect(await callsTo('POST', ROUTES.services)).toHaveLength(1);
  });
});

describe('a create whose fate is unknown', () => {
  /** One service create through `client` (closed after it) under `fault`: the error must say it may have succeeded. */
  async function ambiguousCreate(client: ManagementClient, fault: Partial<Fault>): Promise<unknown> {
    await addFault(emu, { method: 'POST', route: ROUTES.services, count: 1, ...fault });
    const err = await client.createService(serviceBody()).catch((e: unknown) => e);
    await client.close();
    expect(err).toBeInstanceOf(AmbiguousRequestError);
    expect(err).toMatchObject({ mayHaveSucceeded: true });
    return err;
  }

  it('is not retried after the connection drops: exactly one POST, and the error says it may have succeeded', async () => {
    const err = await ambiguousCreate(managementClient(emu), { drop: true });
    expect(err).toMatchObject({ sent: true, attempts: 1, failure: 'connection-reset' });
    expect((err as Error).message).toMatch(/may have succeeded/);
    expect(await callsTo('POST', ROUTES.services)).toHaveLength(1);
  });

  it('is not retried after the server hangs past the headers timeout', async () => {
    const err = await ambiguousCreate(managementClient(emu, { timeouts: { headersMs: 300 } }), {
      hang: true,
    });
    expect(err).toMatchObject({ failure: 'headers-timeout', code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(await callsTo('POST', ROUTES.services)).toHaveLength(1);
  });

  it('but an idempotent read is retried after a drop and a hang', async () => {
    const client = managementClient(emu, { timeouts: { headersMs: 300 } });
    await addFault(emu, { method: 'GET', route: ROUTES.services, drop: true, count: 1 });
    await addFault(emu, { method: 'GET', route: ROUTES.services, hang: true, count: 1 });
    expect(await client.listServices()).toEqual([]);
    await client.close();
    expect((await callsTo('GET', ROUTES.services)).map((c) => c.status)).toEqual([0, 0, 200]);
  });

  it('the query endpoint upsert is idempotent, so it is retried after a drop', async () => {
    const client = managementClient(emu);
    const { service } = await client.createService(serviceBody());
    const route = `${ROUTES.service}/serviceQueryEndpoint`;
    await addFault(emu, { method: 'POST', route, drop: true, count: 1 });
    await expect(
      client.upsertQueryEndpoint(service.id, { roles: ['sql_console_admin'] }),
    ).resolves.toMatchObject({
      roles: ['sql_console_admin'],
    });
    await client.close();
    expect((await callsTo('POST', route)).map((c) => c.status)).toEqual([0, 200]);
  });
});

describe('connection refused', () => {
  it('is retried, and reported as never sent when retries run out', async () => {
    const port = await closedPort();
    const retries: RetryEvent[] = [];
    const { organizationId, keyId, keySecret } = emu.credentials;
    const client = new ManagementClient(
      { baseUrl: `http://127.0.0.1:${port}`, organizationId, keyId, keySecret },
      testOptions({ retry: { maxAttempts: 3, baseDelayMs: 10 }, hooks: { onRetry: (e) => retries.push(e) } }),
    );
    const err = await client.createService(serviceBody()).catch((e: unknown) => e);
    await client.close();
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).not.toBeInstanceOf(AmbiguousRequestError);
    expect(err).toMatchObject({
      failure: 'connection-refused',
      code: 'ECONNREFUSED',
      sent: false,
      mayHaveSucceeded: false,
      attempts: 3,
    });
    expect((err as Error).message).toContain('the server never received it');
    expect(retries.map((r) => r.code)).toEqual(['ECONNREFUSED', 'ECONNREFUSED']);
  });

  it('retries a create until the server comes up, which then sees exactly one POST', async () => {
    const port = await closedPort();
    const { organizationId, keyId, keySecret } = emu.credentials;
    let starting: Promise<Emulator> | undefined;
    const retries: RetryEvent[] = [];
    const client = new ManagementClient(
      { baseUrl: `http://127.0.0.1:${port}`, organizationId, keyId, keySecret },
      testOptions({
        retry: { maxAttempts: 8, baseDelayMs: 200, maxDelayMs: 400 },
        random: () => 0.99,
        hooks: {
          // The first refusal brings the server up: the retries must then get through.
          onRetry: (event) => {
            retries.push(event);
            starting ??= startTestEmulator({ port, organizationId, keyId, keySecret });
          },
        },
      }),
    );
    try {
      await expect(client.createService(serviceBody())).resolves.toMatchObject({
        service: { name: 'analytics' },
      });
      expect(retries[0]).toMatchObject({ code: 'ECONNREFUSED', attempt: 1 });
      const late = await starting!;
      const log = (await fetch(`${late.url}/_emulator/calls`).then((r) => r.json())) as {
        calls: Array<{ method: string; status: number }>;
      };
      expect(log.calls.filter((c) => c.method === 'POST')).toEqual([
        expect.objectContaining({ status: 200 }),
      ]);
    } finally {
      await client.close();
      if (starting) await (await starting).stop();
    }
  });
});

describe('the caller', () => {
  it('can abort a hanging call with its signal', async () => {
    const client = managementClient(emu);
    await addFault(emu, { method: 'GET', route: ROUTES.services, hang: true, count: 1 });
    const started = performance.now();
    const err = await client.listServices({}, { signal: AbortSignal.timeout(200) }).catch((e: unknown) => e);
    await client.close();
    expect(err).toBeInstanceOf(RequestAbortedError);
    expect(err).toMatchObject({ code: 'ABORTED', sent: true, mayHaveSucceeded: false });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('can abort during a backoff sleep', async () => {
    const client = managementClient(emu, {
      retry: { baseDelayMs: 5_000, maxDelayMs: 5_000 },
      random: () => 0.99,
    });
    await addFault(emu, { method: 'GET', route: ROUTES.services, status: 500 });
    const started = performance.now();
    const err = await client.listServices({}, { signal: AbortSignal.timeout(300) }).catch((e: unknown) => e);
    await client.close();
    expect(err).toBeInstanceOf(RequestAbortedError);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
