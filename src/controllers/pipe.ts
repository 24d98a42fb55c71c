import { GROUP, VERSION } from '../api/common.ts';
import { PipeSpec, PipeStatus, type Pipe } from '../api/pipe.ts';
import type { Pipe as CloudPipe } from '../cloud/schemas/pipe.ts';
import { ReconcileError } from '../runtime/managed/errors.ts';
import type { ConnectContext, ExternalClient, Observation } from '../runtime/managed/types.ts';
import type { CloudConnection } from '../operator/cloud-connection.ts';
import { createdSince, deleteUntilGone, ignoreNotFound } from './cloud-calls.ts';
import {
  diffPipe,
  kafkaEndpointIds,
  pipeAvailability,
  pipeCreateBody,
  pipeSecretUses,
  setSettings,
  sourceKindOf,
  unrotatableChanges,
  type PipePlan,
} from './pipe-diff.ts';
import { reversePrivateEndpointReferences } from './reverse-private-endpoint.ts';
import { endpointStatusOf } from './reverse-private-endpoint-diff.ts';
import {
  SERVICE_COLUMN,
  serviceReference,
  ServiceGate,
  ServiceNotRunning,
  ServiceScopedClient,
} from './service-reference.ts';
import type { SluiceKind } from './sluice-kind.ts';

/** A DELETE the cloud refuses while the service is stopped is the user's to unblock; retry calmly. */
const DELETE_BLOCKED_RETRY_MS = 30_000;
/** What stays wrong until the user acts (a connection string, an endpoint of another service): look seldom. */
const USER_ACTION_RETRY_MS = 60_000;

export const pipeKind: SluiceKind<Pipe, PipePlan> = {
  kind: 'Pipe',
  group: GROUP,
  version: VERSION,
  plural: 'pipes',
  singular: 'pipe',
  shortNames: [],
  description: 'A data-ingestion pipe into a table of a cloud database service, managed by sluice.',
  spec: PipeSpec,
  status: PipeStatus,
  printerColumns: [
    SERVICE_COLUMN,
    { name: 'Source', type: 'string', jsonPath: '.status.source' },
    { name: 'State', type: 'string', jsonPath: '.status.state' },
  ],
  defaultDeletionPolicy: 'Delete',
  references: [
    serviceReference<Pipe>(),
    reversePrivateEndpointReferences<Pipe>(
      'reversePrivateEndpoints',
      (pipe) => pipe.spec.source.kafka?.reversePrivateEndpointRefs?.map((ref) => ref.name) ?? [],
    ),
  ],
  secretReferences: (resource) => pipeSecretUses(resource.spec),
  connect: (_resource, context) => new PipeClient(context),
};

class PipeClient extends ServiceScopedClient implements ExternalClient<Pipe, PipePlan> {
  private readonly service: ServiceGate;

  constructor(context: ConnectContext<CloudConnection>) {
    super(context);
    this.service = new ServiceGate(
      context.cloud.management,
      this.serviceReference,
      context.cloud.priority,
      context.cloud,
    );
  }

  /**
   * Pipes carry no tags: after a crash, the pipe is the one with this name and destination that the cloud
   * created after the intent was recorded (as its clock dates it) and no other Pipe holds. Without an intent nothing is adopted: a look-alike may be
   * someone else's pipe, and adopting it would later delete it.
   */
  async findCreated(resource: Pipe, intent: Date | undefined): Promise<string | undefined> {
    if (!intent) return undefined;
    const { name, destination } = resource.spec;
    const pipes = await this.management.listPipes(this.serviceId, this.calls);
    const matches = (pipe: CloudPipe) => {
      const observed = pipe.destination as { database?: string; table?: string };
      return (
        pipe.name === name &&
        observed.database === destination.database &&
        observed.table === destination.table
      );
    };
    return createdSince(pipes, intent, matches, this.context.claimedBy);
  }

  async prepareCreate(): Promise<void> {
    const foreign = this.referencedEndpoints.find(
      (endpoint) => endpoint.object?.status?.serviceId !== this.serviceId,
    );
    if (foreign) {
      // The cloud reaches a source only through an endpoint of the pipe's own service.
      throw new ReconcileError(
        'InvalidReference',
        `ReversePrivateEndpoint ${foreign.object?.metadata.name} belongs to service ${String(foreign.object?.status?.serviceId)}, not to this pipe's service ${this.serviceId}`,
        USER_ACTION_RETRY_MS,
      );
    }
    await this.service.ensureRunning();
  }

  async observe(resource: Pipe, id: string): Promise<Observation<PipePlan>> {
    const { snapshots, freshnessMs } = this.context.cloud;
    const pipe = await snapshots
      .pipes(this.serviceId)
      .read(id, freshnessMs, () => ignoreNotFound(this.management.getPipe(this.serviceId, id, this.calls)));
    if (!pipe) return { exists: false };
    const { secrets } = this.context;
    const stuck = unrotatableChanges(resource.spec, secrets.rotated);
    if (stuck.length > 0) {
      // Not recorded as sent (the digests stay), so this keeps saying so until the values or the Pipe change.
      throw new ReconcileError(
        'CannotRotate',
        `${stuck.join(', ')}: the Secret changed, but the cloud cannot change a connection string in place; restore the Secret or create a new Pipe`,
        USER_ACTION_RETRY_MS,
      );
    }
    const plan = diffPipe(resource.spec, pipe, secrets.rotated, (field) => secrets.values(field));
    const endpoints = await this.reversePrivateEndpoints(resource);
    const notReady = endpoints.find((endpoint) => endpoint.status !== 'Ready');
    const availability = pipeAvailability(resource.spec, pipe.state);
    return {
      exists: true,
      plan,
      differences: plan.differences,
      ...(availability.available && notReady
        ? {
            available: false,
            waitingFor: `reverse private endpoint ${notReady.id} is ${notReady.status ?? 'unknown'}`,
          }
        : availability),
      status: statusOf(resource, pipe, endpoints),
    };
  }

  async create(resource: Pipe) {
    const { secrets } = this.context;
    const body = pipeCreateBody(
      resource.spec,
      (field) => secrets.values(field),
      this.referencedEndpoints.map((endpoint) => endpoint.id),
    );
    const pipe = await this.service.call(() =>
      this.management.createPipe(this.serviceId, body, { priority: 'user' }),
    );
    return { externalId: pipe.id };
  }

  /** PATCH, then PUT settings, then the state command: each only when the plan has it. */
  async update(_resource: Pipe, id: string, observation: { plan: PipePlan }): Promise<void> {
    const { patch, settings, command } = observation.plan;
    const user = { priority: 'user' as const };
    if (patch) await this.service.call(() => this.management.updatePipe(this.serviceId, id, patch, user));
    if (settings) {
      await this.service.call(() => this.management.putPipeSettings(this.serviceId, id, settings, user));
    }
    if (command) {
      await this.service.call(() => this.management.changePipeState(this.serviceId, id, command, user));
    }
  }

  delete(_resource: Pipe, id: string): Promise<'gone' | 'pending'> {
    return deleteUntilGone(
      () => this.management.getPipe(this.serviceId, id, this.calls),
      () => this.deletePipe(id),
    );
  }

  private async deletePipe(id: string): Promise<void> {
    try {
      await this.service.call(() => this.management.deletePipe(this.serviceId, id, { priority: 'user' }));
    } catch (error) {
      if (!(error instanceof ServiceNotRunning)) throw error;
      if (error.state === 'stopped') {
        // The cloud refuses (424) while the service is stopped: keep the finalizer and say what unblocks it.
        throw new ReconcileError(
          'DeleteBlocked',
          `cannot delete pipe ${id}: ${this.service.label} is stopped; start the service or set deletionPolicy: Orphan`,
          DELETE_BLOCKED_RETRY_MS,
        );
      }
      // Otherwise the service is being woken: the next poll deletes.
    }
  }

  /** The ReversePrivateEndpoint objects the kafka source references, resolved (and Ready) by the reconciler. */
  private get referencedEndpoints() {
    return this.context.references.reversePrivateEndpoints ?? [];
  }

  /**
   * The kafka source's endpoints as the cloud reports them: those named by id with contract operation 8,
   * those referenced from their objects' status (already observed, so no call is spent on them).
   */
  private async reversePrivateEndpoints(resource: Pipe) {
    const referenced = new Map(this.referencedEndpoints.map((endpoint) => [endpoint.id, endpoint.object]));
    return Promise.all(
      kafkaEndpointIds(resource.spec, [...referenced.keys()]).map(async (endpointId) => {
        const endpoint = referenced.has(endpointId)
          ? referenced.get(endpointId)?.status
          : await this.context.cloud.snapshots
              .reversePrivateEndpoints(this.serviceId)
              .read(endpointId, this.context.cloud.freshnessMs, () =>
                ignoreNotFound(
                  this.management.getReversePrivateEndpoint(this.serviceId, endpointId, this.calls),
                ),
              );
        return { id: endpointId, status: 'NotFound', ...endpointStatusOf(endpoint ?? {}) };
      }),
    );
  }
}

function statusOf(
  resource: Pipe,
  pipe: CloudPipe,
  endpoints: NonNullable<PipeStatus['reversePrivateEndpoints']>,
): Record<string, unknown> {
  const scaling = pipe.scaling as Record<string, unknown> | undefined;
  return {
    source: sourceKindOf(resource.spec),
    state: pipe.state,
    ...(scaling
      ? {
          scaling: Object.fromEntries(
            ['replicas', 'concurrency', 'replicaCpuMillicores', 'replicaMemoryGb']
              .filter((key) => scaling[key] !== undefined)
              .map((key) => [key, scaling[key]]),
          ),
        }
      : {}),
    settings: setSettings(pipe.settings as Record<string, unknown> | undefined),
    ...(endpoints.length > 0 ? { reversePrivateEndpoints: endpoints } : {}),
  };
}
