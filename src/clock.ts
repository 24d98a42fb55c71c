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

/** Node's longest timer: a longer delay (or NaN) fires after 1 ms instead, which turns a wait into a loop. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * A delay Node arms as asked: at most `MAX_TIMER_DELAY_MS`. Only for timers whose callback checks what is due
 * and arms again: a longer wait then takes more than one timer, never a 1 ms loop.
 */
export const armableDelay = (delayMs: number): number => Math.min(Math.max(0, delayMs), MAX_TIMER_DELAY_MS);

/** Opaque: whatever the clock's setTimeout returned. */
export type TimerHandle = unknown;

/** The wall clock's time now. */
export const wallNow = (): Date => new Date();

/** Milliseconds on a wall clock given as `now` (a test's, which stands for both clocks). */
export const millisecondsOf =
  (now: () => Date): (() => number) =>
  () =>
    now().getTime();

export const systemClock: Clock = {
  // The platform's monotonic clock itself: every cloud call reads it, through no wrapper of ours.
  now: performance.now.bind(performance),
  setTimeout: (callback, delayMs) => globalThis.setTimeout(callback, delayMs),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

/** Resolves after `ms` on `clock`; rejects with the signal's reason if it aborts first. */
export function sleep(ms: number, clock: Clock, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0 && !signal) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal!.reason);
    };
    const handle = clock.setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
