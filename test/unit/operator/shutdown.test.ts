import { describe, expect, it } from 'vitest';
import { shutDownInOrder } from '../../../src/operator/shutdown.ts';

/** Work in flight that ends when finished or aborted; every step is logged in order. */
function steps(graceMs: number, finishesAfterMs: number | undefined) {
  const log: string[] = [];
  let end!: () => void;
  const inFlight = new Promise<void>((resolve) => (end = resolve));
  if (finishesAfterMs !== undefined) setTimeout(() => (log.push('work finished'), end()), finishesAfterMs);
  return {
    log,
    run: () =>
      shutDownInOrder({
        drain: async () => {
          log.push('stop taking work');
          await inFlight;
        },
        abort: () => {
          log.push('abort');
          end();
        },
        release: async () => void log.push('release the Lease'),
        graceMs,
      }),
  };
}

describe('shutDownInOrder', () => {
  it('releases the Lease only after the work in flight has finished', async () => {
    const s = steps(1_000, 50);
    expect(await s.run()).toBe('drained');
    expect(s.log).toEqual(['stop taking work', 'work finished', 'release the Lease']);
  });

  it('aborts work still running at the deadline, and releases the Lease after that', async () => {
    const s = steps(50, undefined);
    expect(await s.run()).toBe('aborted');
    expect(s.log).toEqual(['stop taking work', 'abort', 'release the Lease']);
  });
});
