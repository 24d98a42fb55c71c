// `npm test`: the whole suite as three vitest runs side by side, ending with one summary of all three.
//
// vitest runs one group of projects at a time, and a group has one worker count. The node project (a control
// plane and a real node of its own, one file after another) mostly waits on its kubelet, and the first of its
// files that installs the chart waits for the operator's image, whose build begins at once. In one run with
// the cluster project it would either hold the cluster files' slots or wait for all of them to end; in one run
// with the unit, emulator and image projects it waited for their group to end before its first file began.
// As a process of its own it starts at once: its first file (node.smoke, no image) runs while the image builds.
//
// With arguments (`npm test -- <file>`, `npm test -- --project=unit`) it is one plain `vitest run`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
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
 * The three runs: the node project, the longest (its files one at a time, about 470-520 s on 2 cores, after the
 * image's build of about 90-110 s that node.smoke overlaps); the cluster project, almost as long; and the unit,
 * emulator and image projects, about two minutes. Behind the group of the last three the node's files had begun
 * only after 100-140 s.
 */
const RUNS: readonly { name: string; projects: string[]; niceness?: number }[] = [
  { name: 'the node project', projects: ['node'] },
  { name: 'the cluster project', projects: ['cluster'] },
  // The short run yields the cores: its two minutes are the minutes the node run builds the image its next
  // files wait for, while it has most of the ten to spare.
  { name: 'the unit, emulator and image projects', projects: ['unit', 'emulator', 'image'], niceness: 10 },
];

/**
 * Runs vitest with `args`. Piped, its output is passed on a whole line at a time so the runs' lines never mix;
 * otherwise it has the terminal to itself.
 */
function runVitest(
  args: readonly string[],
  piped?: { env: NodeJS.ProcessEnv; niceness?: number | undefined },
): Promise<number> {
  const child = spawn(process.execPath, [vitest, 'run', ...args], {
    env: piped?.env ?? process.env,
    stdio: piped ? ['ignore', 'pipe', 'pipe'] : 'inherit',
  });
  // Set before vitest forks its workers (it loads its config first), which inherit it.
  if (piped?.niceness !== undefined && child.pid !== undefined) setPriority(child.pid, piped.niceness);
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
          { env: { ...process.env, [SUMMARY_FILE_ENV]: join(dir, `${i}.json`) }, niceness: run.niceness },
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
    process.stdout.write(`\nthe ${RUNS.length} runs took ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    process.stdout.write(formatSummary(mergeSummaries(summaries)));
    return codes.find((code) => code !== 0) ?? 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
