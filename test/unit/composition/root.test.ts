import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../../src');

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(path);
      return Promise.resolve(entry.name.endsWith('.ts') ? [path] : []);
    }),
  );
  return nested.flat();
}

describe('the composition root', () => {
  it('is the one place a reconciler is built, live or dry', async () => {
    const builders: string[] = [];
    for (const file of await sourceFiles(SRC)) {
      if (/new ManagedReconciler\b/.test(await readFile(file, 'utf8'))) builders.push(relative(SRC, file));
    }
    expect(builders).toEqual(['composition/reconcilers.ts']);
  });
});
