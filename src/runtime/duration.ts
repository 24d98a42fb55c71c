import parseDuration from 'parse-duration';

export const DURATION_HINT = 'must be a positive duration with a unit, like 30s, 10m or 1h';

/** `90s`, `10m`, `1h30m` in milliseconds, or undefined; a unit is required so `30` is never read as 30 ms. */
export function tryParseDurationMs(text: string): number | undefined {
  const ms = /[a-z]\s*$/i.test(text) ? parseDuration(text) : null;
  return typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

export function parseDurationMs(text: string, what: string): number {
  const ms = tryParseDurationMs(text);
  if (ms === undefined) throw new Error(`${what} ${DURATION_HINT} (got "${text}")`);
  return ms;
}
