/**
 * Emulator throughput: the emulator runs as a child process (`node bin/sluice.js emulator`), autocannon loads
 * it from this process, so the load tool and the server never share an event loop.
 *
 *   tsx bench/emulator.ts [--duration 10] [--connections 10]
 *
 * Prints requests/s, latency p50/p99 and errors for GET pipe and for POST service; exits 1 on any error.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import type { Result } from 'autocannon';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
  },
});
const duration = Number(args.duration);
const connections = Number(args.connections);
if (!(duration > 0) || !(connections > 0)) {
  console.error('--duration and --connections must be positive numbers');
  process.exit(2);
}

const credentials = {
  organizationId: randomUUID(),
  keyId: 'bench',
  keySecret: randomUUID(),
  alertsToken: randomUUID(),
};
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const child = spawn(
  process.execPath,
  [
    'bin/sluice.js',
    'emulator',
    '--port=0',
    '--rate-limit=off',
    '--transition-ms=0',
    `--organization-id=${credentials.organizationId}`,
    `--key-id=${credentials.keyId}`,
    `--key-secret=${credentials.keySecret}`,
    `--alerts-token=${credentials.alertsToken}`,
  ],
  { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
);

async function emulatorUrl(): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`the emulator exited (code ${String(code)}) before listening`);
  });
  const listening = (async () => {
    for await (const line of lines) {
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match) return match[1]!;
    }
    throw new Error('the emulator closed its output before listening');
  })();
  return Promise.race([listening, exited]);
}

const headers = {
  authorization: `Basic ${Buffer.from(`${credentials.keyId}:${credentials.keySecret}`).toString('base64')}`,
  'content-type': 'application/json',
};
const serviceBody = JSON.stringify({ name: 'bench', provider: 'aws', region: 'us-east-1' });

async function api(url: string, method: string, body?: unknown) {
  const response = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as {
    result?: { id?: string; state?: string; service?: { id: string } };
  };
  if (response.status !== 200)
    throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(json)}`);
  return json.result!;
}

async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the emulator');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function report(name: string, result: Result): number {
  const errors = result.errors + result.non2xx;
  console.log(
    `${name.padEnd(14)} ${result.requests.average.toFixed(0).padStart(7)} req/s   ` +
      `p50 ${String(result.latency.p50).padStart(3)} ms   p99 ${String(result.latency.p99).padStart(3)} ms   ` +
      `errors ${errors} (${result.requests.total} requests in ${result.duration.toFixed(1)} s)`,
  );
  return errors;
}

let failures = 0;
try {
  const base = await emulatorUrl();
  const org = `${base}/v1/organizations/${credentials.organizationId}`;
  const service = await api(`${org}/services`, 'POST', JSON.parse(serviceBody));
  const serviceUrl = `${org}/services/${service.service!.id}`;
  await until(async () => (await api(serviceUrl, 'GET')).state === 'running');
  const pipe = await api(`${serviceUrl}/pipes`, 'POST', {
    name: 'bench',
    source: { kafka: { brokers: 'kafka:9092', topics: 'events' } },
    destination: { database: 'default', table: 'events', columns: [{ name: 'id', type: 'String' }] },
    fieldMappings: [{ sourceField: 'id', destinationField: 'id' }],
  });

  console.log(`emulator ${base} (child process), ${connections} connections, ${duration} s per scenario`);
  const common = { connections, duration, headers };
  failures += report('GET pipe', await autocannon({ ...common, url: `${serviceUrl}/pipes/${pipe.id}` }));
  failures += report(
    'POST service',
    await autocannon({ ...common, url: `${org}/services`, method: 'POST', body: serviceBody }),
  );
} catch (error) {
  console.error(error);
  failures += 1;
} finally {
  child.kill('SIGTERM');
  if (child.exitCode === null) await once(child, 'exit');
}
process.exit(failures > 0 ? 1 : 0);
