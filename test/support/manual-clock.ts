import type { Clock, TimerHandle } from '../../src/clock.ts';

/** A clock that only moves when the test says so; due timers fire in time order (ties in creation order). */
export class ManualClock implements Clock {
  private time = 0;
  private nextId = 1;
  private readonly timers = new Map<number, { at: number; callback: () => void }>();

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + Math.max(0, delayMs), callback });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle as number);
  }

  get pendingTimers(): number {
    return this.timers.size;
  }

  /** When the earliest pending timer is due; undefined when none is pending. */
  get nextTimerAt(): number | undefined {
    let at: number | undefined;
    for (const timer of this.timers.values()) if (at === undefined || timer.at < at) at = timer.at;
    return at;
  }

  /** Moves time forward, firing due timers synchronously. */
  advance(ms: number): void {
    const target = this.time + ms;
    for (let next = this.nextDue(target); next; next = this.nextDue(target)) this.fire(next);
    this.time = target;
  }

  /** Moves time forward like `advance`, letting promise callbacks run before and after each timer. */
  async advanceAndSettle(ms: number): Promise<void> {
    const target = this.time + ms;
    await settle();
    for (let next = this.nextDue(target); next; next = this.nextDue(target)) {
      this.fire(next);
      await settle();
    }
    this.time = target;
    await settle();
  }

  private nextDue(target: number): [number, { at: number; callback: () => void }] | undefined {
    let next: [number, { at: number; callback: () => void }] | undefined;
    for (const entry of this.timers) {
      if (entry[1].at <= target && (!next || entry[1].at < next[1].at)) next = entry;
    }
    return next;
  }

  private fire([id, timer]: [number, { at: number; callback: () => void }]): void {
    this.timers.delete(id);
    this.time = timer.at;
    timer.callback();
  }
}

/** Lets pending promise callbacks run. */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
