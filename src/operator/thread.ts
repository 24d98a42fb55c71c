import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type * as Esbuild from 'esbuild';

/**
 * Starts `entry` in a worker thread. Compiled (the image), the entry is JavaScript and runs as it is. From the
 * sources (tsx, vitest) it is TypeScript, which a new thread cannot load without a loader of its own: it runs
 * as one JavaScript file bundled from the sources (`threadBundle`), its packages loaded from node_modules.
 */
export function startThread(entry: URL, workerData: unknown): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { workerData });
  return new Worker(threadBundle(entry), { workerData });
}

const bundles = new Map<string, string>();

/**
 * The entry and the sources it imports as one JavaScript module, made once per process and kept under
 * node_modules/.cache (where its packages resolve) by the hash of its text. A loader registered in the thread
 * instead (tsx) cost each thread its own loader thread and a compile of every source through it: a third of a
 * second of CPU at each operator start, which the tests pay hundreds of times.
 */
function threadBundle(entry: URL): string {
  const known = bundles.get(entry.href);
  if (known) return known;
  // A development dependency, loaded only here: the compiled operator never bundles.
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof Esbuild;
  const [output] = esbuild.buildSync({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    write: false,
    logLevel: 'error',
  }).outputFiles;
  const text = output!.text;
  const dir = fileURLToPath(new URL('../../node_modules/.cache/sluice-threads/', import.meta.url));
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const file = join(dir, `thread-${hash}.mjs`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    // Written aside and renamed: another process starting the same thread never reads half a file.
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, text);
    renameSync(partial, file);
  }
  bundles.set(entry.href, file);
  return file;
}
