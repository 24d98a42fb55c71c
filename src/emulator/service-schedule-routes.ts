/** A service's backup configuration and backups, scaling schedule and upgrade window (extensions). */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  BACKUP_DEFAULTS,
  BackupConfigurationUpdate,
  ScalingScheduleUpdate,
  UPGRADE_WINDOW_DURATION_HOURS,
  UpgradeWindowUpdate,
} from '../cloud/schemas/lifecycle.ts';
import { Uuid } from '../cloud/schemas/common.ts';
import type { App, EmulatorContext } from './context.ts';
import { badRequest, notFound } from './errors.ts';
import {
  management,
  ok,
  requireNotTerminating,
  requireService,
  SERVICE,
  ServiceParams,
} from './route-kit.ts';
import type { ServiceParams as ServiceParamsType } from './route-kit.ts';
import {
  backupConfigurationOf,
  backupsOf,
  requireFeature,
  scheduleView,
  settleSchedules,
  sizingOf,
} from './service-schedules.ts';
import type { ServiceRecord } from './store.ts';

const BackupParams = ServiceParams.extend({ backupId: Uuid });

const serviceOf = (ctx: EmulatorContext, request: { params: unknown }): ServiceRecord =>
  requireService(ctx, (request.params as ServiceParamsType).serviceId);

export function registerServiceScheduleRoutes(app: App, ctx: EmulatorContext): void {
  // The schedule follows the cloud's clock: every management request first sees its entries applied.
  app.addHook('preHandler', async (request) => {
    if (request.routeOptions.config.api === 'management') settleSchedules(ctx, ctx.now());
  });

  app.get(`${SERVICE}/backupConfiguration`, management(ServiceParams), (request) =>
    ok(backupConfigurationOf(serviceOf(ctx, request))),
  );

  app.patch(
    `${SERVICE}/backupConfiguration`,
    { ...management(ServiceParams), schema: { body: BackupConfigurationUpdate } },
    (request) => {
      const service = serviceOf(ctx, request);
      requireNotTerminating(service);
      const next = { ...backupConfigurationOf(service) };
      for (const [field, value] of Object.entries(request.body) as [keyof typeof next, unknown][]) {
        if (value === undefined) continue;
        Object.assign(next, { [field]: value === null ? BACKUP_DEFAULTS[field] : value });
      }
      // A start time means one backup a day: a period set earlier gives way to it.
      if (request.body.backupStartTime) next.backupPeriodInHours = 24;
      else if (next.backupStartTime && next.backupPeriodInHours !== 24) {
        throw badRequest(
          'backupPeriodInHours must be 24 while backupStartTime is set (give backupStartTime: null)',
        );
      }
      service.backupConfiguration = next;
      ctx.changed();
      return ok(next);
    },
  );

  app.get(`${SERVICE}/backups`, management(ServiceParams), (request) =>
    ok(backupsOf(serviceOf(ctx, request), ctx.now())),
  );

  app.get(`${SERVICE}/backups/:backupId`, management(BackupParams), (request) => {
    const service = serviceOf(ctx, request);
    const { backupId } = request.params as z.infer<typeof BackupParams>;
    const backup = backupsOf(service, ctx.now()).find((b) => b.id === backupId.toLowerCase());
    if (!backup) throw notFound(`backup ${backupId} does not exist in service ${service.id}`);
    return ok(backup);
  });

  app.get(`${SERVICE}/scalingSchedule`, management(ServiceParams), (request) => {
    const service = serviceOf(ctx, request);
    requireFeature(ctx, 'scheduledScaling');
    return ok(scheduleView(service));
  });

  app.post(
    `${SERVICE}/scalingSchedule`,
    { ...management(ServiceParams), schema: { body: ScalingScheduleUpdate } },
    (request) => {
      const service = serviceOf(ctx, request);
      requireFeature(ctx, 'scheduledScaling');
      requireNotTerminating(service);
      const base = clearSchedule(service);
      service.scalingSchedule = {
        entries: request.body.entries.map((entry) => ({ ...entry, id: randomUUID() })),
        ...(base ? { base } : {}),
      };
      settleSchedules(ctx, ctx.now());
      ctx.changed();
      return ok(scheduleView(service));
    },
  );

  app.delete(`${SERVICE}/scalingSchedule`, management(ServiceParams), (request) => {
    const service = serviceOf(ctx, request);
    clearSchedule(service);
    delete service.scalingSchedule;
    ctx.changed();
    return ok({});
  });

  app.get(`${SERVICE}/upgradeWindow`, management(ServiceParams), (request) => {
    const service = serviceOf(ctx, request);
    if (!service.upgradeWindow) throw notFound(`service ${service.id} has no upgrade window`);
    return ok(upgradeWindowView(service.upgradeWindow));
  });

  app.put(
    `${SERVICE}/upgradeWindow`,
    { ...management(ServiceParams), schema: { body: UpgradeWindowUpdate } },
    (request) => {
      const service = serviceOf(ctx, request);
      requireFeature(ctx, 'scheduledUpgrades');
      requireNotTerminating(service);
      if (!service.isPrimary) throw badRequest('cannot set upgrade window on a secondary service');
      service.upgradeWindow = { ...request.body };
      ctx.changed();
      return ok(upgradeWindowView(service.upgradeWindow));
    },
  );

  app.delete(`${SERVICE}/upgradeWindow`, management(ServiceParams), (request) => {
    const service = serviceOf(ctx, request);
    delete service.upgradeWindow;
    ctx.changed();
    return ok({});
  });
}

/**
 * Ends the schedule's hold on the service: an active entry's sizing gives way to the base again. Returns the
 * base to keep when an entry was active (the new schedule starts from it).
 */
function clearSchedule(service: ServiceRecord) {
  const schedule = service.scalingSchedule;
  if (!schedule?.activeEntryId || !schedule.base) return undefined;
  Object.assign(service, schedule.base);
  if (service.autoscalingMode !== 'horizontal') {
    delete service.minReplicas;
    delete service.maxReplicas;
  }
  service.minTotalMemoryGb = service.minReplicaMemoryGb * service.numReplicas;
  service.maxTotalMemoryGb = service.maxReplicaMemoryGb * service.numReplicas;
  schedule.activeEntryId = undefined;
  return sizingOf(service);
}

const upgradeWindowView = (window: { weekday: number; startHourUtc: number }) => ({
  ...window,
  duration: UPGRADE_WINDOW_DURATION_HOURS,
});
