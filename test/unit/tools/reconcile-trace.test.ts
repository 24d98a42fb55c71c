import { describe, expect, it } from 'vitest';
import { visitsOf } from '../../../tools/reconcile-trace/visits.ts';

describe('the visits of a reconcile trace', () => {
  it('counts a stay in a file once however many lines of it ran in a row', () => {
    const visits = visitsOf(['a.ts', 'a.ts', 'b.ts', 'b.ts', 'b.ts']);
    expect(visits).toMatchObject({ files: 2, returns: 0, sequence: ['a.ts', 'b.ts'] });
  });

  it('counts each coming back to a file left before, per file, most first', () => {
    const visits = visitsOf(['a.ts', 'b.ts', 'a.ts', 'c.ts', 'b.ts', 'a.ts']);
    expect(visits.files).toBe(3);
    expect(visits.returns).toBe(3);
    expect(visits.reentries).toEqual([
      ['a.ts', 2],
      ['b.ts', 1],
    ]);
  });

  it('finds nothing in an empty trace', () => {
    expect(visitsOf([])).toEqual({
      files: 0,
      returns: 0,
      reentries: [],
      descents: [],
      sequence: [],
      descended: [],
      entered: [],
    });
  });

  it('counts a visit on the way down only where control entered a function of the file from another file', () => {
    // a calls b, b returns to a, a calls b again, b calls back into a, and returns to b, then to a.
    const visits = visitsOf([
      { file: 'a.ts', entered: true },
      { file: 'b.ts', entered: true },
      { file: 'a.ts', entered: false },
      { file: 'b.ts', entered: true },
      { file: 'a.ts', entered: true },
      { file: 'b.ts', entered: false },
      { file: 'a.ts', entered: false },
    ]);
    expect(visits.returns).toBe(5);
    expect(visits.descents).toEqual([
      ['a.ts', 2],
      ['b.ts', 2],
    ]);
    expect(visits.descended).toEqual([true, true, false, true, true, false, false]);
  });

  it('names the function each visit on the way down entered, and none for a return', () => {
    const visits = visitsOf([
      { file: 'a.ts', entered: true, fn: 'reconcile' },
      { file: 'b.ts', entered: true, fn: 'get status' },
      { file: 'a.ts', entered: false },
    ]);
    expect(visits.entered).toEqual(['reconcile', 'get status', undefined]);
  });
});
