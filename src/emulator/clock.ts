import { z } from 'zod';

/**
 * Body of `POST /_emulator/clock`: how the emulator's clock differs from the host's in the times the API
 * reports (`createdAt`, `updatedAt`), as a real cloud's clock may: running behind or ahead (`offsetMs`), or
 * giving whole seconds only (`precision: second`). Fields left out go back to the host's clock.
 */
export const ClockRequest = z.strictObject({
  offsetMs: z.number().int().min(-86_400_000).max(86_400_000).default(0),
  precision: z.enum(['millisecond', 'second']).default('millisecond'),
});
export type ClockSetting = z.infer<typeof ClockRequest>;

/** The clock behind every time the emulator reports. */
export class EmulatorClock {
  private setting: ClockSetting = { offsetMs: 0, precision: 'millisecond' };

  constructor(private readonly hostNow: () => number = Date.now) {}

  set(setting: ClockSetting): void {
    this.setting = { ...setting };
  }

  reset(): void {
    this.set({ offsetMs: 0, precision: 'millisecond' });
  }

  get(): ClockSetting & { now: string } {
    return { ...this.setting, now: this.timestamp() };
  }

  /** Now, as the API reports a time: ISO 8601, offset and truncated as set. */
  timestamp(): string {
    return new Date(this.now()).toISOString();
  }

  /** Now on the cloud's clock (ms since the epoch): what schedules and backups follow. */
  now(): number {
    const ms = this.hostNow() + this.setting.offsetMs;
    return this.setting.precision === 'second' ? Math.floor(ms / 1000) * 1000 : ms;
  }
}
