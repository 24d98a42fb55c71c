import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visitsOf, type Step } from '../../../tools/reconcile-trace/visits.ts';

/** The trace's module hooks, as `node:module` calls them. */
interface TraceHooks {
  initialize(data: { sourceRoot: string; excluded: string[] }): void;
  load(
    url: string,
    context: object,
    next: (url: string, context: object) => Promise<{ source: string }>,
  ): Promise<{ source: string }>;
}

const hooksUrl = pathToFileURL(join(import.meta.dirname, '../../../tools/reconcile-trace/hooks.mjs')).href;

describe('the trace hooks on two source files', () => {
  let dir = '';
  const steps: Step[] = [];
  let run: () => number[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'trace-hooks-'));
    const sources = {
      'a.ts': `import { list } from './b.ts';\nexport function run(): number[] { return list().map((x) => x + 1); }\n`,
      'b.ts': `export function list(): number[] { return [1, 2]; }\n`,
    };
    const hooks = (await import(hooksUrl)) as TraceHooks;
    hooks.initialize({ sourceRoot: pathToFileURL(`${dir}/`).href, excluded: [] });
    const notTraced = () => Promise.reject(new Error('every file here is traced'));
    for (const [file, source] of Object.entries(sources)) {
      await writeFile(join(dir, file), source);
      const { source: traced } = await hooks.load(pathToFileURL(join(dir, file)).href, {}, notTraced);
      await writeFile(join(dir, file.replace('.ts', '.mjs')), traced.replace("'./b.ts'", "'./b.mjs'"));
    }
    const global = globalThis as { __sluiceTrace?: (file: string, entered: boolean, fn?: string) => void };
    global.__sluiceTrace = (file, entered, fn) => steps.push({ file, entered, ...(fn ? { fn } : {}) });
    ({ run } = (await import(pathToFileURL(join(dir, 'a.mjs')).href)) as { run: () => number[] });
  });

  afterAll(async () => {
    delete (globalThis as { __sluiceTrace?: unknown }).__sluiceTrace;
    await rm(dir, { recursive: true, force: true });
  });

  it('records the return of a call whose value a chain uses, so a callback it passes on is no call into its file', () => {
    expect(run()).toEqual([2, 3]);
    const visits = visitsOf(steps);
    expect(visits.sequence).toEqual(['src/a.ts', 'src/b.ts', 'src/a.ts']);
    expect(visits.descents).toEqual([
      ['src/a.ts', 1],
      ['src/b.ts', 1],
    ]);
    expect(visits.entered).toEqual(['run', 'list', undefined]);
  });
});
