import { type Pipe, type PipeStatus } from './schema.ts';
import { PIPE_REASON } from './reasons.ts';
import type { Pipe as CloudPipe } from '../../cloud/schemas/pipe.ts';
import {
  ReconcileError,
  SENSITIVE,
  type OwnedCandidate,
  type Owner,
  type ConnectContext,
  type LostCreate,
  type CloudRecords,
  type CreatePreparation,
  type ExternalClient,
  type Observed,
} from '../../managed/index.ts';
import { RETRY_DELAYS } from '../../base/retry-delays.ts';
import { isCredentialField, withoutUrlCredentials } from '../../base/credential-fields.ts';
import type { CloudConnection } from '../../cloud-access/connection.ts';
import { createdSince, deleteUntilGone, ignoreNotFound, listedSince } from '../shared/cloud-calls.ts';
import {
  diffPipe,
  kafkaEndpointIds,
  pipeAsSpec,
  pipeAvailability,
  pipeCreateBody,
  extraSettingKeys,
  setSettings,
  sourceKindOf,
  unrotatableChanges,
  type PipePlan,
} from './mapping.ts';
import { endpointStatusOf } from '../reverse-private-endpoint/mapping.ts';
import { ServiceGate, ServiceNotRunning, ServiceScopedClient } from '../shared/service-reference.ts';
import { connectionOf, type KindController } from '../shared/sluice-kind.ts';
import { REASON } from '../../base/reasons.ts';

/** The Pipe controller: its cloud client, loaded by the registry only when the kind runs. */
export const pipeController: KindController<Pipe, PipePlan> = {
  connect: (_resource, context) => connectionOf(new PipeClient(context)),
};

class PipeClient
  extends ServiceScopedClient
  implements ExternalClient<Pipe, PipePlan>, CloudRecords<Pipe>, CreatePreparation<Pipe>
{
  private readonly service: ServiceGate;

  constructor(context: ConnectContext<CloudConnection>) {
    super(context);
    this.service = new ServiceGate(context.cloud.management, this.serviceReference, context.cloud);
  }

  /**
   * Pipes carry no tags: after a crash, the pipe is the one with this name and destination that the cloud
   * created after the intent was recorded (as its clock dates it) and no other Pipe holds, in a service this
   * cluster records. Without an intent nothing is adopted: a look-alike may be someone else's pipe, and
   * adopting it would later delete it.
   */
  async findCreated(resource: Pipe, lost: LostCreate | undefined): Promise<string | undefined> {
    if (!lost || !(await this.serviceIsOurs())) return undefined;
    const { snapshots, freshnessMs } = this.context.cloud;
    const pipes = await snapshots.pipes(this.serviceId).all(listedSince(lost, freshnessMs));
    return createdSince(pipes, lost.intent, (pipe) => isPipeFor(resource, pipe), this.context.claimedBy);
  }

  /** Under a service this object's cluster owns: the pipe of the same name and destination. */
  findOwned(resource: Pipe, owner: Owner): Promise<OwnedCandidate[]> {
    const { snapshots, freshnessMs } = this.context.cloud;
    return this.recordedChildren(
      owner,
      () => snapshots.pipes(this.serviceId).all(freshnessMs),
      (pipe) => isPipeFor(resource, pipe),
    );
  }

  async ensureCreatable(): Promise<ServiceNotRunning | undefined> {
    const foreign = this.referencedEndpoints.find(
      (endpoint) => endpoint.object?.status?.serviceId !== this.serviceId,
    );
    if (foreign) {
      // The cloud reaches a source only through an endpoint of the pipe's own service.
      throw ReconcileError.terminal(
        REASON.InvalidReference,
        `ReversePrivateEndpoint ${foreign.object?.metadata.name} belongs to service ${String(foreign.object?.status?.serviceId)}, not to this pipe's service ${this.serviceId}`,
        RETRY_DELAYS.userAction,
      );
    }
    return this.service.ensureRunning();
  }

  async observe(resource: Pipe, id: string): Promise<Observed<Pipe, PipePlan>> {
    const pipe = await this.read(id);
    if (!pipe) return { exists: false };
    const { secrets } = this.context;
    const stuck = unrotatableChanges(resource.spec, secrets.rotated);
    if (stuck.length > 0) {
      // Not recorded as sent (the digests stay), so this keeps saying so until the values or the Pipe change.
      throw ReconcileError.terminal(
        PIPE_REASON.CannotRotate,
        `${stuck.join(', ')}: the Secret changed, but the cloud cannot change a connection string in place; restore the Secret or create a new Pipe`,
        RETRY_DELAYS.userAction,
      );
    }
    const recordedExtraKeys = resource.status?.extraSettingKeys ?? [];
    const endpoints = await this.reversePrivateEndpoints(resource);
    const notReady = endpoints.find((endpoint) => endpoint.status !== 'Ready');
    return {
      exists: true,
      observed: pipeAsSpec(pipe),
      diff: (spec: Pipe['spec']) => {
        const plan = diffPipe(
          spec,
          pipe,
          secrets.rotated,
          (field) => secrets.values(field),
          recordedExtraKeys,
        );
        const availability = pipeAvailability(spec, pipe.state);
        return {
          differences: plan.differences,
          plan,
          ...(availability.available && notReady
            ? {
                available: false,
                waitingFor: `reverse private endpoint ${notReady.id} is ${notReady.status ?? 'unknown'}`,
              }
            : availability),
        };
      },
      status: statusOf(resource, pipe, endpoints, recordedExtraKeys),
    };
  }

  async create(resource: Pipe) {
    const { secrets } = this.context;
    const body = pipeCreateBody(
      resource.spec,
      (field) => secrets.values(field),
      this.referencedEndpoints.map((endpoint) => endpoint.id),
    );
    const pipe = await this.service.call(() => this.management.createPipe(this.serviceId, body));
    return pipe instanceof ServiceNotRunning ? pipe : { externalId: pipe.id };
  }

  /**
   * PATCH, then PUT settings, then the state command: each only when the plan has it, and none after one
   * that found the service not running (that wait is returned). Returns the state the last answer showed:
   * a stop is `Stopping` at once.
   */
  async update(_resource: Pipe, id: string, observation: { plan: PipePlan }) {
    const { patch, settings, command } = observation.plan;
    let answer: CloudPipe | undefined;
    if (patch) {
      const patched = await this.service.call(() => this.management.updatePipe(this.serviceId, id, patch));
      if (patched instanceof ServiceNotRunning) return patched;
      answer = patched;
    }
    if (settings) {
      const put = await this.service.call(() =>
        this.management.putPipeSettings(this.serviceId, id, settings),
      );
      if (put instanceof ServiceNotRunning) return put;
    }
    if (command) {
      const changed = await this.service.call(() =>
        this.management.changePipeState(this.serviceId, id, command),
      );
      if (changed instanceof ServiceNotRunning) return changed;
      answer = changed;
    }
    return answer?.state === undefined ? {} : { state: answer.state };
  }

  delete(_resource: Pipe, id: string): Promise<'gone' | 'pending'> {
    return deleteUntilGone(
      () => this.read(id),
      () => this.deletePipe(id),
    );
  }

  /** The pipe from its service's pipes list, as fresh as this reconcile needs; undefined when gone. */
  private read(id: string): Promise<CloudPipe | undefined> {
    const { snapshots, freshnessMs } = this.context.cloud;
    return snapshots
      .pipes(this.serviceId)
      .read(
        id,
        freshnessMs,
        () => ignoreNotFound(this.management.getPipe(this.serviceId, id)),
        this.management,
      );
  }

  private async deletePipe(id: string): Promise<void> {
    const deleted = await this.service.call(() => this.management.deletePipe(this.serviceId, id));
    if (deleted instanceof ServiceNotRunning && deleted.state === 'stopped') {
      // The cloud refuses (424) while the service is stopped: keep the finalizer and say what unblocks it.
      throw ReconcileError.terminal(
        PIPE_REASON.DeleteBlocked,
        `cannot delete pipe ${id}: ${this.service.label} is stopped; start the service or set deletionPolicy: Orphan`,
        RETRY_DELAYS.deleteBlocked,
      );
    }
    // Otherwise the service is being woken: the next poll deletes.
  }

  /** The ReversePrivateEndpoint objects the kafka source references, resolved (and Ready) by the reconciler. */
  private get referencedEndpoints() {
    return this.context.references.reversePrivateEndpoints ?? [];
  }

  /**
   * The kafka source's endpoints as the cloud reports them: those named by id read with a GET of the
   * endpoint (`getReversePrivateEndpoint`), those referenced from their objects' status (already observed,
   * so no call is spent on them).
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
                ignoreNotFound(this.management.getReversePrivateEndpoint(this.serviceId, endpointId)),
              );
        return { id: endpointId, status: 'NotFound', ...endpointStatusOf(endpoint ?? {}) };
      }),
    );
  }
}

/** A pipe's natural key within its service: its name and destination table. */
function isPipeFor(resource: Pipe, pipe: CloudPipe): boolean {
  const { name, destination } = resource.spec;
  const observed = pipe.destination as { database?: string; table?: string };
  return (
    pipe.name === name && observed.database === destination.database && observed.table === destination.table
  );
}

function statusOf(
  resource: Pipe,
  pipe: CloudPipe,
  endpoints: NonNullable<PipeStatus['reversePrivateEndpoints']>,
  recordedExtraKeys: readonly string[],
): Record<string, unknown> {
  const observedSettings = pipe.settings as Record<string, unknown> | undefined;
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
    ...shownSettings(observedSettings),
    extraSettingKeys: extraSettingKeys(resource.spec, recordedExtraKeys, observedSettings),
    ...(endpoints.length > 0 ? { reversePrivateEndpoints: endpoints } : {}),
  };
}

/**
 * The settings status shows: a setting named like a credential (`sasl_password`) only as set, never its value,
 * nor a URL's user and password.
 */
function shownSettings(observed: Record<string, unknown> | undefined) {
  const { settings, extraSettings } = setSettings(observed);
  const shown = Object.entries(extraSettings).map(([key, value]) => [
    key,
    isCredentialField(key)
      ? SENSITIVE
      : typeof value === 'string'
        ? withoutUrlCredentials(value, SENSITIVE)
        : value,
  ]);
  return { settings, extraSettings: Object.fromEntries(shown) as Record<string, unknown> };
}
