import { GROUP, VERSION } from '../api/common.ts';
import { QueryEndpointSpec, QueryEndpointStatus } from '../api/query-endpoint.ts';
import type { QueryEndpoint as CloudQueryEndpoint } from '../cloud/schemas/query-endpoint.ts';
import type { ExternalClient, Observation } from '../runtime/managed/types.ts';
import { deleteUntilGone, ignoreNotFound } from './cloud.ts';
import { diffQueryEndpoint, queryEndpointBody, queryEndpointStatus } from './query-endpoint-diff.ts';
import {
  SERVICE_COLUMN,
  serviceReference,
  ServiceScopedClient,
  type ServiceScoped,
} from './service-reference.ts';
import type { SluiceKind } from './sluice-kind.ts';

export interface QueryEndpoint extends ServiceScoped {
  spec: QueryEndpointSpec;
  status?: QueryEndpointStatus;
}

export const queryEndpointKind: SluiceKind<QueryEndpoint> = {
  kind: 'QueryEndpoint',
  group: GROUP,
  version: VERSION,
  plural: 'queryendpoints',
  singular: 'queryendpoint',
  shortNames: [],
  description:
    "The query endpoint of a cloud database service, managed by sluice: applying one takes over the service's query endpoint.",
  spec: QueryEndpointSpec,
  status: QueryEndpointStatus,
  printerColumns: [SERVICE_COLUMN, { name: 'Roles', type: 'string', jsonPath: '.spec.roles' }],
  defaultDeletionPolicy: 'Delete',
  references: [serviceReference<QueryEndpoint>()],
  // A service has one query endpoint: a second QueryEndpoint for it waits (Conflict) instead of fighting.
  exclusiveOn: 'service',
  connect: (_resource, context) => new QueryEndpointClient(context),
};

/** The service's query endpoint: one per service, written by an idempotent upsert of the whole configuration. */
class QueryEndpointClient extends ServiceScopedClient implements ExternalClient<QueryEndpoint> {
  /** Nothing to find: the upsert is idempotent, so a create lost in a crash is simply sent again. */
  findCreated(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }

  async observe(resource: QueryEndpoint): Promise<Observation<CloudQueryEndpoint>> {
    const endpoint = await ignoreNotFound(this.management.getQueryEndpoint(this.serviceId, this.calls));
    if (!endpoint) return { exists: false };
    return {
      exists: true,
      snapshot: endpoint,
      differences: diffQueryEndpoint(resource.spec, endpoint),
      available: true,
      status: queryEndpointStatus(endpoint),
    };
  }

  async create(resource: QueryEndpoint) {
    return { externalId: (await this.upsert(resource)).id };
  }

  /** One POST of the whole spec corrects any difference: the cloud replaces the configuration. */
  async update(resource: QueryEndpoint): Promise<void> {
    await this.upsert(resource);
  }

  delete(): Promise<'gone' | 'pending'> {
    return deleteUntilGone(
      () => this.management.getQueryEndpoint(this.serviceId, this.calls),
      () => this.management.deleteQueryEndpoint(this.serviceId, { priority: 'user' }),
    );
  }

  private upsert(resource: QueryEndpoint) {
    return this.management.upsertQueryEndpoint(this.serviceId, queryEndpointBody(resource.spec), {
      priority: 'user',
    });
  }
}
