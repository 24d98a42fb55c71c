/**
 * Runs state-machine plans in time: the first step at once, each later one `transitionMs` after the previous.
 * One timer per resource; a new plan for a resource replaces its unfinished one. 0 ms still waits a macrotask,
 * so a client always sees the first step in the answer to its own request.
 */
export class Transitions {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(private readonly transitionMs: number) {}

  /** Enters `steps[0]` now and schedules the rest; `apply(step, remaining)` moves the resource. */
  run(key: string, steps: readonly string[], apply: (step: string, remaining: string[]) => void): void {
    this.cancel(key);
    const [first, ...rest] = steps;
    if (first === undefined) return;
    apply(first, rest);
    this.resume(key, rest, apply);
  }

  /** Schedules steps that are still to come (also after a restart from a state file). */
  resume(
    key: string,
    remaining: readonly string[],
    apply: (step: string, remaining: string[]) => void,
  ): void {
    const [next, ...rest] = remaining;
    if (next === undefined) return;
    const timer = setTimeout(() => {
      this.timers.delete(key);
      apply(next, rest);
      this.resume(key, rest, apply);
    }, this.transitionMs);
    this.timers.set(key, timer);
  }

  cancel(key: string): void {
    const timer = this.timers.get(key);
    if (timer !== undefined) {
      clearTimeout(timer);
      this.timers.delete(key);
    }
  }

  clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  get pending(): number {
    return this.timers.size;
  }
}
