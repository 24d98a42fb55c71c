import { describe, expect, it } from 'vitest';
import { FaultRequest, FaultTable, mulberry32 } from '../../../src/emulator/faults.ts';

const ROUTE = '/v1/organizations/:organizationId/services/:serviceId';

describe('mulberry32', () => {
  it('repeats its sequence for a seed and stays in [0, 1)', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const values = Array.from({ length: 1000 }, () => a());
    expect(values).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    expect(mulberry32(43)()).not.toBe(values[0]);
  });
});

describe('FaultTable', () => {
  it('matches by method and route pattern; omitted ones match anything', () => {
    const table = new FaultTable(1);
    table.add({ method: 'GET', route: ROUTE, status: 500 });
    expect(table.take('POST', ROUTE)).toBeUndefined();
    expect(table.take('GET', '/other')).toBeUndefined();
    expect(table.take('GET', ROUTE)).toMatchObject({ status: 500 });
    table.clear();
    table.add({ status: 503 });
    expect(table.take('DELETE', '/anything')).toMatchObject({ status: 503 });
  });

  it('retires a fault after `count` applications', () => {
    const table = new FaultTable(1);
    table.add({ status: 500, count: 2 });
    expect(table.take('GET', ROUTE)).toBeDefined();
    expect(table.take('GET', ROUTE)).toBeDefined();
    expect(table.take('GET', ROUTE)).toBeUndefined();
    expect(table.empty).toBe(true);
  });

  it('applies a `rate` to about that share of calls, the same calls for the same seed', () => {
    const pattern = (seed: number) => {
      const table = new FaultTable(seed);
      table.add({ status: 500, rate: 0.3 });
      return Array.from({ length: 2000 }, () => (table.take('GET', ROUTE) ? 1 : 0));
    };
    const first = pattern(7);
    expect(pattern(7)).toEqual(first);
    const share = first.reduce<number>((a, b) => a + b, 0) / first.length;
    expect(share).toBeGreaterThan(0.25);
    expect(share).toBeLessThan(0.35);
    expect(pattern(8)).not.toEqual(first);
  });

  it('reset restarts the generator, so a reset emulator repeats its draws', () => {
    const table = new FaultTable(3);
    const draw = () => {
      table.add({ status: 500, rate: 0.5 });
      const seen = Array.from({ length: 50 }, () => Boolean(table.take('GET', ROUTE)));
      table.reset();
      return seen;
    };
    expect(draw()).toEqual(draw());
  });
});

describe('FaultRequest', () => {
  it('needs an effect and takes one answer at most', () => {
    expect(FaultRequest.safeParse({ route: ROUTE }).success).toBe(false);
    expect(FaultRequest.safeParse({ status: 500, drop: true }).success).toBe(false);
    expect(FaultRequest.safeParse({ latencyMs: 100, status: 500 }).success).toBe(true);
    expect(FaultRequest.safeParse({ retryAfter: 3 }).success).toBe(false);
  });

  it('normalises the method to upper case and refuses unknown ones', () => {
    expect(FaultRequest.parse({ method: 'get', status: 500 }).method).toBe('GET');
    expect(FaultRequest.safeParse({ method: 'FETCH', status: 500 }).success).toBe(false);
  });
});
