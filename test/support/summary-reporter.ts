import { writeFileSync } from 'node:fs';
import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/** When each project's first file started and its last one ended, and the files' own summed time. */
export interface ProjectTime {
  project: string;
  files: number;
  /** From the first file's start to the last file's end: what the project adds to the run's wall time. */
  wallMs: number;
  /** The files' durations added up (tests and hooks): larger than the wall time when files run in parallel. */
  summedMs: number;
}

/** One test file's own duration (tests and hooks), for the list of the slowest. */
export interface FileTime {
  project: string;
  /** The file's path from the repository root. */
  file: string;
  durationMs: number;
}

interface Span {
  files: number;
  startedAt: number;
  endedAt: number;
  summedMs: number;
}

/** One line per project, slowest first: `cluster: 41 files, 312.4 s wall, 598.1 s summed`. */
export function formatProjectTimes(times: readonly ProjectTime[]): string {
  return [...times]
    .sort((a, b) => b.wallMs - a.wallMs)
    .map(
      ({ project, files, wallMs, summedMs }) =>
        `${project}: ${files} files, ${(wallMs / 1000).toFixed(1)} s wall, ${(summedMs / 1000).toFixed(1)} s summed`,
    )
    .join('\n');
}

/**
 * The `count` slowest files, slowest first, one a line under a heading that says how many ran: `  410.2 s  cluster  test/…/x.test.ts`,
 * the seconds right-aligned so the column reads at a glance.
 */
export function formatSlowestFiles(files: readonly FileTime[], count = 10): string {
  const slowest = [...files].sort((a, b) => b.durationMs - a.durationMs).slice(0, count);
  const seconds = slowest.map(({ durationMs }) => `${(durationMs / 1000).toFixed(1)} s`);
  const secondsWidth = Math.max(0, ...seconds.map((s) => s.length));
  const projectWidth = Math.max(0, ...slowest.map(({ project }) => project.length));
  const lines = slowest.map(
    ({ project, file }, i) =>
      `  ${seconds[i]!.padStart(secondsWidth)}  ${project.padEnd(projectWidth)}  ${file}`,
  );
  return [`slowest files, ${slowest.length} of ${files.length}:`, ...lines].join('\n');
}

/** What a run ends with: its files' times, each project's time and the count of tests by result. */
export interface RunSummary {
  files: FileTime[];
  projects: ProjectTime[];
  counts: { passed: number; failed: number; skipped: number };
}

/**
 * The slowest files, each project's time, then one plain closing line, `tests: N passed, N failed, N skipped`,
 * so CI logs carry a runner-neutral count that tools can read without knowing vitest's format, and show where
 * the suite's time goes.
 */
export function formatSummary({ files, projects, counts }: RunSummary): string {
  return [
    ...(files.length > 0 ? [formatSlowestFiles(files)] : []),
    ...(projects.length > 0 ? [formatProjectTimes(projects)] : []),
    `tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`,
  ]
    .map((block) => `\n${block}\n`)
    .join('');
}

/** Runs side by side (`npm test`'s two vitest processes) as one: their files, projects and counts together. */
export function mergeSummaries(runs: readonly RunSummary[]): RunSummary {
  return {
    files: runs.flatMap((run) => run.files),
    projects: runs.flatMap((run) => run.projects),
    counts: {
      passed: runs.reduce((sum, run) => sum + run.counts.passed, 0),
      failed: runs.reduce((sum, run) => sum + run.counts.failed, 0),
      skipped: runs.reduce((sum, run) => sum + run.counts.skipped, 0),
    },
  };
}

/**
 * Where a run started by `npm test` leaves its summary (JSON) for the script that ran it to print with the
 * other run's; unset, the reporter prints the summary itself after vitest's own.
 */
export const SUMMARY_FILE_ENV = 'SLUICE_TEST_SUMMARY_FILE';

/** Ends the run with `formatSummary`, or leaves it in `SUMMARY_FILE_ENV`'s file. */
export default class SummaryReporter implements Reporter {
  private readonly spans = new Map<string, Span>();
  private readonly files: FileTime[] = [];

  onTestModuleStart(testModule: TestModule): void {
    const name = testModule.project.name || 'default';
    const span = this.spans.get(name) ?? { files: 0, startedAt: Date.now(), endedAt: 0, summedMs: 0 };
    span.files++;
    this.spans.set(name, span);
  }

  onTestModuleEnd(testModule: TestModule): void {
    const project = testModule.project.name || 'default';
    const { duration } = testModule.diagnostic();
    this.files.push({ project, file: testModule.relativeModuleId, durationMs: duration });
    const span = this.spans.get(project);
    if (!span) return;
    span.endedAt = Math.max(span.endedAt, Date.now());
    span.summedMs += duration;
  }

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const testModule of testModules) {
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
      // A file that failed to load has no test cases; count it so a broken file never reads as green.
      if (testModule.state() === 'failed' && !testModule.children.size) counts.failed++;
    }
    // An unhandled error fails the run even when every test passed; the count must say so.
    counts.failed += unhandledErrors.length;
    const projects = [...this.spans].map(([project, span]) => ({
      project,
      files: span.files,
      wallMs: Math.max(0, span.endedAt - span.startedAt),
      summedMs: span.summedMs,
    }));
    const summary: RunSummary = { files: this.files, projects, counts };
    const summaryFile = process.env[SUMMARY_FILE_ENV];
    if (summaryFile) writeFileSync(summaryFile, JSON.stringify(summary));
    else process.stdout.write(formatSummary(summary));
  }
}
