import { describe, expect, it } from 'vitest';
import {
  ownership,
  retryAfterViolations,
  secretScan,
  type ObjectState,
} from '../../../tools/chaos/checks.ts';

const object = (name: string, id: string | undefined, wantName = name): ObjectState => ({
  kind: 'Pipe',
  name,
  wantName,
  id,
  ready: true,
});

describe('chaos checks', () => {
  it('ownership passes when every cloud resource belongs to exactly one object', () => {
    const cloud = new Map([
      [
        'Pipe',
        [
          { id: 'p1', name: 'a' },
          { id: 'p2', name: 'b' },
        ],
      ],
    ]);
    expect(ownership([object('a', 'p1'), object('b', 'p2')], cloud)).toEqual({
      duplicates: [],
      orphans: [],
      mismatched: [],
    });
  });

  it('ownership finds a second resource of one object, a shared id, an orphan and a stale name', () => {
    const cloud = new Map([
      [
        'Pipe',
        [
          { id: 'p1', name: 'a' },
          { id: 'p2', name: 'a' },
          { id: 'p3', name: 'c' },
        ],
      ],
    ]);
    const result = ownership(
      [object('a', 'p1'), object('b', 'p1'), object('c', 'p3', 'c2'), object('d', undefined)],
      cloud,
    );
    expect(result.orphans).toEqual(['Pipe p2 (a)']);
    expect(result.duplicates).toEqual(['Pipe p1 claimed by 2 objects', 'Pipe "a" exists 2 times']);
    expect(result.mismatched).toEqual([
      'Pipe b: cloud name "a", spec "b"',
      'Pipe c: cloud name "c", spec "c2"',
      'Pipe d: status.id unset',
    ]);
  });

  it('a call of the same key inside the Retry-After window is a violation; after it, or of another key, is not', () => {
    const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
    const call = (key: string, ms: number, status = 200) => ({
      key,
      status,
      timestamp: at(ms),
      method: 'GET',
      path: '/p',
    });
    const calls = [call('k', 0, 429), call('k', 100), call('k', 900), call('other', 900), call('k', 2_100)];
    expect(retryAfterViolations(calls, 2_000, 200)).toEqual([
      'GET /p 900 ms after a 429 (2026-01-01T00:00:00.000Z)',
    ]);
  });

  it('the secret scan names where a secret appears and ignores values too short to be one', () => {
    const findings = secretScan({ logs: 'x token=s3cr3t-value y', status: '{"ok":true}', metrics: 'abc' }, [
      's3cr3t-value',
      'abc',
    ]);
    expect(findings).toEqual(['logs: s3c…']);
  });
});
