import { describe, expect, it } from 'vitest';
import {
  formatProjectTimes,
  formatSlowestFiles,
  formatSummary,
  mergeSummaries,
  type FileTime,
  type RunSummary,
} from '../../support/summary-reporter.ts';

describe('the summary reporter', () => {
  it('lists each project with its wall and summed time, slowest first', () => {
    const text = formatProjectTimes([
      { project: 'unit', files: 40, wallMs: 3_250, summedMs: 5_900 },
      { project: 'cluster', files: 41, wallMs: 312_420, summedMs: 598_100 },
    ]);
    expect(text.split('\n')).toEqual([
      'cluster: 41 files, 312.4 s wall, 598.1 s summed',
      'unit: 40 files, 3.3 s wall, 5.9 s summed',
    ]);
  });

  it('lists the ten slowest files, slowest first, seconds right-aligned and projects in one column', () => {
    // Twelve files in no order: the two fastest (0.1 s and 0.2 s) are left out.
    const files: FileTime[] = [0.2, 9.5, 410.2, 1.5, 0.1, 33, 2, 126.4, 5, 3, 101.04, 4].map((s, i) => ({
      project: s > 100 ? 'cluster' : 'unit',
      file: `test/f${i}.test.ts`,
      durationMs: s * 1000,
    }));
    expect(formatSlowestFiles(files).split('\n')).toEqual([
      'slowest files, 10 of 12:',
      '  410.2 s  cluster  test/f2.test.ts',
      '  126.4 s  cluster  test/f7.test.ts',
      '  101.0 s  cluster  test/f10.test.ts',
      '   33.0 s  unit     test/f5.test.ts',
      '    9.5 s  unit     test/f1.test.ts',
      '    5.0 s  unit     test/f8.test.ts',
      '    4.0 s  unit     test/f11.test.ts',
      '    3.0 s  unit     test/f9.test.ts',
      '    2.0 s  unit     test/f6.test.ts',
      '    1.5 s  unit     test/f3.test.ts',
    ]);
  });

  it('names as many files as ran when fewer than ten did', () => {
    const text = formatSlowestFiles([
      { project: 'emulator', file: 'test/contract/a.test.ts', durationMs: 1_234 },
      { project: 'emulator', file: 'test/contract/b.test.ts', durationMs: 12_345 },
    ]);
    expect(text.split('\n')).toEqual([
      'slowest files, 2 of 2:',
      '  12.3 s  emulator  test/contract/b.test.ts',
      '   1.2 s  emulator  test/contract/a.test.ts',
    ]);
  });

  it('merges two runs side by side into one summary: every file, every project, the counts added', () => {
    const node: RunSummary = {
      files: [{ project: 'node', file: 'test/n.test.ts', durationMs: 140_000 }],
      projects: [{ project: 'node', files: 1, wallMs: 140_000, summedMs: 140_000 }],
      counts: { passed: 3, failed: 0, skipped: 1 },
    };
    const others: RunSummary = {
      files: [
        { project: 'cluster', file: 'test/c.test.ts', durationMs: 90_000 },
        { project: 'unit', file: 'test/u.test.ts', durationMs: 100 },
      ],
      projects: [
        { project: 'cluster', files: 1, wallMs: 90_000, summedMs: 90_000 },
        { project: 'unit', files: 1, wallMs: 100, summedMs: 100 },
      ],
      counts: { passed: 10, failed: 2, skipped: 0 },
    };
    expect(formatSummary(mergeSummaries([node, others])).split('\n')).toEqual([
      '',
      'slowest files, 3 of 3:',
      '  140.0 s  node     test/n.test.ts',
      '   90.0 s  cluster  test/c.test.ts',
      '    0.1 s  unit     test/u.test.ts',
      '',
      'node: 1 files, 140.0 s wall, 140.0 s summed',
      'cluster: 1 files, 90.0 s wall, 90.0 s summed',
      'unit: 1 files, 0.1 s wall, 0.1 s summed',
      '',
      'tests: 13 passed, 2 failed, 1 skipped',
      '',
    ]);
  });
});
