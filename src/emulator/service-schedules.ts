/**
 * A service's life on the emulator's clock: the backups its configuration takes, and the scaling schedule's
 * entries coming and going. Both are derived when asked (no timers): backups from the creation time and the
 * configuration, the schedule applied at the start of every management request, so moving the clock moves both.
 */
import { createHash } from 'node:crypto';
import {
  activeWindowIndex,
  BACKUP_DEFAULTS,
  type Backup,
  type ScalingScheduleEntryRequest,
} from '../cloud/schemas/lifecycle.ts';
import type { EmulatorContext } from './context.ts';
import { ApiError } from './errors.ts';
import type {
  BackupConfigurationRecord,
  OrganizationFeatures,
  ScheduledSizing,
  ServiceRecord,
} from './store.ts';
import { DEFAULT_FEATURES } from './store.ts';

const HOUR_MS = 3_600_000;
/** How long a backup takes: it is `in_progress` until then. */
export const BACKUP_DURATION_MS = 60_000;

export function backupConfigurationOf(service: ServiceRecord): BackupConfigurationRecord {
  return service.backupConfiguration ?? { ...BACKUP_DEFAULTS };
}

/** The backups the service has at `now`, newest first. */
export function backupsOf(service: ServiceRecord, now: number): Backup[] {
  const config = backupConfigurationOf(service);
  const created = Date.parse(service.createdAt);
  const keepFrom = now - config.backupRetentionPeriodInHours * HOUR_MS;
  // One backup when the service is created, then one per period (or daily at the start time).
  const times = [created];
  const period = (config.backupStartTime ? 24 : config.backupPeriodInHours) * HOUR_MS;
  let next = config.backupStartTime ? dailyAfter(created, config.backupStartTime) : created + period;
  // Only the times retention keeps need enumerating.
  if (next < keepFrom) next += Math.floor((keepFrom - next) / period) * period;
  for (; next <= now; next += period) times.push(next);
  const backups = times
    .filter((time) => time <= now)
    .reverse()
    .map((time) => backupAt(service, time, now));
  // Retention never removes the newest backup.
  return backups.filter((backup, index) => index === 0 || Date.parse(backup.startedAt) >= keepFrom);
}

/** Any service's backup by id (a restore names only the backup). */
export function findBackup(
  ctx: EmulatorContext,
  backupId: string,
  now: number,
): { service: ServiceRecord; backup: Backup } | undefined {
  const id = backupId.toLowerCase();
  for (const service of ctx.store.services.values()) {
    const backup = backupsOf(service, now).find((b) => b.id === id);
    if (backup) return { service, backup };
  }
  return undefined;
}

function dailyAfter(from: number, startTime: string): number {
  const [hours, minutes] = startTime.split(':').map(Number) as [number, number];
  const day = new Date(from);
  const at = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), hours, minutes);
  return at > from ? at : at + 24 * HOUR_MS;
}

function backupAt(service: ServiceRecord, time: number, now: number): Backup {
  const hex = createHash('sha256').update(`${service.id}/${time}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  const done = time + BACKUP_DURATION_MS <= now;
  const startedAt = new Date(time).toISOString();
  return {
    id,
    status: done ? 'done' : 'in_progress',
    serviceId: service.id,
    startedAt,
    finishedAt: done ? new Date(time + BACKUP_DURATION_MS).toISOString() : null,
    sizeInBytes: (parseInt(hex.slice(0, 6), 16) + 1) * 1024,
    durationInSeconds: BACKUP_DURATION_MS / 1000,
    type: 'full',
    backupName: `backup-${startedAt.replace(/[:.]/g, '-')}`,
  };
}

export function featuresOf(ctx: EmulatorContext): OrganizationFeatures {
  return ctx.store.organization.features ?? DEFAULT_FEATURES;
}

/** 403 in the real API's words when the organization lacks the feature. */
export function requireFeature(ctx: EmulatorContext, feature: keyof OrganizationFeatures): void {
  if (featuresOf(ctx)[feature]) return;
  const entitlement =
    feature === 'scheduledScaling' ? 'canUseScheduledAutoscaling' : 'canUseScheduledUpgrades';
  throw new ApiError(403, `the organization is not allowed to use this feature (${entitlement})`);
}

export function sizingOf(service: ServiceRecord): ScheduledSizing {
  return {
    autoscalingMode: service.autoscalingMode,
    numReplicas: service.numReplicas,
    minReplicas: service.minReplicas,
    maxReplicas: service.maxReplicas,
    minReplicaMemoryGb: service.minReplicaMemoryGb,
    maxReplicaMemoryGb: service.maxReplicaMemoryGb,
    idleScaling: service.idleScaling,
    idleTimeoutMinutes: service.idleTimeoutMinutes,
  };
}

/** The base sizing with what an entry sets over it (an entry's omitted fields keep the base value). */
function entrySizing(base: ScheduledSizing, entry: ScalingScheduleEntryRequest): ScheduledSizing {
  const horizontal = entry.autoscalingMode === 'horizontal';
  const sizing: ScheduledSizing = {
    ...base,
    autoscalingMode: entry.autoscalingMode ?? 'vertical',
    minReplicaMemoryGb: entry.minReplicaMemoryGb ?? base.minReplicaMemoryGb,
    maxReplicaMemoryGb: entry.maxReplicaMemoryGb ?? base.maxReplicaMemoryGb,
    idleScaling: entry.idleScaling ?? base.idleScaling,
    idleTimeoutMinutes: entry.idleTimeoutMinutes ?? base.idleTimeoutMinutes,
  };
  if (horizontal) {
    sizing.minReplicas = entry.minReplicas ?? base.minReplicas ?? base.numReplicas;
    sizing.maxReplicas = entry.maxReplicas ?? base.maxReplicas ?? base.numReplicas;
  } else {
    sizing.numReplicas = entry.minReplicas ?? base.numReplicas;
    delete sizing.minReplicas;
    delete sizing.maxReplicas;
  }
  return sizing;
}

function applySizing(service: ServiceRecord, sizing: ScheduledSizing): void {
  Object.assign(service, sizing);
  if (service.autoscalingMode !== 'horizontal') {
    delete service.minReplicas;
    delete service.maxReplicas;
  }
  service.minTotalMemoryGb = service.minReplicaMemoryGb * service.numReplicas;
  service.maxTotalMemoryGb = service.maxReplicaMemoryGb * service.numReplicas;
}

/**
 * Brings every scheduled service to the entry active at `now`: entering an entry from the base keeps the base
 * aside; leaving every entry puts it back. Nothing changes between edges, so a resize inside an entry stays.
 */
export function settleSchedules(ctx: EmulatorContext, now: number): void {
  for (const service of ctx.store.services.values()) {
    const schedule = service.scalingSchedule;
    if (!schedule) continue;
    const index = activeWindowIndex(schedule.entries, now);
    const active = index >= 0 ? schedule.entries[index] : undefined;
    if (active?.id === schedule.activeEntryId) continue;
    if (schedule.activeEntryId === undefined) schedule.base = sizingOf(service);
    const base = schedule.base ?? sizingOf(service);
    applySizing(service, active ? entrySizing(base, active) : base);
    schedule.activeEntryId = active?.id;
    if (!active) delete schedule.base;
    ctx.changed();
  }
}

/** The schedule as the API answers it. */
export function scheduleView(service: ServiceRecord) {
  const schedule = service.scalingSchedule;
  const entries = schedule?.entries ?? [];
  const base = schedule?.base ?? sizingOf(service);
  return {
    entries: entries.map((entry) => ({ ...entry, isActiveNow: entry.id === schedule?.activeEntryId })),
    baseConfig: {
      autoscalingMode: base.autoscalingMode ?? 'vertical',
      minReplicas: base.minReplicas ?? base.numReplicas,
      maxReplicas: base.maxReplicas ?? base.numReplicas,
      minReplicaMemoryGb: base.minReplicaMemoryGb,
      maxReplicaMemoryGb: base.maxReplicaMemoryGb,
      idleScaling: base.idleScaling,
      idleTimeoutMinutes: base.idleTimeoutMinutes,
    },
    ...(schedule?.activeEntryId ? { activeEntryId: schedule.activeEntryId } : {}),
  };
}
