/**
 * Cooperative slicing of the one event loop. Many reconciles waiting on one answer (a list shared by every
 * object, a burst of watch events read in one chunk) all continue in the same turn of the loop, one after the
 * other, and hold it for as long as all of them take together: no watch event is read, no timer runs, no scrape
 * is answered meanwhile. Code that may run in such a crowd asks `yieldIfBusy()` at its steps: once the current
 * slice of the loop has run for `SLICE_MS`, the callers wait for later turns, one per turn, with everything else
 * the loop has to do in between.
 *
 * Off until `startSlicing()` (the operator turns it on), so unit tests and one-shot commands keep their order of
 * events.
 */

/** The longest a slice of work runs before the loop gets a turn: well under what a responsive loop allows. */
export const SLICE_MS = 10;

let slicing = false;
/** When the current slice began: the last time the loop was seen free, or a waiter was let through. */
let sliceStartedAt = 0;
const waiting: Array<() => void> = [];

/** Turns slicing on; `loopTurned()` must then be called whenever the loop is seen free (a timer ran on time). */
export function startSlicing(): void {
  slicing = true;
  sliceStartedAt = performance.now();
}

/** The loop ran a timer: whatever ran before it has ended, a new slice begins. */
export function loopTurned(): void {
  sliceStartedAt = Math.max(sliceStartedAt, performance.now());
}

/** Whether the current slice has used its time. */
export function overSlice(): boolean {
  return slicing && performance.now() - sliceStartedAt > SLICE_MS;
}

/** Resolves in a later turn of the loop than this one, behind the callers that asked before it. */
export function nextSlice(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (waiting.length === 1) setImmediate(letOneThrough);
  });
}

/** Waits for a later turn when the current slice has used its time; otherwise goes on at once. */
export async function yieldIfBusy(): Promise<void> {
  if (overSlice()) await nextSlice();
}

function letOneThrough(): void {
  sliceStartedAt = performance.now();
  waiting.shift()?.();
  // Queued from within this turn's immediates, so the next one waits for the loop's next turn (I/O first).
  if (waiting.length > 0) setImmediate(letOneThrough);
}
