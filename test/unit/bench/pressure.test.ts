import { describe, expect, it } from 'vitest';
import { EVENT_LOOP_DELAY, histogramP99 } from '../../../bench/pressure.ts';

const scrape = (lines: string[]) =>
  [
    `# HELP ${EVENT_LOOP_DELAY} The event loop's delay.`,
    `# TYPE ${EVENT_LOOP_DELAY} histogram`,
    ...lines,
  ].join('\n');

describe('the p99 of the event-loop delay in a scrape of /metrics', () => {
  it('is the upper bound of the first bucket holding 99 % of the observations', () => {
    const text = scrape([
      `${EVENT_LOOP_DELAY}_bucket{le="0.01"} 900`,
      `${EVENT_LOOP_DELAY}_bucket{le="0.1"} 985`,
      `${EVENT_LOOP_DELAY}_bucket{le="1"} 995`,
      `${EVENT_LOOP_DELAY}_bucket{le="+Inf"} 1000`,
      `${EVENT_LOOP_DELAY}_sum 12.5`,
      `${EVENT_LOOP_DELAY}_count 1000`,
    ]);
    expect(histogramP99(text, EVENT_LOOP_DELAY)).toEqual({ count: 1000, p99: 1 });
  });

  it('adds up the buckets of every label set', () => {
    const text = scrape([
      `${EVENT_LOOP_DELAY}_bucket{pod="a",le="0.01"} 50`,
      `${EVENT_LOOP_DELAY}_bucket{pod="a",le="+Inf"} 50`,
      `${EVENT_LOOP_DELAY}_bucket{pod="b",le="0.01"} 0`,
      `${EVENT_LOOP_DELAY}_bucket{pod="b",le="+Inf"} 50`,
      `${EVENT_LOOP_DELAY}_count{pod="a"} 50`,
      `${EVENT_LOOP_DELAY}_count{pod="b"} 50`,
    ]);
    expect(histogramP99(text, EVENT_LOOP_DELAY)).toEqual({ count: 100, p99: Infinity });
  });

  it('reads a summary’s 0.99 quantile as it is', () => {
    const text = scrape([
      `${EVENT_LOOP_DELAY}{quantile="0.5"} 0.002`,
      `${EVENT_LOOP_DELAY}{quantile="0.99"} 0.25`,
      `${EVENT_LOOP_DELAY}_count 40`,
    ]);
    expect(histogramP99(text, EVENT_LOOP_DELAY)).toEqual({ count: 40, p99: 0.25 });
  });

  it('is absent when the operator reports no such metric', () => {
    expect(histogramP99('sluice_reconciles_total 3\n', EVENT_LOOP_DELAY)).toBeUndefined();
  });
});
