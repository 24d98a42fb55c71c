import { describe, expect, it } from 'vitest';
import { formatProjectTimes, formatSlowestFiles, type FileTime } from '../../support/summary-reporter.ts';

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
});
