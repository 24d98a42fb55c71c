// `npm run test:durations`: after a full `npm test`, records each file's duration from vitest's cache into
// test/harness/file-durations.json, which orders the files slowest first on a machine with no cache of its own
// (a fresh clone in CI: test/harness/sequencer.ts). Commit the file when files were added or grew slower.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RECORDED_DURATIONS } from '../test/harness/sequencer.ts';

const cacheDir = join(import.meta.dirname, '..', 'node_modules', '.vite', 'vitest');

/** vitest keeps one results file per root; the newest is the last run's. */
function newestResults(): string {
  const files = readdirSync(cacheDir)
    .map((dir) => join(cacheDir, dir, 'results.json'))
    .filter((file) => {
      try {
        return statSync(file).isFile();
      } catch {
        return false;
      }
    })
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (!files[0]) throw new Error(`no vitest results under ${cacheDir}: run npm test first`);
  return files[0];
}

const { results } = JSON.parse(readFileSync(newestResults(), 'utf8')) as {
  results: [string, { duration: number }][];
};
const durations = Object.fromEntries(
  results
    .filter(([, result]) => result.duration > 0)
    .map(([key, result]) => [key, Math.round(result.duration / 100) / 10] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(RECORDED_DURATIONS, `${JSON.stringify(durations, null, 2)}\n`);
console.log(`${Object.keys(durations).length} files' durations written to ${RECORDED_DURATIONS}`);
