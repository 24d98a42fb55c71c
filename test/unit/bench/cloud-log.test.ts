import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../../src/emulator/call-log.ts';
import { SERVICE_CREATE_STEPS, pipeRunSteps } from '../../../src/emulator/state-machines.ts';
import {
  callsByRoute,
  covers,
  driftCoverage,
  provisionLowerBound,
  type CloudObject,
} from '../../../bench/cloud-log.ts';

const ORG = '/v1/organizations/00000000-0000-4000-8000-000000000000';
const T0 = Date.parse('2030-01-01T00:00:00Z');

function call(path: string, atS: number, { method = 'GET', status = 200, route = path } = {}): CallRecord {
  return { method, path, route, status, key: 'k', timestamp: new Date(T0 + atS * 1000).toISOString() };
}

const service: CloudObject = { kind: 'service', id: 's1' };
const pipe: CloudObject = { kind: 'pipe', id: 'p1', serviceId: 's1' };
const otherPipe: CloudObject = { kind: 'pipe', id: 'p2', serviceId: 's2' };
const rpe: CloudObject = { kind: 'rpe', id: 'r1', serviceId: 's1' };
const alert: CloudObject = { kind: 'alert', id: 'a1' };

describe('which reads cover a cloud object', () => {
  it('a GET of the object itself', () => {
    expect(covers(call(`${ORG}/services/s1`, 0), service)).toBe(true);
    expect(covers(call(`${ORG}/services/s1/pipes/p1`, 0), pipe)).toBe(true);
    expect(covers(call(`${ORG}/services/s1/pipesReversePrivateEndpoints/r1`, 0), rpe)).toBe(true);
    expect(covers(call('/api/v2/alerts/a1', 0), alert)).toBe(true);
    expect(covers(call(`${ORG}/services/s2`, 0), service)).toBe(false);
  });

  it("a list the object is in: the organization's services, its own service's pipes or endpoints, the alerts", () => {
    expect(covers(call(`${ORG}/services`, 0), service)).toBe(true);
    expect(covers(call(`${ORG}/services/s1/pipes`, 0), pipe)).toBe(true);
    expect(covers(call(`${ORG}/services/s1/pipes`, 0), otherPipe)).toBe(false);
    expect(covers(call(`${ORG}/services/s1/pipesReversePrivateEndpoints`, 0), rpe)).toBe(true);
    expect(covers(call('/api/v2/alerts', 0), alert)).toBe(true);
    // A list of another kind covers nothing of this one.
    expect(covers(call(`${ORG}/services`, 0), pipe)).toBe(false);
    expect(covers(call(`${ORG}/services/s1/pipes`, 0), rpe)).toBe(false);
  });

  it('not a write, a 429 or an error, nor a read of something else of the object', () => {
    expect(covers(call(`${ORG}/services/s1`, 0, { method: 'PATCH' }), service)).toBe(false);
    expect(covers(call(`${ORG}/services/s1`, 0, { status: 429 }), service)).toBe(false);
    expect(covers(call(`${ORG}/services/s1`, 0, { status: 404 }), service)).toBe(false);
    expect(covers(call(`${ORG}/services/s1/privateEndpointConfig`, 0), service)).toBe(false);
    expect(covers(call(`${ORG}/services/s1/pipes/p1/settings`, 0), pipe)).toBe(false);
  });
});

describe('drift coverage over a window', () => {
  const window = { fromMs: T0 + 100_000, toMs: T0 + 220_000, intervalMs: 60_000 };

  it('an object read in every interval is checked; the stretch before its first read in the window counts from its last read before it', () => {
    const calls = [
      call(`${ORG}/services/s1`, 50),
      call(`${ORG}/services`, 110),
      call(`${ORG}/services/s1`, 170),
    ];
    // 50 → 110 is 60 s, 110 → 170 is 60 s, 170 → 220 is 50 s.
    expect(driftCoverage([service], calls, window)).toEqual({
      objects: 1,
      checked: 1,
      maxGapMs: 60_000,
      missed: [],
    });
  });

  it('a stretch of the window longer than the interval without a read is a missed check, at its end too', () => {
    const early = [call(`${ORG}/services/s1`, 90), call(`${ORG}/services/s1`, 140)];
    const result = driftCoverage([service], early, window);
    expect(result.checked).toBe(0);
    expect(result.maxGapMs).toBe(80_000);
    expect(result.missed).toEqual([service]);
  });

  it("a pipe is covered by its own service's pipes list, not another's", () => {
    const calls = [110, 160, 210].map((at) => call(`${ORG}/services/s1/pipes`, at));
    const result = driftCoverage([pipe, otherPipe], calls, window);
    expect(result.checked).toBe(1);
    expect(result.missed).toEqual([otherPipe]);
  });

  it('with no read before the window, its start is taken as the last check', () => {
    const calls = [call(`${ORG}/services/s1`, 155), call(`${ORG}/services/s1`, 200)];
    expect(driftCoverage([service], calls, window).maxGapMs).toBe(55_000);
  });
});

describe('calls by route', () => {
  it('counts answered calls by method and route without the organization prefix; 429s are left out', () => {
    const route = '/v1/organizations/:organizationId/services/:serviceId';
    const counts = callsByRoute([
      call(`${ORG}/services/s1`, 0, { route }),
      call(`${ORG}/services/s2`, 1, { route }),
      call(`${ORG}/services/s2`, 2, { route, status: 429 }),
      call(`${ORG}/services`, 3, { route: '/v1/organizations/:organizationId/services', method: 'POST' }),
    ]);
    expect([...counts]).toEqual([
      ['GET /services/:serviceId', 2],
      ['POST /services', 1],
    ]);
  });
});

describe('the lower bound of a provisioning burst', () => {
  it("the creates at the quota's average rate, then one provisioning step of the last service and one of its pipe", () => {
    // The measured case: 40 creates at 10 per 10 s, 15 s per state step → 40 + 15 + 15 = 70 s.
    const bound = provisionLowerBound({
      creates: 40,
      requests: 10,
      windowMs: 10_000,
      stepMs: 15_000,
      serviceSteps: SERVICE_CREATE_STEPS,
      pipeSteps: pipeRunSteps('kafka', true, true),
    });
    expect(bound).toEqual({
      createsMs: 40_000,
      serviceMs: 15_000,
      pipeMs: 15_000,
      totalMs: 70_000,
      // Under a fixed window the 40th create can go at 30 s (10 at 0, 10, 20 and 30 s).
      fixedWindowTotalMs: 60_000,
    });
  });

  it('a pipe that walks more states (postgres: Setup, Snapshot) adds a step each', () => {
    const bound = provisionLowerBound({
      creates: 2,
      requests: 1,
      windowMs: 1_000,
      stepMs: 100,
      serviceSteps: SERVICE_CREATE_STEPS,
      pipeSteps: pipeRunSteps('postgres', true, true),
    });
    expect(bound.totalMs).toBe(2_000 + 100 + 300);
    // Two creates at 1 per 1 s: the second waits for the next window.
    expect(bound.fixedWindowTotalMs).toBe(1_000 + 100 + 300);
  });
});
