// `sluice export` under the real quota: an organization of --services services (made with the emulator's
// limit off, then served again from its state file at 10 requests per 10 s) is exported by the CLI with its
// default client budget (10/10s). Prints the time, the requests, the 429s, and the time calls ÷ rate predicts.
//   npm run bench:export -- --services 100
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AlertingClient } from '../src/cloud/alerting-client.ts';
import { ManagementClient } from '../src/cloud/management-client.ts';
import type { CallRecord } from '../src/emulator/call-log.ts';
import { startEmulator } from '../src/emulator/server.ts';
import { buildOrganization } from '../tools/fixtures/export.ts';

const { values } = parseArgs({ options: { services: { type: 'string', default: '100' } } });
const services = Number(values.services);
const stateFile = join(mkdtempSync(join(tmpdir(), 'sluice-export-bench-')), 'state.json');

const setup = await startEmulator({ port: 0, transitionMs: 0, rateLimit: 'off', logger: false, stateFile });
const cloud = new ManagementClient({ baseUrl: setup.url, ...setup.credentials }, { quota: false });
const alerting = new AlertingClient(
  { baseUrl: setup.url, token: setup.credentials.alertsToken },
  { quota: false },
);
const force = async (body: Record<string, unknown>) => {
  await fetch(`${setup.url}/_emulator/state`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
};
await buildOrganization(cloud, alerting, force, {
  services,
  pipesPerService: 1,
  endpoints: 3,
  queryEndpoints: Math.min(10, services),
  alerts: 5,
});
await cloud.close();
await alerting.close();
await setup.stop();

const emulator = await startEmulator({
  port: 0,
  transitionMs: 0,
  rateLimit: { requests: 10, windowSeconds: 10 },
  logger: false,
  stateFile,
});
const { organizationId, keyId, keySecret, alertsToken } = emulator.credentials;
const started = Date.now();
const child = spawn(
  process.execPath,
  ['--import', 'tsx', join(import.meta.dirname, '..', 'src', 'cli.ts'), 'export'],
  {
    env: {
      ...process.env,
      SLUICE_ORGANIZATION_ID: organizationId,
      SLUICE_KEY_ID: keyId,
      SLUICE_KEY_SECRET: keySecret,
      SLUICE_MANAGEMENT_URL: emulator.url,
      SLUICE_ALERTS_URL: emulator.url,
      SLUICE_ALERTS_TOKEN: alertsToken,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  },
);
let progress = 0;
child.stderr.on('data', (chunk: Buffer) => {
  const text = chunk.toString();
  progress += text.split('\n').filter((line) => line.startsWith('[')).length;
  process.stderr.write(
    text
      .split('\n')
      .filter((l) => /^(listed|exported|skipped)/.test(l))
      .map((l) => `  ${l}\n`)
      .join(''),
  );
});
const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
const seconds = (Date.now() - started) / 1000;
const log = (await (await fetch(`${emulator.url}/_emulator/calls`)).json()) as { calls: CallRecord[] };
const calls = log.calls.filter((c) => !c.route.startsWith('/_emulator'));
const management = calls.filter((c) => c.route.startsWith('/v1/'));
const refused = calls.filter((c) => c.status === 429).length;
// The first window's 10 go at once; every further 10 wait for the next window.
const predicted = Math.ceil(management.length / 10 - 1) * 10;
console.log(
  JSON.stringify({
    services,
    exitCode: code,
    seconds: Number(seconds.toFixed(1)),
    managementRequests: management.length,
    alertingRequests: calls.length - management.length,
    status429: refused,
    progressLines: progress,
    predictedSeconds: predicted,
  }),
);
await emulator.stop();
