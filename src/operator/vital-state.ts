/**
 * What the operator's main thread and its vital-signs thread (probes and the leader Lease) tell each other
 * without either waiting for the other's event loop: a few numbers in shared memory, each written by one side.
 * Times are milliseconds of the process's monotonic clock, the same in every thread.
 */

/** Milliseconds of the monotonic clock every thread of the process shares (performance.now() is per thread). */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint() / 1_000_000n);
}

const SLOTS = {
  /** Main: when its event loop last turned. */
  mainTurnedAt: 0,
  /** Main: since when a work queue with work has not moved (0: every queue moves or is empty). */
  workStalledSince: 1,
  /** Main: 1 once every cache has synced. */
  synced: 2,
  /** Main: 1 once the operator is shutting down. */
  stopping: 3,
  /** Vital signs: until when this process may act as leader (0: not leading). */
  leadingUntil: 4,
  /** Vital signs: when the elector last finished an attempt to acquire or renew (0: not campaigning). */
  electorTriedAt: 5,
} as const;
type Slot = keyof typeof SLOTS;

export class VitalState {
  private readonly cells: BigInt64Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(8 * Object.keys(SLOTS).length)) {
    this.cells = new BigInt64Array(buffer);
  }

  read(slot: Slot): number {
    return Number(Atomics.load(this.cells, SLOTS[slot]));
  }

  write(slot: Slot, value: number): void {
    Atomics.store(this.cells, SLOTS[slot], BigInt(Math.round(value)));
  }
}
