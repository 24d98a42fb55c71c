import { describe, expect, it } from 'vitest';
import { FixedWindowRateLimiter, parseRateLimit } from '../../../src/emulator/rate-limit.ts';

function limiter(requests: number, windowSeconds: number) {
  let now = 1_000_000;
  const l = new FixedWindowRateLimiter({ requests, windowSeconds }, () => now);
  return { l, advance: (ms: number) => (now += ms) };
}

describe('FixedWindowRateLimiter', () => {
  it('allows `requests` calls per window and refuses the next with the whole seconds left (at least 1)', () => {
    const { l, advance } = limiter(10, 10);
    for (let i = 0; i < 10; i++) expect(l.take('k')).toEqual({ allowed: true });
    advance(2_500);
    expect(l.take('k')).toEqual({ allowed: false, retryAfterSeconds: 8 });
    advance(7_400);
    expect(l.take('k')).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it('opens a new window once the old one has ended', () => {
    const { l, advance } = limiter(2, 10);
    l.take('k');
    l.take('k');
    expect(l.take('k').allowed).toBe(false);
    advance(10_000);
    expect(l.take('k')).toEqual({ allowed: true });
  });

  it('counts each key on its own', () => {
    const { l } = limiter(1, 10);
    expect(l.take('a').allowed).toBe(true);
    expect(l.take('b').allowed).toBe(true);
    expect(l.take('a').allowed).toBe(false);
  });

  it('off allows everything; reset forgets the windows', () => {
    const off = new FixedWindowRateLimiter('off');
    for (let i = 0; i < 1000; i++) expect(off.take('k').allowed).toBe(true);
    const { l } = limiter(1, 10);
    l.take('k');
    l.reset();
    expect(l.take('k').allowed).toBe(true);
  });
});

describe('parseRateLimit', () => {
  it('reads off and <n>/<s>s', () => {
    expect(parseRateLimit('off')).toBe('off');
    expect(parseRateLimit('10/10s')).toEqual({ requests: 10, windowSeconds: 10 });
    expect(parseRateLimit('100/60s')).toEqual({ requests: 100, windowSeconds: 60 });
  });

  it('refuses anything else, saying what it expects', () => {
    for (const text of ['10', '10/10', '0/10s', '10/0s', 'ten/10s', '']) {
      expect(() => parseRateLimit(text)).toThrow(/must be "off" or <requests>\/<seconds>s/);
    }
  });
});
