import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { until } from '../support/wait.ts';
import { alerting, expectData, expectOk, mgmt, startTestEmulator } from './support/api.ts';
import type { Emulator, EmulatorOptions } from './support/api.ts';
import {
  alertBody,
  createAlert,
  createPipe,
  createRunningService,
  pipePath,
  queryEndpointPath,
  rpeBody,
  rpesPath,
  servicePath,
  waitPipeState,
} from './support/fixtures.ts';

let dir: string;
let stateFile: string;
let running: Emulator[] = [];

/** Fixed credentials so a restarted emulator serves the same organization and keys. */
const identity = {
  organizationId: randomUUID(),
  keyId: 'contract-key',
  keySecret: 'contract-secret',
  alertsToken: 'contract-alerts-token',
};

async function start(options: EmulatorOptions = {}): Promise<Emulator> {
  const emu = await startTestEmulator({ ...identity, stateFile, ...options });
  running.push(emu);
  return emu;
}
async function stop(emu: Emulator): Promise<void> {
  running = running.filter((e) => e !== emu);
  await emu.stop();
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-contract-state-'));
  stateFile = join(dir, 'state.json');
});
afterEach(async () => {
  for (const emu of running) await emu.stop();
  running = [];
  await rm(dir, { recursive: true, force: true });
});

describe('stateFile', () => {
  it('starts empty when the file does not exist, and uses the given credentials', async () => {
    const emu = await start();
    expect(emu.credentials).toEqual(identity);
    expect(expectOk(await mgmt(emu).get('/services'))).toEqual([]);
  });

  it('resources survive a stop and a start with the same file', async () => {
    const first = await start();
    const api = mgmt(first);
    const service = await createRunningService(api, { tags: [{ key: 'env', value: 'prod' }] });
    const pipe = await createPipe(api, service.id, 'kafka', { settings: { engine_max_threads: 7 } });
    await waitPipeState(api, service.id, pipe.id, 'Running');
    const rpe = expectOk(await api.post(rpesPath(service.id), rpeBody()));
    const queryEndpoint = expectOk(
      await api.post(queryEndpointPath(service.id), { roles: ['sql_console_admin'], openApiKeys: ['k1'] }),
    );
    const alert = await createAlert(alerting(first), alertBody('tile'));
    const before = {
      service: expectOk(await api.get(servicePath(service.id))),
      pipe: expectOk(await api.get(pipePath(service.id, pipe.id))),
      queryEndpoint: expectOk(await api.get(queryEndpointPath(service.id))),
      alert: expectData(await alerting(first).get(`/alerts/${alert.id}`)),
    };
    await stop(first);

    const text = await readFile(stateFile, 'utf8');
    expect(() => JSON.parse(text)).not.toThrow();

    const second = await start();
    const again = mgmt(second);
    expect(expectOk(await again.get(servicePath(service.id)))).toEqual(before.service);
    expect(expectOk(await again.get(pipePath(service.id, pipe.id)))).toEqual(before.pipe);
    expect(expectOk(await again.get(queryEndpointPath(service.id)))).toEqual(before.queryEndpoint);
    expect(queryEndpoint.id).toBe(before.queryEndpoint.id);
    expect(expectData(await alerting(second).get(`/alerts/${alert.id}`))).toEqual(before.alert);
    const rpeAgain = expectOk(await again.get(`${rpesPath(service.id)}/${rpe.id}`));
    expect(rpeAgain.id).toBe(rpe.id);
    expect(
      expectOk(await again.get('/services?filter=tag:env=prod')).map((s: { id: string }) => s.id),
    ).toEqual([service.id]);
  });

  it('a deletion also survives a restart', async () => {
    const first = await start();
    const api = mgmt(first);
    const service = await createRunningService(api);
    const pipe = await createPipe(api, service.id);
    expectOk(await api.delete(pipePath(service.id, pipe.id)));
    await stop(first);
    const second = await start();
    expect((await mgmt(second).get(pipePath(service.id, pipe.id))).status).toBe(404);
  });

  it('is written atomically: every read during a burst of writes parses', async () => {
    const emu = await start();
    const api = mgmt(emu);
    const service = await createRunningService(api);
    // Writes are debounced: on a fast machine the whole burst can land inside the first write's delay, so the
    // reads start once the file exists, and every one of them then meets a whole file or a renamed new one.
    await until('the state file to be written', async () => (await readdir(dir)).includes('state.json'));
    let writing = true;
    let reads = 0;
    let parsed = 0;
    const reader = (async () => {
      while (writing) {
        let text: string | undefined;
        try {
          text = await readFile(stateFile, 'utf8');
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
        if (text !== undefined) {
          reads++;
          expect(() => JSON.parse(text), `partial state file after ${reads} reads`).not.toThrow();
          parsed++;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      const writes = Array.from({ length: 60 }, (_, i) =>
        api.patch(servicePath(service.id), {
          name: `burst name ${i}`,
          ipAccessList: { add: [{ source: `10.0.${i}.0/24`, description: 'x'.repeat(200) }] },
        }),
      );
      for (const reply of await Promise.all(writes)) expect(reply.status).toBe(200);
      for (let i = 0; i < 20; i++) {
        expectOk(await api.post('/services', { name: `burst ${i}`, provider: 'aws', region: 'us-east-1' }));
      }
    } finally {
      writing = false;
      await reader;
    }
    expect(parsed).toBeGreaterThan(0);
    await stop(emu);
    expect(await readdir(dir)).toEqual(['state.json']);
    const second = await start();
    expect(expectOk(await mgmt(second).get('/services'))).toHaveLength(21);
  });
});
