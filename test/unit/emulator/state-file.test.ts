import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readStateFile, StateFileWriter } from '../../../src/emulator/state-file.ts';
import type { StateFileContent } from '../../../src/emulator/state-file.ts';

const content = (name: string): StateFileContent => ({
  version: 1,
  credentials: { organizationId: 'o', keyId: 'k', keySecret: 's', alertsToken: 't' },
  resources: {
    version: 1,
    services: [],
    pipes: [],
    reversePrivateEndpoints: [],
    queryEndpoints: [],
    alerts: [],
  },
  ...({ marker: name } as object),
});

let dir: string;
beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'sluice-state-'))));
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('state file', () => {
  it('is absent until written; then reads back what was written', async () => {
    const path = join(dir, 'nested', 'state.json');
    expect(readStateFile(path)).toBeUndefined();
    const writer = new StateFileWriter(path, () => content('a'), 10);
    writer.schedule();
    await writer.flush();
    expect(readStateFile(path)).toMatchObject({ version: 1, marker: 'a' });
  });

  it('writes a burst of changes once, after the debounce, and leaves no temporary file', async () => {
    const path = join(dir, 'state.json');
    let produced = 0;
    const writer = new StateFileWriter(path, () => (produced++, content(String(produced))), 20);
    for (let i = 0; i < 50; i++) writer.schedule();
    await new Promise((resolve) => setTimeout(resolve, 80));
    await writer.flush();
    expect(produced).toBe(1);
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('flush without changes writes nothing', async () => {
    const path = join(dir, 'state.json');
    await new StateFileWriter(path, () => content('x')).flush();
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses a file that is not a state file, naming it', async () => {
    const path = join(dir, 'state.json');
    await writeFile(path, '{not json');
    expect(() => readStateFile(path)).toThrow(/state\.json is not valid JSON/);
    await writeFile(path, '{"version": 2}');
    expect(() => readStateFile(path)).toThrow(/not a sluice emulator state file/);
    expect(await readFile(path, 'utf8')).toBe('{"version": 2}');
  });
});
