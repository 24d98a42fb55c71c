// A service's life beyond its own fields: backup configuration and backups, scaling schedule, upgrade window
// (extensions; docs/cloud-api.md). The emulator validates with these, the operator types and checks with them.
import { z } from 'zod';
import {
  AUTOSCALING_MODES,
  AUTOSCALING_REPLICAS,
  IDLE_TIMEOUT_MINUTES_MIN,
  REPLICA_MEMORY,
} from './service.ts';

/** Hours between two backups the cloud offers (the reference gives none; these are the console's choices). */
export const BACKUP_PERIOD_HOURS = [6, 8, 12, 16, 20, 24] as const;
/** How long a backup is kept: whole days, 1 to 45. */
export const BACKUP_RETENTION_HOURS = { min: 24, max: 1080, step: 24 } as const;
export const BACKUP_DEFAULTS = {
  backupPeriodInHours: 24,
  backupRetentionPeriodInHours: 24,
  backupStartTime: null,
} as const;
const START_TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

export const BackupPeriodInHours = z
  .number()
  .int()
  .refine((hours) => (BACKUP_PERIOD_HOURS as readonly number[]).includes(hours), {
    error: `must be one of ${BACKUP_PERIOD_HOURS.join(', ')}`,
  });
export const BackupRetentionPeriodInHours = z
  .number()
  .int()
  .min(BACKUP_RETENTION_HOURS.min)
  .max(BACKUP_RETENTION_HOURS.max)
  .multipleOf(BACKUP_RETENTION_HOURS.step, { error: 'must be a whole number of days (a multiple of 24)' });
export const BackupStartTime = z.string().regex(START_TIME, { error: 'must be HH:MM in UTC' });

/** GET and PATCH backupConfiguration's answer. */
export const BackupConfiguration = z.looseObject({
  backupPeriodInHours: z.number(),
  backupRetentionPeriodInHours: z.number(),
  backupStartTime: z.string().nullable().optional(),
});
export type BackupConfiguration = z.infer<typeof BackupConfiguration>;

/** PATCH backupConfiguration: any of the three; `null` puts a field back to its default. */
export const BackupConfigurationUpdate = z
  .strictObject({
    backupPeriodInHours: BackupPeriodInHours.nullable().optional(),
    backupRetentionPeriodInHours: BackupRetentionPeriodInHours.nullable().optional(),
    backupStartTime: BackupStartTime.nullable().optional(),
  })
  .superRefine((body, ctx) => backupPeriodIssue(body, ctx));
export type BackupConfigurationUpdate = z.infer<typeof BackupConfigurationUpdate>;

/** A daily start time fixes the period at 24 hours: another period beside it is refused. */
export function backupPeriodIssue(
  body: { backupPeriodInHours?: number | null; backupStartTime?: string | null },
  ctx: z.RefinementCtx,
  path: PropertyKey[] = [],
): void {
  const period = body.backupPeriodInHours;
  if (body.backupStartTime && period !== undefined && period !== null && period !== 24) {
    ctx.addIssue({
      code: 'custom',
      path: [...path, 'backupPeriodInHours'],
      message: 'must be 24 (or left out) when backupStartTime is set: a start time means one backup a day',
    });
  }
}

export const BACKUP_STATUSES = ['done', 'error', 'in_progress'] as const;
export const Backup = z.looseObject({
  id: z.string(),
  status: z.enum(BACKUP_STATUSES),
  serviceId: z.string(),
  startedAt: z.string(),
  finishedAt: z.string().nullable().optional(),
  sizeInBytes: z.number().optional(),
  durationInSeconds: z.number().optional(),
  type: z.enum(['full', 'incremental']).optional(),
  backupName: z.string().optional(),
});
export type Backup = z.infer<typeof Backup>;
export const BackupList = z.array(Backup);

export const SCALING_SCHEDULE_MAX_ENTRIES = 10;
export const SCALING_ENTRY_NAME_MAX = 50;
export const HOURS_PER_WEEK = 168;

const replicaMemory = z
  .number()
  .min(REPLICA_MEMORY.min)
  .max(REPLICA_MEMORY.max)
  .multipleOf(REPLICA_MEMORY.step);
const replicas = z.number().int().min(AUTOSCALING_REPLICAS.min).max(AUTOSCALING_REPLICAS.max);

/** The shape of one weekly window, without its rules (the kind's schema adds the same rules). */
export const scalingEntryShape = {
  name: z.string().min(1).max(SCALING_ENTRY_NAME_MAX),
  weekdays: z.array(z.number().int().min(0).max(6)).min(1).max(7),
  startHourUtc: z.number().int().min(0).max(23),
  endHourUtc: z.number().int().min(1).max(24),
  autoscalingMode: z.enum(AUTOSCALING_MODES).optional(),
  minReplicas: replicas.optional(),
  maxReplicas: replicas.optional(),
  minReplicaMemoryGb: replicaMemory.optional(),
  maxReplicaMemoryGb: replicaMemory.optional(),
  idleScaling: z.boolean().optional(),
  idleTimeoutMinutes: z.number().int().min(IDLE_TIMEOUT_MINUTES_MIN).optional(),
};

export interface ScalingWindow {
  weekdays: number[];
  startHourUtc: number;
  endHourUtc: number;
  autoscalingMode?: 'vertical' | 'horizontal';
  minReplicas?: number;
  maxReplicas?: number;
  minReplicaMemoryGb?: number;
  maxReplicaMemoryGb?: number;
}

/** One window's own rules, as the cloud judges them; `path` leads to the entry. */
export function scalingEntryIssues(entry: ScalingWindow, ctx: z.RefinementCtx, path: PropertyKey[]): void {
  const at = (field: string, message: string) =>
    ctx.addIssue({ code: 'custom', path: [...path, field], message });
  if (entry.startHourUtc === entry.endHourUtc) at('endHourUtc', 'must differ from startHourUtc');
  if (new Set(entry.weekdays).size !== entry.weekdays.length) at('weekdays', 'must not repeat a day');
  const { minReplicas: min, maxReplicas: max } = entry;
  if ((min === undefined) !== (max === undefined)) at('maxReplicas', 'must be set together with minReplicas');
  if (min !== undefined && max !== undefined) {
    if (min > max) at('minReplicas', 'must be at most maxReplicas');
    else if ((entry.autoscalingMode ?? 'vertical') === 'vertical' && min !== max)
      at('maxReplicas', 'must equal minReplicas for a vertical entry (a fixed replica count)');
  }
  const { minReplicaMemoryGb: minMem, maxReplicaMemoryGb: maxMem } = entry;
  if ((minMem === undefined) !== (maxMem === undefined))
    at('maxReplicaMemoryGb', 'must be set together with minReplicaMemoryGb');
  if (minMem !== undefined && maxMem !== undefined) {
    if (minMem > maxMem) at('minReplicaMemoryGb', 'must be at most maxReplicaMemoryGb');
    else if (entry.autoscalingMode === 'horizontal' && minMem !== maxMem)
      at('maxReplicaMemoryGb', 'must equal minReplicaMemoryGb for a horizontal entry (one replica size)');
  }
}

/** The hours of the week (0 = Sunday 00:00 UTC) a window covers; one that ends before it starts wraps. */
export function windowHours(entry: ScalingWindow): number[] {
  const length = (entry.endHourUtc - entry.startHourUtc + 24) % 24 || 24;
  return entry.weekdays.flatMap((day) =>
    Array.from({ length }, (_, i) => (day * 24 + entry.startHourUtc + i) % HOURS_PER_WEEK),
  );
}

/** The schedule's rules across its windows: at most 10, no two sharing an hour of the week. */
export function scheduleIssues(entries: ScalingWindow[], ctx: z.RefinementCtx, path: PropertyKey[]): void {
  if (entries.length > SCALING_SCHEDULE_MAX_ENTRIES) {
    ctx.addIssue({
      code: 'custom',
      path,
      message: `must hold at most ${SCALING_SCHEDULE_MAX_ENTRIES} entries`,
    });
    return;
  }
  const owner = new Map<number, number>();
  entries.forEach((entry, index) => {
    scalingEntryIssues(entry, ctx, [...path, index]);
    for (const hour of new Set(windowHours(entry))) {
      const other = owner.get(hour);
      if (other !== undefined && other !== index) {
        ctx.addIssue({
          code: 'custom',
          path: [...path, index],
          message: `overlaps entry ${other} (both cover ${describeHour(hour)} UTC)`,
        });
        return;
      }
      owner.set(hour, index);
    }
  });
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const describeHour = (hour: number) =>
  `${WEEKDAYS[Math.floor(hour / 24)]} ${String(hour % 24).padStart(2, '0')}:00`;

/** The hour of the week a moment falls in. */
export const hourOfWeek = (ms: number): number => {
  const date = new Date(ms);
  return date.getUTCDay() * 24 + date.getUTCHours();
};

/** The index of the window active at `ms`, or -1. */
export function activeWindowIndex(entries: readonly ScalingWindow[], ms: number): number {
  const hour = hourOfWeek(ms);
  return entries.findIndex((entry) => windowHours(entry).includes(hour));
}

export const ScalingScheduleEntryRequest = z.strictObject(scalingEntryShape);
export type ScalingScheduleEntryRequest = z.infer<typeof ScalingScheduleEntryRequest>;

/** POST scalingSchedule: the whole schedule, replacing what was there. */
export const ScalingScheduleUpdate = z
  .strictObject({ entries: z.array(ScalingScheduleEntryRequest) })
  .superRefine((body, ctx) => scheduleIssues(body.entries, ctx, ['entries']));
export type ScalingScheduleUpdate = z.infer<typeof ScalingScheduleUpdate>;

const sizingAnswer = {
  autoscalingMode: z.enum(AUTOSCALING_MODES).optional(),
  minReplicas: z.number().optional(),
  maxReplicas: z.number().optional(),
  minReplicaMemoryGb: z.number().optional(),
  maxReplicaMemoryGb: z.number().optional(),
  idleScaling: z.boolean().optional(),
  idleTimeoutMinutes: z.number().optional(),
};
export const ScalingScheduleEntry = z.looseObject({
  ...sizingAnswer,
  id: z.string(),
  name: z.string(),
  weekdays: z.array(z.number()),
  startHourUtc: z.number(),
  endHourUtc: z.number(),
  isActiveNow: z.boolean().optional(),
});
export type ScalingScheduleEntry = z.infer<typeof ScalingScheduleEntry>;
export const ScalingSchedule = z.looseObject({
  entries: z.array(ScalingScheduleEntry),
  baseConfig: z.looseObject(sizingAnswer).optional(),
  activeEntryId: z.string().optional(),
});
export type ScalingSchedule = z.infer<typeof ScalingSchedule>;

export const UPGRADE_WINDOW_START_HOURS = [0, 6, 12, 18] as const;
export const UPGRADE_WINDOW_DURATION_HOURS = 6;
export const upgradeWindowShape = {
  weekday: z.number().int().min(0).max(6),
  startHourUtc: z
    .number()
    .int()
    .refine((hour) => (UPGRADE_WINDOW_START_HOURS as readonly number[]).includes(hour), {
      error: `must be one of ${UPGRADE_WINDOW_START_HOURS.join(', ')}`,
    }),
};
/** PUT upgradeWindow: the cloud fixes the duration. */
export const UpgradeWindowUpdate = z.strictObject(upgradeWindowShape);
export type UpgradeWindowUpdate = z.infer<typeof UpgradeWindowUpdate>;
export const UpgradeWindow = z.looseObject({
  weekday: z.number(),
  startHourUtc: z.number(),
  duration: z.number(),
});
export type UpgradeWindow = z.infer<typeof UpgradeWindow>;
