import { afterEach, describe, expect, it } from 'vitest';
import {
  HealthChecks,
  parseBindAddress,
  startHealthProbeServer,
  startMetricsServer,
  syncedCheck,
  type RunningServer,
} from '../../../src/kube/health-and-metrics-servers.ts';
import { OperatorMetrics } from '../../../src/runtime/metrics.ts';

describe('parseBindAddress', () => {
  it.each([
    [':8080', { port: 8080 }],
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['[::1]:8081', { host: '::1', port: 8081 }],
    ['localhost:9090', { host: 'localhost', port: 9090 }],
  ])('reads %s', (address, expected) => {
    expect(parseBindAddress(address)).toEqual(expected);
  });

  it('treats "0" as disabled', () => {
    expect(parseBindAddress('0')).toBeUndefined();
  });

  it.each(['8080', 'host', ':99999', '::1:80', ''])('rejects %j', (address) => {
    expect(() => parseBindAddress(address)).toThrow(/invalid bind address/);
  });
});

describe('probe servers', () => {
  const servers: RunningServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function started(server: Promise<RunningServer | undefined>): Promise<RunningServer> {
    const running = await server;
    if (!running) throw new Error('server is disabled');
    servers.push(running);
    return running;
  }

  async function get(server: RunningServer, path: string): Promise<{ status: number; body: string }> {
    const response = await fetch(server.url + path);
    return { status: response.status, body: await response.text() };
  }

  it('serves the registry in Prometheus text format on /metrics', async () => {
    const metrics = new OperatorMetrics();
    metrics.cloud.quotaRemaining('a/cloud', 'management', 9);
    const server = await started(
      startMetricsServer({ bindAddress: '127.0.0.1:0', registry: metrics.registry }),
    );

    const response = await fetch(`${server.url}/metrics`);
    expect(response.headers.get('content-type')).toContain('text/plain');
    expect(await response.text()).toContain(
      'sluice_cloud_quota_remaining{credentials="a/cloud",api="management"} 9',
    );
    expect((await get(server, '/other')).status).toBe(404);
  });

  it('starts no server when the bind address is "0"', async () => {
    const metrics = new OperatorMetrics();
    expect(await startMetricsServer({ bindAddress: '0', registry: metrics.registry })).toBeUndefined();
    const checks = new HealthChecks();
    expect(
      await startHealthProbeServer({ bindAddress: '0', healthz: checks, readyz: checks }),
    ).toBeUndefined();
  });

  it('reports not ready until the informers have synced, while staying live', async () => {
    const reflectors = [{ hasSynced: () => true }, { hasSynced: () => false }];
    const readyz = new HealthChecks().add('informers-synced', syncedCheck(reflectors));
    const healthz = new HealthChecks().add('ping', () => true);
    const server = await started(startHealthProbeServer({ bindAddress: '127.0.0.1:0', healthz, readyz }));

    const notReady = await get(server, '/readyz');
    expect(notReady.status).toBe(500);
    expect(notReady.body).toContain('[-]informers-synced failed: 1 of 2 informers not synced yet');
    expect(await get(server, '/healthz')).toEqual({ status: 200, body: 'ok' });

    reflectors[1] = { hasSynced: () => true };
    expect(await get(server, '/readyz')).toEqual({ status: 200, body: 'ok' });
  });

  it('lists every check with ?verbose and reports a check that returns false', async () => {
    const healthz = new HealthChecks().add('ping', () => true).add('leader-renewal', async () => false);
    const server = await started(
      startHealthProbeServer({ bindAddress: '127.0.0.1:0', healthz, readyz: new HealthChecks() }),
    );

    const failing = await get(server, '/healthz');
    expect(failing.status).toBe(500);
    expect(failing.body).toBe('[+]ping ok\n[-]leader-renewal failed: not ready\nhealthz check failed\n');
    const verbose = await get(server, '/readyz?verbose');
    expect(verbose).toEqual({ status: 200, body: 'readyz check passed\n' });
  });

  it('refuses a second check with the same name', () => {
    const checks = new HealthChecks().add('ping', () => true);
    expect(() => checks.add('ping', () => true)).toThrow(/already registered/);
  });
});
