import { type ReversePrivateEndpoint } from './schema.ts';
import { REVERSE_PRIVATE_ENDPOINT_REASON } from './reasons.ts';
import {
  ReconcileError,
  type OwnedCandidate,
  type Owner,
  type LostCreate,
  type CloudRecords,
  type ExternalClient,
  type Observed,
} from '../../managed/index.ts';
import { RETRY_DELAYS } from '../../base/retry-delays.ts';
import { deleteUntilGone, ignoreNotFound } from '../shared/cloud-calls.ts';
import { endpointStatusOf, rpeAvailability, rpeCreateBody, rpeDifferences } from './mapping.ts';
import { ServiceScopedClient } from '../shared/service-reference.ts';
import { connectionOf, type KindController } from '../shared/sluice-kind.ts';
import { REASON } from '../../base/reasons.ts';

/** The ReversePrivateEndpoint controller: its cloud client, loaded by the registry only when the kind runs. */
export const reversePrivateEndpointController: KindController<ReversePrivateEndpoint, undefined> = {
  connect: (_resource, context) => connectionOf(new ReversePrivateEndpointClient(context)),
};

class ReversePrivateEndpointClient
  extends ServiceScopedClient
  implements ExternalClient<ReversePrivateEndpoint, undefined>, CloudRecords<ReversePrivateEndpoint>
{
  /**
   * Endpoints carry no tags and no creation time: after a crash, the endpoint is the service's one with the
   * same description, type and type fields that no other ReversePrivateEndpoint manages, in a service this
   * cluster records. Without an intent nothing is adopted; with several candidates nothing is either, and
   * the user is told how to choose.
   */
  async findCreated(
    resource: ReversePrivateEndpoint,
    lost: LostCreate | undefined,
  ): Promise<string | undefined> {
    if (!lost || !(await this.serviceIsOurs())) return undefined;
    const endpoints = await this.management.listReversePrivateEndpoints(this.serviceId);
    const candidates = endpoints.filter(
      (endpoint) =>
        rpeDifferences(resource.spec, endpoint).length === 0 &&
        endpoint.status !== 'Deleting' &&
        this.context.claimedBy(endpoint.id) === undefined,
    );
    if (candidates.length > 1) {
      throw ReconcileError.terminal(
        REASON.AmbiguousAdoption,
        `a create of this endpoint may have been lost, and ${candidates.length} endpoints of service ${this.serviceId} match it (${candidates.map((e) => e.id).join(', ')}); set the annotation sluice.dev/external-id to the one to adopt`,
        RETRY_DELAYS.userAction,
      );
    }
    return candidates[0]?.id;
  }

  /** Under a service this object's cluster owns: the endpoint with the same description, type and fields. */
  findOwned(resource: ReversePrivateEndpoint, owner: Owner): Promise<OwnedCandidate[]> {
    const { snapshots, freshnessMs } = this.context.cloud;
    return this.recordedChildren(
      owner,
      () => snapshots.reversePrivateEndpoints(this.serviceId).all(freshnessMs),
      (endpoint) => rpeDifferences(resource.spec, endpoint).length === 0 && endpoint.status !== 'Deleting',
    );
  }

  async observe(
    resource: ReversePrivateEndpoint,
    id: string,
  ): Promise<Observed<ReversePrivateEndpoint, undefined>> {
    const endpoint = await this.read(id);
    if (!endpoint) return { exists: false };
    // No field can have a policy (the API changes none); sluice.dev/drift: report still reports them.
    // Usable as the object's own spec asks, whatever the policy leaves to the cloud.
    const availability = rpeAvailability(resource.spec, endpoint);
    return {
      exists: true,
      observed: { ...endpoint },
      diff: (spec: ReversePrivateEndpoint['spec']) => ({
        differences: rpeDifferences(spec, endpoint),
        // No call changes an endpoint: a difference is reported by `update`, never fixed.
        plan: undefined,
        ...availability,
      }),
      status: {
        ...endpointStatusOf(endpoint),
        ...(endpoint.endpointId ? { endpointId: endpoint.endpointId } : {}),
      },
    };
  }

  async create(resource: ReversePrivateEndpoint) {
    const endpoint = await this.management.createReversePrivateEndpoint(
      this.serviceId,
      rpeCreateBody(resource.spec),
    );
    return { externalId: endpoint.id };
  }

  /** Only reached when the cloud endpoint differs from the spec (e.g. one adopted by id): the API cannot fix it. */
  update(
    _resource: ReversePrivateEndpoint,
    id: string,
    observation: { differences: string[] },
  ): Promise<void> {
    throw ReconcileError.terminal(
      REVERSE_PRIVATE_ENDPOINT_REASON.CannotUpdate,
      `endpoint ${id} differs in ${observation.differences.join(', ')}, and the cloud cannot change an endpoint; create a new ReversePrivateEndpoint`,
      RETRY_DELAYS.userAction,
    );
  }

  delete(_resource: ReversePrivateEndpoint, id: string): Promise<'gone' | 'pending'> {
    return deleteUntilGone(
      () => this.read(id),
      () => this.management.deleteReversePrivateEndpoint(this.serviceId, id),
      (endpoint) => endpoint.status === 'Deleting',
    );
  }

  /** The endpoint from its service's endpoints list, as fresh as this reconcile needs; undefined when gone. */
  private read(id: string) {
    const { snapshots, freshnessMs } = this.context.cloud;
    return snapshots
      .reversePrivateEndpoints(this.serviceId)
      .read(
        id,
        freshnessMs,
        () => ignoreNotFound(this.management.getReversePrivateEndpoint(this.serviceId, id)),
        this.management,
      );
  }
}
