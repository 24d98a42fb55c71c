/**
 * How long the cloud takes to settle after sluice moved it (a create, an update, a state command), learned
 * from the waits of one kind: the first look of a wait goes out at the estimate instead of a fixed poll
 * interval. A cloud that settles at once is then seen settled within a fraction of a second, and one that
 * takes 15 s is not asked four times on the way (2, 6 and 14 s, then 30 s: well after it settled).
 *
 * Each wait that ends settled brackets the cloud's time: it was still moving at the wait's last look that
 * found it so (if any), and settled by the look that found it settled. A bracket moves the estimate to its
 * middle; a wait whose first look found it settled already shrinks the estimate by a quarter, so the first
 * look keeps probing for a shorter time until a look finds the cloud still moving.
 */
export class SettleEstimate {
  private estimateMs: number;

  /** `initialMs`: the first look before anything was learned (the poll interval); within floor and cap. */
  constructor(
    initialMs: number,
    private readonly floorMs: number,
    private readonly capMs: number,
  ) {
    this.estimateMs = this.bounded(initialMs);
  }

  /** When the first look of a new wait is due, after the write that started it. */
  firstLookMs(): number {
    return Math.round(this.estimateMs);
  }

  /**
   * A wait ended settled `settledByMs` after it started; `movingAtMs`: when its last look that found the
   * cloud still moving was (undefined: its first look found it settled).
   */
  learn(settledByMs: number, movingAtMs?: number): void {
    const next =
      movingAtMs === undefined
        ? Math.min(this.estimateMs, settledByMs) * SHRINK_WHEN_SETTLED_AT_FIRST_LOOK
        : (movingAtMs + settledByMs) / 2;
    this.estimateMs = this.bounded(next);
  }

  private bounded(ms: number): number {
    return Math.min(Math.max(ms, this.floorMs), this.capMs);
  }
}

/** Small enough to find a shorter time within a few waits, large enough not to swing past it at once. */
const SHRINK_WHEN_SETTLED_AT_FIRST_LOOK = 0.75;
