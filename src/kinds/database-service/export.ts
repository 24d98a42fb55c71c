import { ApiError, isNotFound } from '../../cloud/errors.ts';
import type { ManagementClient } from '../../cloud/management-client.ts';
import type { ServiceExport } from '../shared/export-step.ts';
import { exportService, type ExportedSurroundings } from './mapping.ts';

/**
 * A service's manifest, first among the manifests of what lives in it (they name it by reference). Its
 * backup configuration, scaling schedule and upgrade window are read only for a service to export.
 */
export const databaseServiceExport: ServiceExport<{ id: string; around?: ExportedSurroundings }> = {
  scope: 'service',
  position: 0,
  read: (walk, service) =>
    walk.wants('DatabaseService') && !walk.managedBy('DatabaseService', service.id)
      ? readSurroundings(walk.management, service.id, walk.call).then((around) => [
          { id: service.id, around },
        ])
      : undefined,
  emit: (walk, service, [read]) => {
    walk.named('DatabaseService', service.name, service.id, 'service', () =>
      exportService(service, read?.around),
    );
  },
};

/**
 * A service's backup configuration, scaling schedule and upgrade window. What the service does not have (404)
 * or the organization cannot use (403: no scheduled scaling or upgrades) is absent: nothing for a spec to say.
 */
async function readSurroundings(
  management: ManagementClient,
  serviceId: string,
  call: <T>(request: Promise<T>) => Promise<T>,
): Promise<ExportedSurroundings> {
  const absent = (error: unknown) => {
    if (isNotFound(error) || (error instanceof ApiError && error.status === 403)) return undefined;
    throw error;
  };
  const [backupConfiguration, scalingSchedule, upgradeWindow] = await Promise.all([
    call(management.getBackupConfiguration(serviceId)).catch(absent),
    call(management.getScalingSchedule(serviceId)).catch(absent),
    call(management.getUpgradeWindow(serviceId)).catch(absent),
  ]);
  return {
    ...(backupConfiguration ? { backupConfiguration } : {}),
    ...(scalingSchedule ? { scalingSchedule } : {}),
    ...(upgradeWindow ? { upgradeWindow } : {}),
  };
}
