/**
 * Time source for the runtime's timers. Production uses the system clock; unit tests pass a manual clock so
 * backoff and delayed requeues can be asserted without sleeping.
 */
export interface Clock {
  /** Milliseconds; only differences are meaningful. */
  now(): number;
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** Opaque: whatever the clock's setTimeout returned. */
export type TimerHandle = unknown;

export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (callback, delayMs) => globalThis.setTimeout(callback, delayMs),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};
