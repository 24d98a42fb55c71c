// `npm run test:durations`: after a full `npm test`, records each file's duration from vitest's cache into
// test/harness/file-durations.json, which orders the files slowest first on a machine with no cache of its own
// (a fresh clone in CI: test/harness/sequencer.ts). Commit the file when files were added or grew slower.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RECORDED_DURATIONS, recordedDurations } from '../test/harness/sequencer.ts';

const cacheDir = join(import.meta.dirname, '..', 'node_modules', '.vite', 'vitest');

/**
 * vitest keeps a results file per set of projects run (`npm test` runs three vitest processes): every file's
 * newest duration, from all of them.
 */
function lastDurations(): Map<string, number> {
  const files = readdirSync(cacheDir)
    .map((dir) => join(cacheDir, dir, 'results.json'))
    .filter((file) => {
      try {
        return statSync(file).isFile();
      } catch {
        return false;
      }
    })
    .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
  if (files.length === 0) throw new Error(`no vitest results under ${cacheDir}: run npm test first`);
  const found = new Map<string, number>();
  for (const file of files) {
    const { results } = JSON.parse(readFileSync(file, 'utf8')) as {
      results: [string, { duration: number }][];
    };
    for (const [key, result] of results) if (result.duration > 0) found.set(key, result.duration);
  }
  return found;
}

// Merged into what was recorded: the vitest processes of `npm test` write one cache, and the one that ends
// last may leave only its own files' durations there.
const merged = new Map(Object.entries(recordedDurations()).map(([key, s]) => [key, s * 1000] as const));
for (const [key, ms] of lastDurations()) merged.set(key, ms);
const durations = Object.fromEntries(
  [...merged]
    .map(([key, ms]) => [key, Math.round(ms / 100) / 10] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(RECORDED_DURATIONS, `${JSON.stringify(durations, null, 2)}\n`);
console.log(`${Object.keys(durations).length} files' durations written to ${RECORDED_DURATIONS}`);
