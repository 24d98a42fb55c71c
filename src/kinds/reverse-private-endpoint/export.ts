import type { ReversePrivateEndpoint } from '../../cloud/schemas/reverse-private-endpoint.ts';
import { byNameThenId, plural, type ServiceExport } from '../shared/export-step.ts';
import { withServiceOf } from '../shared/service-export.ts';
import { exportReversePrivateEndpoint } from './mapping.ts';

/**
 * A service's reverse private endpoints, after the service and before its pipes: a pipe names the endpoints
 * exported before it. Read for an export of pipes too, which look their names up.
 */
export const reversePrivateEndpointExport: ServiceExport<ReversePrivateEndpoint> = {
  scope: 'service',
  position: 1,
  read: (walk, service) =>
    walk.wants('ReversePrivateEndpoint') || walk.wants('Pipe')
      ? walk
          .call(walk.management.listReversePrivateEndpoints(service.id))
          .then((endpoints) => endpoints.sort(byNameThenId((e) => e.description ?? '')))
      : undefined,
  summary: (endpoints) => [plural(endpoints.length, 'reverse private endpoint')],
  emit: (walk, service, endpoints) => {
    for (const endpoint of endpoints) {
      walk.named('ReversePrivateEndpoint', endpoint.description ?? '', endpoint.id, 'endpoint', () =>
        withServiceOf(walk, service.id, exportReversePrivateEndpoint(endpoint)),
      );
    }
  },
};
