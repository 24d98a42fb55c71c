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

  it('while held, keeps each resource where it is and takes the due steps on release, in order', () => {
    const seen: string[] = [];
    const t = new Transitions(10);
    t.run('a', ['stopping', 'stopped'], (step) => seen.push(`a:${step}`));
    t.run('b', ['terminating', 'gone'], (step) => seen.push(`b:${step}`));
    t.hold();
    vi.advanceTimersByTime(1_000);
    expect(seen).toEqual(['a:stopping', 'b:terminating']);
    expect(t.pending).toBe(2);
    t.release();
    expect(seen).toEqual(['a:stopping', 'b:terminating', 'a:stopped', 'b:gone']);
    expect(t.pending).toBe(0);
  });

  it('a plan replaced while held does not take the old held step', () => {
    const seen: string[] = [];
    const t = new Transitions(10);
    t.run('r', ['stopping', 'stopped'], (step) => seen.push(step));
    t.hold();
    vi.advanceTimersByTime(10);
    t.run('r', ['starting', 'running'], (step) => seen.push(step));
    t.release();
    vi.advanceTimersByTime(10);
    expect(seen).toEqual(['stopping', 'starting', 'running']);
  });

  it('advance takes the steps waiting now and stays held, one step per resource at a time', () => {
    const seen: string[] = [];
    const t = new Transitions(10);
    t.hold();
    t.run('r', ['Provisioning', 'Setup', 'Snapshot', 'Running'], (step) => seen.push(step));
    expect(t.advance()).toBe(0);
    vi.advanceTimersByTime(1_000);
    expect(seen).toEqual(['Provisioning']);
    expect(t.advance()).toBe(1);
    vi.advanceTimersByTime(1_000);
    expect(seen).toEqual(['Provisioning', 'Setup']);
    t.release();
    vi.advanceTimersByTime(1_000);
    expect(seen).toEqual(['Provisioning', 'Setup', 'Snapshot', 'Running']);
  });
});
