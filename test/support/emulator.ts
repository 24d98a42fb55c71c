import { beforeEach } from 'vitest';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/server.ts';
import { suiteValue } from './suite-value.ts';

export type { Emulator, EmulatorOptions };

/**
 * A fast, quiet emulator on a free loopback port: no transition delays, no rate limit, no log. A test
 * overrides only what it observes; an option given as `undefined` means the emulator's own default (the real
 * rate limits, say).
 */
export function startTestEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const merged: Record<string, unknown> = {
    host: '127.0.0.1',
    port: 0,
    transitionMs: 0,
    rateLimit: 'off',
    logger: false,
  };
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) delete merged[key];
    else merged[key] = value;
  }
  return startEmulator(merged as EmulatorOptions);
}

/** Empties the emulator through its control route: no objects, calls, faults or spent quota; the clock reset. */
export async function resetEmulator(emu: Emulator): Promise<void> {
  const response = await fetch(`${emu.url}/_emulator/reset`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`emulator reset: ${response.status} ${await response.text()}`);
}

/**
 * One emulator for the enclosing suite, started before its tests and stopped after them; with `reset`, emptied
 * before each test, so every test starts from an empty organization.
 */
export function useEmulator(options: EmulatorOptions = {}, { reset = true } = {}): Emulator {
  const emu = suiteValue(
    'the emulator',
    () => startTestEmulator(options),
    (started) => started.stop(),
  );
  if (reset) beforeEach(() => resetEmulator(emu));
  return emu;
}
