import { describe, expect, it } from 'vitest';
import { CallLog } from '../../../src/emulator/call-log.ts';

const call = (i: number, method = 'GET') => ({
  method,
  path: `/p/${i}`,
  route: '/p/:id',
  status: 200,
  key: 'k',
  at: i,
});

describe('CallLog', () => {
  it('keeps calls oldest first with ISO timestamps', () => {
    const log = new CallLog();
    log.record(call(0));
    log.record(call(1000));
    expect(log.calls()).toEqual([
      {
        method: 'GET',
        path: '/p/0',
        route: '/p/:id',
        status: 200,
        key: 'k',
        timestamp: '1970-01-01T00:00:00.000Z',
      },
      {
        method: 'GET',
        path: '/p/1000',
        route: '/p/:id',
        status: 200,
        key: 'k',
        timestamp: '1970-01-01T00:00:01.000Z',
      },
    ]);
  });

  it('bounds the kept entries but counts every call', () => {
    const log = new CallLog(3);
    for (let i = 0; i < 10; i++) log.record(call(i, i % 2 ? 'POST' : 'GET'));
    expect(log.calls().map((c) => c.path)).toEqual(['/p/7', '/p/8', '/p/9']);
    expect(log.counts()).toEqual({ 'GET /p/:id': 5, 'POST /p/:id': 5 });
  });

  it('clear empties both', () => {
    const log = new CallLog(2);
    log.record(call(1));
    log.clear();
    expect(log.calls()).toEqual([]);
    expect(log.counts()).toEqual({});
  });
});
