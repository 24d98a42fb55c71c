import type { ExportWalk, Mapped } from './export-step.ts';

/**
 * A service-scoped object's exported spec, naming its service: by reference when the service's manifest is
 * among those exported, else by id (a service left out, or not exported).
 */
export function withServiceOf(walk: ExportWalk, serviceId: string, mapped: Mapped): Mapped {
  const serviceName = walk.nameOf('DatabaseService', serviceId);
  const owner = serviceName ? { serviceRef: { name: serviceName } } : { serviceId };
  return 'spec' in mapped ? { spec: { ...owner, ...mapped.spec } } : mapped;
}
