import { REAL_TIMINGS, scaleMs } from '../base/timings.ts';
import type { z } from 'zod';
import { OperatorFlagFields } from '../command-line/run-flags.ts';

/** `sluice run`'s configuration: the flags, with each duration left out at its real default on the time scale. */
export const OperatorConfig = OperatorFlagFields.transform((flags) => {
  const scaled = (ms: number) => scaleMs(ms, flags.timeScale);
  return {
    ...flags,
    syncInterval: flags.syncInterval ?? scaled(REAL_TIMINGS.syncIntervalMs),
    pollInterval: flags.pollInterval ?? scaled(REAL_TIMINGS.pollIntervalMs),
    managementQuota: flags.managementQuota ?? {
      requests: 10,
      windowMs: scaled(REAL_TIMINGS.managementQuotaWindowMs),
    },
    alertingQuota: flags.alertingQuota ?? {
      requests: 100,
      windowMs: scaled(REAL_TIMINGS.alertingQuotaWindowMs),
    },
  };
});
export type OperatorConfig = z.output<typeof OperatorConfig>;
export type OperatorFlags = z.input<typeof OperatorConfig>;
