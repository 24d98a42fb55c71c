import { describe, expect, it } from 'vitest';
import { formatProjectTimes } from '../../support/summary-reporter.ts';

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
});
