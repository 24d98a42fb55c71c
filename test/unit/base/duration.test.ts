import { describe, expect, it } from 'vitest';
import { MAX_TIMER_DELAY_MS } from '../../../src/clock.ts';
import {
  DURATION_BOUNDS,
  durationProblem,
  formatDuration,
  parseDurationMs,
} from '../../../src/base/duration.ts';

describe('duration bounds', () => {
  it('accepts a duration within its bounds, ends included', () => {
    expect(parseDurationMs('10m', '--sync-interval', DURATION_BOUNDS.syncInterval)).toBe(600_000);
    expect(parseDurationMs('100ms', '--sync-interval', DURATION_BOUNDS.syncInterval)).toBe(100);
    expect(parseDurationMs('24h', '--sync-interval', DURATION_BOUNDS.syncInterval)).toBe(86_400_000);
  });

  it('refuses one outside them, naming the setting and the range', () => {
    expect(() =>
      parseDurationMs('720h', 'annotation sluice.dev/sync-interval', DURATION_BOUNDS.syncInterval),
    ).toThrow('annotation sluice.dev/sync-interval must be between 100ms and 24h (got "720h")');
    expect(durationProblem('1ms', DURATION_BOUNDS.syncInterval)).toBe(
      'must be between 100ms and 24h (got "1ms")',
    );
    expect(durationProblem('1m', DURATION_BOUNDS.pollInterval)).toBe(
      'must be between 100ms and 30s (got "1m")',
    );
    expect(durationProblem('30', DURATION_BOUNDS.pollInterval)).toBe(
      'must be a positive duration with a unit, like 30s, 10m or 1h (got "30")',
    );
  });

  it('keeps every ceiling below Node’s timer limit', () => {
    for (const bounds of Object.values(DURATION_BOUNDS)) {
      expect(bounds.maxMs).toBeLessThan(MAX_TIMER_DELAY_MS);
      expect(bounds.minMs).toBeGreaterThan(0);
    }
  });

  it('formats a duration in its shortest exact form', () => {
    expect(formatDuration(86_400_000)).toBe('24h');
    expect(formatDuration(90_000)).toBe('1m30s');
    expect(formatDuration(5_400_250)).toBe('1h30m250ms');
    expect(formatDuration(100)).toBe('100ms');
  });
});
