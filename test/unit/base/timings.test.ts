import { afterEach, describe, expect, it } from 'vitest';
import { RETRY_DELAYS } from '../../../src/base/retry-delays.ts';
import { REAL_TIMINGS, setTimeScale, timeScale, timing } from '../../../src/base/timings.ts';

describe('the time scale', () => {
  afterEach(() => setTimeScale(1));

  it('reads every duration at its real value at scale 1, the production default', () => {
    expect(timeScale()).toBe(1);
    expect(timing.referenceMissingReportMs).toBe(60_000);
    expect(timing.managementQuotaWindowMs).toBe(10_000);
    expect(RETRY_DELAYS.userAction).toBe(60_000);
    expect(RETRY_DELAYS.rejectedRequest).toBe(10_000);
  });

  it('divides every duration by the scale, nested ones included, as they are read', () => {
    setTimeScale(10);
    expect(timing.referenceMissingReportMs).toBe(6_000);
    expect(timing.alertingQuotaWindowMs).toBe(6_000);
    expect(timing.leaseDurationMs).toBe(1_500);
    expect(RETRY_DELAYS.userAction).toBe(6_000);
    expect(RETRY_DELAYS.secretMissing).toBe(3_000);
    const names = (o: object): string[] =>
      Object.entries(o).flatMap(([k, v]) => (typeof v === 'number' ? [k] : names(v as object)));
    expect(names(timing)).toEqual(names(REAL_TIMINGS));
    setTimeScale(1);
    expect(RETRY_DELAYS.userAction).toBe(60_000);
  });

  it('refuses a scale outside 1 to 100 and keeps the one it had', () => {
    setTimeScale(5);
    for (const bad of [0, 0.5, 101, Number.NaN, Infinity]) {
      expect(() => setTimeScale(bad)).toThrow(/^time scale must be a number from 1 \(real time\) to 100/);
    }
    expect(timeScale()).toBe(5);
  });
});
