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

/**
 * Prints the slowest files and each project's time, then one plain closing line, `tests: N passed, N failed, N skipped`, after
 * vitest's own summary, so CI logs carry a runner-neutral count that tools can read without knowing vitest's
 * format, and show where the suite's time goes.
 */
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
    const times = [...this.spans].map(([project, span]) => ({
      project,
      files: span.files,
      wallMs: Math.max(0, span.endedAt - span.startedAt),
      summedMs: span.summedMs,
    }));
    if (this.files.length > 0) process.stdout.write(`\n${formatSlowestFiles(this.files)}\n`);
    if (times.length > 0) process.stdout.write(`\n${formatProjectTimes(times)}\n`);
    process.stdout.write(
      `\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`,
    );
  }
}
