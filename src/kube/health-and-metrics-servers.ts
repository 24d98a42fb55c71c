import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/**
 * The two small HTTP endpoints an operator pod exposes: `/metrics` for Prometheus (on
 * `--metrics-bind-address`, default `:8080`) and `/healthz` + `/readyz` for the kubelet (on
 * `--health-probe-bind-address`, default `:8081`). Plain node:http: three fixed GET paths need no router.
 */

/** Passes unless it returns false or throws (the error message is shown in the probe's answer). */
export type Check = () => boolean | void | Promise<boolean | void>;

export interface CheckResult {
  name: string;
  ok: boolean;
  reason?: string;
}

/** Named checks behind one endpoint; with no checks registered the endpoint reports healthy. */
export class HealthChecks {
  private readonly checks = new Map<string, Check>();

  add(name: string, check: Check): this {
    if (this.checks.has(name)) throw new Error(`health check ${name} is already registered`);
    this.checks.set(name, check);
    return this;
  }

  async run(): Promise<CheckResult[]> {
    return Promise.all(
      [...this.checks].map(async ([name, check]): Promise<CheckResult> => {
        try {
          return (await check()) === false ? { name, ok: false, reason: 'not ready' } : { name, ok: true };
        } catch (error) {
          return { name, ok: false, reason: error instanceof Error ? error.message : String(error) };
        }
      }),
    );
  }
}

/** A readiness check that passes once every source (e.g. each reflector) has completed its first list. */
export function syncedCheck(sources: ReadonlyArray<{ hasSynced(): boolean }>): Check {
  return () => {
    const pending = sources.filter((source) => !source.hasSynced()).length;
    if (pending > 0) throw new Error(`${pending} of ${sources.length} informers not synced yet`);
  };
}

export interface RunningServer {
  /** The bound port (useful when the address asked for port 0). */
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Parses `host:port`, `:port` or `[ipv6]:port`. `"0"` means the endpoint is disabled and yields undefined
 * (controller-runtime's convention); `":0"` binds a free port.
 */
export function parseBindAddress(address: string): { host?: string; port: number } | undefined {
  if (address === '0') return undefined;
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(address);
  const port = Number(match?.[3]);
  if (!match || port > 65535)
    throw new Error(`invalid bind address "${address}": expected host:port, :port or 0`);
  const host = match[1] ?? match[2];
  return host ? { host, port } : { port };
}

/** Serves `GET /metrics` from `registry`; returns undefined when `bindAddress` is "0". */
export function startMetricsServer(options: {
  bindAddress: string;
  registry: Registry;
}): Promise<RunningServer | undefined> {
  const { registry } = options;
  return listen(options.bindAddress, async (path, response) => {
    if (path !== '/metrics') return reply(response, 404, 'not found\n');
    reply(response, 200, await registry.metrics(), registry.contentType);
  });
}

/**
 * Serves `GET /healthz` (liveness) and `GET /readyz` (readiness): 200 `ok` when every check passes,
 * otherwise 500 listing each check as `[+]name ok` or `[-]name failed: reason`, like Kubernetes' own
 * healthz. `?verbose` lists the checks on success too. Returns undefined when `bindAddress` is "0".
 */
export function startHealthProbeServer(options: {
  bindAddress: string;
  healthz: HealthChecks;
  readyz: HealthChecks;
}): Promise<RunningServer | undefined> {
  return listen(options.bindAddress, async (path, response, query) => {
    const checks = path === '/healthz' ? options.healthz : path === '/readyz' ? options.readyz : undefined;
    if (!checks) return reply(response, 404, 'not found\n');
    const results = await checks.run();
    const healthy = results.every((result) => result.ok);
    if (healthy && !query.has('verbose')) return reply(response, 200, 'ok');
    const lines = results.map((r) => (r.ok ? `[+]${r.name} ok` : `[-]${r.name} failed: ${r.reason}`));
    lines.push(`${path.slice(1)} check ${healthy ? 'passed' : 'failed'}`);
    reply(response, healthy ? 200 : 500, lines.join('\n') + '\n');
  });
}

type Handler = (path: string, response: http.ServerResponse, query: URLSearchParams) => Promise<void>;

async function listen(bindAddress: string, handle: Handler): Promise<RunningServer | undefined> {
  const bind = parseBindAddress(bindAddress);
  if (!bind) return undefined;
  const server = http.createServer((request, response) => {
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return reply(response, 405, 'method not allowed\n');
    const url = new URL(request.url ?? '/', 'http://probe');
    handle(url.pathname, response, url.searchParams).catch((error: unknown) => {
      reply(response, 500, `${error instanceof Error ? error.message : String(error)}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(bind.port, bind.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    port,
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections(); // idle keep-alive connections from scrapers would hold close() open
      }),
  };
}

function reply(
  response: http.ServerResponse,
  status: number,
  body: string,
  contentType = 'text/plain; charset=utf-8',
) {
  if (response.headersSent) return void response.destroy();
  response.writeHead(status, { 'content-type': contentType, 'x-content-type-options': 'nosniff' });
  response.end(body);
}
