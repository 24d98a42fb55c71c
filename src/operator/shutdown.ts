export interface ShutdownSteps {
  /** Stops taking work; resolves once the work in flight has ended. */
  drain(): Promise<unknown>;
  /** Aborts the work in flight (its cloud calls). */
  abort(): void;
  /** Hands leadership over (releases the Lease). */
  release(): Promise<unknown>;
  /** How long the work in flight may take to finish before it is aborted. */
  graceMs: number;
}

/**
 * Stops a leader without a second leader acting beside it: first no new work, then the work in flight
 * finishes (or is aborted once `graceMs` passed), and only then is the Lease released. Releasing first
 * would let a successor start while this process still calls the cloud.
 */
export async function shutDownInOrder(steps: ShutdownSteps): Promise<'drained' | 'aborted'> {
  let outcome: 'drained' | 'aborted' = 'drained';
  const deadline = setTimeout(() => {
    outcome = 'aborted';
    steps.abort();
  }, steps.graceMs);
  try {
    await steps.drain();
  } finally {
    clearTimeout(deadline);
  }
  await steps.release();
  return outcome;
}
