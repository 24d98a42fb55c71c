import { isNotFound } from '../../cloud/errors.ts';
import type { QueryEndpoint } from '../../cloud/schemas/query-endpoint.ts';
import type { ServiceExport } from '../shared/export-step.ts';
import { withServiceOf } from '../shared/service-export.ts';
import { exportQueryEndpoint } from './mapping.ts';

/** A service's query endpoint (it has one at most), last among its manifests, named after the service's. */
export const queryEndpointExport: ServiceExport<QueryEndpoint> = {
  scope: 'service',
  position: 3,
  read: (walk, service) =>
    walk.wants('QueryEndpoint')
      ? walk.call(walk.management.getQueryEndpoint(service.id)).then(
          (endpoint) => [endpoint],
          (error: unknown) => {
            if (isNotFound(error)) return [];
            throw error;
          },
        )
      : undefined,
  summary: (endpoints) => (endpoints.length > 0 ? ['a query endpoint'] : []),
  emit: (walk, service, [endpoint]) => {
    if (!endpoint) return;
    const cloudName = walk.nameOf('DatabaseService', service.id) ?? service.name;
    walk.named('QueryEndpoint', cloudName, endpoint.id, 'query-endpoint', () =>
      withServiceOf(walk, service.id, exportQueryEndpoint(endpoint)),
    );
  },
};
