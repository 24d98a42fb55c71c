type Applier = (step: string, remaining: string[]) => void;

/**
 * Runs state-machine plans in time: the first step at once, each later one `transitionMs` after the previous.
 * One timer per resource; a new plan for a resource replaces its unfinished one. 0 ms still waits a macrotask,
 * so a client always sees the first step in the answer to its own request.
 *
 * `hold()` keeps every resource in the state it is in (steps that fall due wait) until `release()`, so a test
 * can read an intermediate state however slowly it runs, instead of racing a short transition.
 */
export class Transitions {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** While held: the steps that fell due, in order, per resource. */
  private held: Map<string, () => void> | undefined;

  constructor(private readonly transitionMs: number) {}

  /** Enters `steps[0]` now and schedules the rest; `apply(step, remaining)` moves the resource. */
  run(key: string, steps: readonly string[], apply: Applier): void {
    this.cancel(key);
    const [first, ...rest] = steps;
    if (first === undefined) return;
    apply(first, rest);
    this.resume(key, rest, apply);
  }

  /** Schedules steps that are still to come (also after a restart from a state file). */
  resume(key: string, remaining: readonly string[], apply: Applier): void {
    const [next, ...rest] = remaining;
    if (next === undefined) return;
    const step = () => {
      apply(next, rest);
      this.resume(key, rest, apply);
    };
    const timer = setTimeout(() => {
      this.timers.delete(key);
      if (this.held) this.held.set(key, step);
      else step();
    }, this.transitionMs);
    this.timers.set(key, timer);
  }

  cancel(key: string): void {
    this.held?.delete(key);
    const timer = this.timers.get(key);
    if (timer !== undefined) {
      clearTimeout(timer);
      this.timers.delete(key);
    }
  }

  clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.held = undefined;
  }

  /** Stops every resource where it is: steps that fall due from now on wait for `release`. */
  hold(): void {
    this.held ??= new Map();
  }

  /** Takes the steps that waited, in the order they fell due, and lets time run again. */
  release(): void {
    const waiting = this.held;
    this.held = undefined;
    for (const step of waiting?.values() ?? []) step();
  }

  /** While held: takes the steps that are waiting now (one per resource) and stays held; returns how many. */
  advance(): number {
    const waiting = [...(this.held?.values() ?? [])];
    this.held?.clear();
    for (const step of waiting) step();
    return waiting.length;
  }

  get pending(): number {
    return this.timers.size + (this.held?.size ?? 0);
  }
}
