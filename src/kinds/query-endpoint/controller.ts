import { type QueryEndpoint } from './schema.ts';
import type { QueryEndpointBody } from '../../cloud/management-client.ts';
import {
  type OwnedCandidate,
  type Owner,
  type CloudRecords,
  type ExternalClient,
  type Observed,
} from '../../managed/index.ts';
import { deleteUntilGone, ignoreNotFound } from '../shared/cloud-calls.ts';
import { diffQueryEndpoint, queryEndpointBody, queryEndpointStatus, withReferencedKeys } from './mapping.ts';
import { ServiceScopedClient } from '../shared/service-reference.ts';
import { connectionOf, type KindController } from '../shared/sluice-kind.ts';

/** The QueryEndpoint controller: its cloud client, loaded by the registry only when the kind runs. */
export const queryEndpointController: KindController<QueryEndpoint, QueryEndpointBody> = {
  connect: (_resource, context) => connectionOf(new QueryEndpointClient(context)),
};

/** The service's query endpoint: one per service, written by an idempotent upsert of the whole configuration. */
class QueryEndpointClient
  extends ServiceScopedClient
  implements ExternalClient<QueryEndpoint, QueryEndpointBody>, CloudRecords<QueryEndpoint>
{
  /** Nothing to find: the upsert is idempotent, so a create lost in a crash is simply sent again. */
  findCreated(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }

  /** Under a service this object's cluster owns: its one query endpoint, if it has one. */
  findOwned(_resource: QueryEndpoint, owner: Owner): Promise<OwnedCandidate[]> {
    return this.recordedChildren(
      owner,
      async () => {
        const endpoint = await ignoreNotFound(this.management.getQueryEndpoint(this.serviceId));
        return endpoint ? [endpoint] : [];
      },
      () => true,
    );
  }

  async observe(_resource: QueryEndpoint): Promise<Observed<QueryEndpoint, QueryEndpointBody>> {
    const endpoint = await ignoreNotFound(this.management.getQueryEndpoint(this.serviceId));
    if (!endpoint) return { exists: false };
    // Whatever differs, the fix is the same: the whole configuration, sent once.
    return {
      exists: true,
      observed: { ...endpoint },
      diff: (spec: QueryEndpoint['spec']) => {
        const desired = this.desired(spec);
        return {
          differences: diffQueryEndpoint(desired, endpoint),
          plan: queryEndpointBody(desired),
          available: true,
        };
      },
      status: queryEndpointStatus(endpoint),
    };
  }

  async create(resource: QueryEndpoint) {
    return { externalId: (await this.upsert(queryEndpointBody(this.desired(resource.spec)))).id };
  }

  /** One POST of the whole spec corrects any difference: the cloud replaces the configuration. */
  async update(_resource: QueryEndpoint, _id: string, observation: { plan: QueryEndpointBody }) {
    await this.upsert(observation.plan);
  }

  delete(): Promise<'gone' | 'pending'> {
    return deleteUntilGone(
      () => this.management.getQueryEndpoint(this.serviceId),
      () => this.management.deleteQueryEndpoint(this.serviceId),
    );
  }

  /**
   * The spec with the keys of the ApiKey objects it names, resolved by the reconciler: during a rotation's
   * grace period the previous key too, so a caller that has not switched yet is still let in.
   */
  private desired(spec: QueryEndpoint['spec']): QueryEndpoint['spec'] {
    const referenced = (this.context.references.apiKeys ?? []).flatMap(({ id, object }) => {
      const previous = object?.status?.previousKeyId;
      return typeof previous === 'string' ? [id, previous] : [id];
    });
    return withReferencedKeys(spec, referenced);
  }

  private upsert(body: QueryEndpointBody) {
    return this.management.upsertQueryEndpoint(this.serviceId, body);
  }
}
