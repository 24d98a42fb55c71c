import { timing } from '../../base/timings.ts';
import { ApiError } from '../../cloud/errors.ts';
import type { ManagementClient } from '../../cloud/management-client.ts';
import {
  Waiting,
  onlyReference,
  parseOwnerRecord,
  type ResolvedReference,
  type ConnectContext,
  type OwnedCandidate,
  type Owner,
} from '../../managed/index.ts';
import type { CloudConnection } from '../../cloud-access/connection.ts';
import { ignoreNotFound } from './cloud-calls.ts';
import { ConnectedClient } from './connected-client.ts';
import { OWNER_TAG } from './service-tags.ts';
import { REASON } from '../../base/reasons.ts';

/** A wait on the service, with the state it was found in, so a caller can tell stopped from waking. */
export class ServiceNotRunning extends Waiting {
  constructor(
    readonly state: string,
    message: string,
  ) {
    super(REASON.WaitingForReference, message);
  }
}

/**
 * Keeps calls that need a running service honest: a service that is idle is woken (once: its next state
 * is awaking) and waited for; a stopped one is reported and left alone, because the user stopped it.
 */
export class ServiceGate {
  constructor(
    private readonly management: ManagementClient,
    private readonly service: ResolvedReference,
    /** The key's snapshots, and how old a snapshot this reconcile may read. */
    private readonly observed: Pick<CloudConnection, 'snapshots' | 'freshnessMs'>,
  ) {}

  /** What the condition calls the service: the DatabaseService by name, or the plain id. */
  get label(): string {
    const name = this.service.object?.metadata.name;
    return name ? `DatabaseService ${name}` : `service ${this.service.id}`;
  }

  /** Nothing when the service is running; otherwise wakes an idle one and returns the wait until it runs. */
  async ensureRunning(): Promise<ServiceNotRunning | undefined> {
    if (this.service.object?.status?.state === 'running') return undefined;
    const { snapshots, freshnessMs } = this.observed;
    const service = await snapshots.services.read(
      this.service.id,
      freshnessMs,
      () => this.management.getService(this.service.id),
      this.management,
    );
    const state = service?.state;
    return state === 'running' ? undefined : this.waitFor(state ?? 'unknown');
  }

  /**
   * Runs a call that needs a running service; a 424 is answered as the real API's clients do: the wait
   * is returned in place of the call's answer.
   */
  async call<T>(call: () => Promise<T>): Promise<T | ServiceNotRunning> {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof ApiError && error.isFailedDependency())) throw error;
      const state = /Current state: (\w+)/.exec(error.apiMessage)?.[1] ?? 'not running';
      return this.waitFor(state);
    }
  }

  private async waitFor(state: string): Promise<ServiceNotRunning> {
    if (state === 'idle') {
      await this.management.changeServiceState(this.service.id, 'awake');
      return new ServiceNotRunning(state, `${this.label} was idle and is being woken up`);
    }
    if (state === 'stopped') {
      return new ServiceNotRunning(
        state,
        `${this.label}: service is stopped (sluice never starts a service for its dependants)`,
      );
    }
    return new ServiceNotRunning(state, `${this.label} is ${state}`);
  }
}

/** What the client of every service-scoped kind starts from: its resolved service and the cloud to call. */
export abstract class ServiceScopedClient extends ConnectedClient {
  protected readonly serviceId: string;
  /** The service the reconciler resolved (or waited for) before it connected this client. */
  protected readonly serviceReference: ResolvedReference;

  constructor(context: ConnectContext<CloudConnection>) {
    super(context);
    this.serviceReference = onlyReference(context.references, 'service');
    this.serviceId = this.serviceReference.id;
  }

  protected get management() {
    return this.context.cloud.management;
  }

  /** The owner the cloud records for this object's service (a child has no record of its own). */
  recordedOwner(): Promise<Owner | undefined> {
    return this.serviceOwner(this.context.cloud.freshnessMs);
  }

  /** The owner its plain `serviceId` names: the service's record (a child has none of its own). */
  plainIdOwner(): Promise<Owner | undefined> {
    return this.serviceOwner(Math.max(this.context.cloud.freshnessMs, timing.ownerRecordMaxAgeMs));
  }

  private async serviceOwner(maxAgeMs: number): Promise<Owner | undefined> {
    const service = await this.context.cloud.snapshots.services.read(
      this.serviceId,
      maxAgeMs,
      () => ignoreNotFound(this.management.getService(this.serviceId)),
      this.management,
    );
    return parseOwnerRecord(service?.tags?.find((tag) => tag.key === OWNER_TAG)?.value);
  }

  /**
   * Whether a lost create of this object may have made its child in this service: only in a service this
   * object's cluster records (or one nobody records, as a service named by id may be). A child of the same
   * natural key in another cluster's service is that cluster's, never the lost create's.
   */
  protected async serviceIsOurs(): Promise<boolean> {
    const recorded = await this.recordedOwner();
    return recorded === undefined || recorded.cluster === this.context.owner.cluster;
  }

  /**
   * The children of this object's service that the cloud records for `owner`: children carry no tags, so a
   * child is recorded by its service's owner tag (the service a DatabaseService of the same namespace owns)
   * and its own natural key (`matches`). A service no sluice object owns records nobody: nothing is listed.
   * A service named by id (no DatabaseService) records no children: they are not taken back.
   */
  protected async recordedChildren<T extends { id: string }>(
    owner: Owner,
    list: () => Promise<readonly T[]>,
    matches: (child: T) => boolean,
  ): Promise<OwnedCandidate[]> {
    // Only a service taken back may hold children of an earlier cluster: a service this cluster created has
    // none it did not create itself (with an intent), and a look-alike there is never taken over.
    if (this.serviceReference.object?.status?.adopted !== true) return [];
    const recorded = await this.recordedOwner();
    if (recorded?.namespace !== owner.namespace) return [];
    // The DatabaseService that took the service back was judged this cluster's owner: so are its children.
    const children = (await list()).filter(matches);
    return children.map((child) => ({ id: child.id, owner }));
  }
}
