// `npm test`: the whole suite as two vitest runs side by side, ending with one summary of both.
//
// The node project (a control plane and a real node of its own, one file after another, the first file
// building the operator's image) mostly waits on its kubelet. In one vitest run it could only follow the
// cluster project: vitest runs one group of projects at a time, and a group has one worker count, so the node
// files, one at a time, would either hold the cluster files' slots or wait for all of them to end. As a second
// process it runs beside the others from the start; the two take about as long.
//
// With arguments (`npm test -- <file>`, `npm test -- --project=unit`) it is one plain `vitest run`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  formatSummary,
  mergeSummaries,
  SUMMARY_FILE_ENV,
  type RunSummary,
} from '../test/support/summary-reporter.ts';

const vitest = join(import.meta.dirname, '..', 'node_modules', 'vitest', 'vitest.mjs');

/**
 * The two runs: the cluster project alone, the longest; and the others, the unit, emulator and image projects
 * (one group, two at a time) ahead of the node's files. The unit and emulator files had run ahead of the
 * cluster's, adding their minute to the longest run, while the node's run waits on its kubelet more than it
 * uses the cores (on 2 cores: cluster 557 s alone against 13 + 39 s before it; image and node 68 + 517 s).
 */
const RUNS = [
  { name: 'the unit, emulator, image and node projects', projects: ['unit', 'emulator', 'image', 'node'] },
  { name: 'the cluster project', projects: ['cluster'] },
];

/**
 * Runs vitest with `args`. Piped, its output is passed on a whole line at a time so two runs' lines never mix;
 * otherwise it has the terminal to itself.
 */
function runVitest(args: readonly string[], piped?: { env: NodeJS.ProcessEnv }): Promise<number> {
  const child = spawn(process.execPath, [vitest, 'run', ...args], {
    env: piped?.env ?? process.env,
    stdio: piped ? ['ignore', 'pipe', 'pipe'] : 'inherit',
  });
  if (piped) {
    createInterface({ input: child.stdout! }).on('line', (line) => process.stdout.write(`${line}\n`));
    createInterface({ input: child.stderr! }).on('line', (line) => process.stderr.write(`${line}\n`));
    const stop = (signal: NodeJS.Signals) => child.kill(signal);
    process.once('SIGINT', stop).once('SIGTERM', stop);
  }
  // No exit code means a signal ended it.
  return new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.length > 0) return runVitest(args);
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'sluice-test-'));
  try {
    const codes = await Promise.all(
      RUNS.map((run, i) =>
        runVitest(
          run.projects.map((project) => `--project=${project}`),
          { env: { ...process.env, [SUMMARY_FILE_ENV]: join(dir, `${i}.json`) } },
        ),
      ),
    );
    const summaries: RunSummary[] = [];
    for (const [i, run] of RUNS.entries()) {
      try {
        summaries.push(JSON.parse(readFileSync(join(dir, `${i}.json`), 'utf8')) as RunSummary);
      } catch {
        // A run that never reached its end (it crashed, or was killed) fails the whole.
        process.stderr.write(`\nthe run of ${run.name} ended without its summary (exit ${codes[i]})\n`);
        codes[i] ||= 1;
      }
    }
    // The time first: the summary's last line stays the count of tests.
    process.stdout.write(`\nboth runs took ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    process.stdout.write(formatSummary(mergeSummaries(summaries)));
    return codes.find((code) => code !== 0) ?? 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
