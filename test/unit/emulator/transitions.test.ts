import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Transitions } from '../../../src/emulator/transitions.ts';

describe('Transitions', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('enters the first step at once and each later one after transitionMs', () => {
    const seen: string[] = [];
    const t = new Transitions(100);
    t.run('r', ['a', 'b', 'c'], (step) => seen.push(step));
    expect(seen).toEqual(['a']);
    vi.advanceTimersByTime(99);
    expect(seen).toEqual(['a']);
    vi.advanceTimersByTime(1);
    expect(seen).toEqual(['a', 'b']);
    vi.advanceTimersByTime(100);
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(t.pending).toBe(0);
  });

  it('passes the steps still to come, so they can be saved and resumed', () => {
    const remaining: string[][] = [];
    new Transitions(0).run('r', ['a', 'b', 'c'], (_step, rest) => remaining.push(rest));
    vi.runAllTimers();
    expect(remaining).toEqual([['b', 'c'], ['c'], []]);
  });

  it('with 0 ms still waits for a timer before the second step', () => {
    const seen: string[] = [];
    new Transitions(0).run('r', ['a', 'b'], (step) => seen.push(step));
    expect(seen).toEqual(['a']);
    vi.runAllTimers();
    expect(seen).toEqual(['a', 'b']);
  });

  it('a new plan replaces the unfinished one; cancel and clear stop everything', () => {
    const seen: string[] = [];
    const t = new Transitions(10);
    t.run('r', ['provisioning', 'running'], (step) => seen.push(step));
    t.run('r', ['stopping', 'stopped'], (step) => seen.push(step));
    vi.runAllTimers();
    expect(seen).toEqual(['provisioning', 'stopping', 'stopped']);
    t.run('x', ['a', 'b'], (step) => seen.push(step));
    t.run('y', ['a', 'b'], (step) => seen.push(step));
    t.cancel('x');
    expect(t.pending).toBe(1);
    t.clear();
    expect(t.pending).toBe(0);
  });
});
