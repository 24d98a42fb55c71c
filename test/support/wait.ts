/** Polls until `test` holds: waits on state, never on the clock, and fails naming what it waited for. */
export async function until(
  what: string,
  test: () => boolean | Promise<boolean>,
  timeoutMs = 60_000,
  intervalMs = 50,
): Promise<void> {
  await untilValue(what, async () => await test(), Boolean, timeoutMs, intervalMs);
}

/** Polls `read` until `test` holds of its value and returns that value; a timeout shows the last one read. */
export async function untilValue<T>(
  what: string,
  read: () => Promise<T>,
  test: (value: T) => boolean,
  timeoutMs = 60_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const last = await read();
    if (test(last)) return last;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(last)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Re-runs `fn` until it stops throwing (assertions included) or the timeout passes; returns its value. */
export async function eventually<T>(
  fn: () => Promise<T> | T,
  { timeoutMs = 5_000, intervalMs = 10 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
