/**
 * Runs `onTurn` every `everyMs` on the event loop, with how late the loop ran it (ms): the time anything else
 * waiting for the loop (a watch event, a cloud answer, a metrics scrape) waited too. The timer keeps no process
 * alive. Returns the function that stops it.
 */
export function monitorEventLoop(everyMs: number, onTurn: (delayMs: number) => void): () => void {
  let due = performance.now() + everyMs;
  const timer = setInterval(() => {
    const now = performance.now();
    onTurn(Math.max(0, now - due));
    due = now + everyMs;
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
