import { describe, expect, it } from 'vitest';
import { mapConcurrently } from '../../../src/base/map-concurrently.ts';

describe('mapConcurrently', () => {
  it('keeps the items order in its results, with no more calls at once than asked, and counts each done', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    const results = await mapConcurrently(
      [30, 10, 20, 0, 5],
      2,
      async (ms) => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, ms));
        running--;
        return ms * 2;
      },
      (_result, _item, count) => done.push(count),
    );
    expect(results).toEqual([60, 20, 40, 0, 10]);
    expect(most).toBe(2);
    expect(done).toEqual([1, 2, 3, 4, 5]);
  });

  it('answers an empty list with no call', async () => {
    expect(await mapConcurrently([], 4, async () => 1)).toEqual([]);
  });
});
