import { PASSWORD_FIELD, RESTORE_SOURCE, type DatabaseService } from './schema.ts';
import type { Service } from '../../cloud/schemas/service.ts';
import { passwordHashes } from '../../cloud/password-hash.ts';
import {
  externalIdOf,
  ownerRecord,
  parseOwnerRecord,
  type OwnedCandidate,
  type Owner,
  type PlainIdUse,
  type ConnectionDetails,
  type LostCreate,
  type ResolvedReference,
  ReconcileError,
  Waiting,
  type CloudRecords,
  type CreatePreparation,
  type ExternalClient,
  type Observed,
} from '../../managed/index.ts';
import { RETRY_DELAYS } from '../../base/retry-delays.ts';
import { createdSince, ignoreNotFound, listedSince } from '../shared/cloud-calls.ts';
import { ConnectedClient } from '../shared/connected-client.ts';
import { ApiError } from '../../cloud/errors.ts';
import {
  backupPolicyOf,
  observedSchedule,
  latestFinishedBackup,
  restoreMismatch,
  serviceComparison,
  serviceCreateBody,
  type RestorePoint,
  type ServiceDiff,
  type ServiceSurroundings,
} from './mapping.ts';
import { OWNER_TAG, UID_TAG } from '../shared/service-tags.ts';
import { REASON } from '../../base/reasons.ts';

type BackupsStatus = NonNullable<NonNullable<DatabaseService['status']>['backups']>;

/** The password the user keeps in `passwordSecretRef`, and whether the cloud still has to be given it. */
interface OwnedPassword {
  value: string;
  changed: boolean;
}

/** Over the management API: the service, its backups, schedule and upgrade window, and its password. */
export class DatabaseServiceClient
  extends ConnectedClient
  implements
    ExternalClient<DatabaseService, ServiceDiff>,
    CloudRecords<DatabaseService>,
    CreatePreparation<DatabaseService>
{
  /** The backup this reconcile's create restores, settled by `ensureCreatable` before the intent is written. */
  private restorePoint: RestorePoint | undefined;

  /** This object's owner record, the value of its owner tag. */
  private get owner(): string {
    return ownerRecord(this.context.owner);
  }

  /** spec.restore.fromBackupOf, resolved (only before the service exists). */
  private get restoreSource(): ResolvedReference | undefined {
    return this.context.references[RESTORE_SOURCE]?.[0];
  }

  /** The password the user keeps in `passwordSecretRef`, and whether the cloud still has to be given it. */
  private password({ spec }: DatabaseService): OwnedPassword | undefined {
    const { secrets } = this.context;
    const ref = spec.passwordSecretRef;
    const value = ref && secrets.values(PASSWORD_FIELD)?.[ref.key];
    return value === undefined ? undefined : { value, changed: secrets.rotated.has(PASSWORD_FIELD) };
  }

  async ensureCreatable(resource: DatabaseService): Promise<Waiting | undefined> {
    const found = await this.findRestorePoint(resource);
    if (found instanceof Waiting) return found;
    this.restorePoint = found;
    return undefined;
  }

  /** The backup the create restores, settled by `ensureCreatable`: recorded even when the answer is lost. */
  createStatus(): Record<string, unknown> | undefined {
    return this.restorePoint ? { restoredFromBackup: this.restorePoint } : undefined;
  }

  async findCreated(resource: DatabaseService, lost: LostCreate | undefined): Promise<string | undefined> {
    // No intent, no create was ever sent for this object (the intent is written before every create): what
    // carries its owner tag was made by another incarnation of it, and is taken back, not recovered. With
    // one, the service tagged for it (owner, or an earlier version's uid) created after the intent is the
    // lost create's, unless another DatabaseService has taken that service over.
    if (!lost) return undefined;
    const { snapshots, freshnessMs } = this.cloud;
    const services = await snapshots.services.all(listedSince(lost, freshnessMs));
    const owner = this.owner;
    const tagged = (service: Service) =>
      (service.tags ?? []).some(
        (t) =>
          (t.key === OWNER_TAG && t.value === owner) ||
          (t.key === UID_TAG && t.value === resource.metadata.uid),
      );
    return createdSince(services, lost.intent, tagged, this.context.claimedBy);
  }

  /**
   * The services whose owner tag names this object (any cluster), and one an earlier version created for
   * this very object (its uid tag), from the key's services list: one list serves a whole rebuild.
   */
  async findOwned(resource: DatabaseService): Promise<OwnedCandidate[]> {
    const { snapshots, freshnessMs, management } = this.cloud;
    // A key without the management keys says so (CredentialsMissing) before anything is listed.
    if (!management) return [];
    const services = await snapshots.services.all(freshnessMs);
    return services.flatMap((service) => {
      const tags = service.tags ?? [];
      const recorded = parseOwnerRecord(tags.find((t) => t.key === OWNER_TAG)?.value);
      if (recorded) return [{ id: service.id, owner: recorded }];
      const own = tags.some((t) => t.key === UID_TAG && t.value === resource.metadata.uid);
      return own ? [{ id: service.id, owner: parseOwnerRecord(this.owner)! }] : [];
    });
  }

  async recordedOwner(_resource: DatabaseService, id: string): Promise<Owner | undefined> {
    return parseOwnerRecord((await this.read(id))?.tags?.find((t) => t.key === OWNER_TAG)?.value);
  }

  /**
   * The owner recorded for a restore's backup: that of the service whose backups list it (a `backupId`), or
   * of the service a `restore` takes its backup from. A backup no listed service has records nobody.
   */
  async plainIdOwner(resource: DatabaseService, use: PlainIdUse): Promise<Owner | undefined> {
    if (use.field === 'restore') return this.recordedOwner(resource, use.id);
    const { snapshots, freshnessMs } = this.cloud;
    const recordOf = (service: Service) =>
      parseOwnerRecord(service.tags?.find((t) => t.key === OWNER_TAG)?.value);
    // This namespace's services first: a team restoring its own backup costs a list or two, not one per service.
    const services = [...(await snapshots.services.all(freshnessMs))].sort(
      (a, b) =>
        Number(recordOf(b)?.namespace === resource.metadata.namespace) -
        Number(recordOf(a)?.namespace === resource.metadata.namespace),
    );
    const id = use.id.toLowerCase();
    for (const service of services) {
      const backups = await snapshots.backups(service.id).all(freshnessMs);
      if (backups.some((backup) => backup.id.toLowerCase() === id)) return recordOf(service);
    }
    return undefined;
  }

  async observe(resource: DatabaseService, id: string): Promise<Observed<DatabaseService, ServiceDiff>> {
    const service = await this.read(id);
    if (!service) return { exists: false };
    const { surroundings, backups } = await this.readSurroundings(resource, id);
    // An adopted service changes only where the spec says: no marker tag (its id is in status already).
    const owner = externalIdOf(resource) !== undefined ? undefined : this.owner;
    const password = this.password(resource);
    return {
      exists: true,
      ...serviceComparison(service, surroundings, owner, password?.changed ?? false),
      status: {
        state: service.state,
        observed: observedSizing(service),
        endpoints: service.endpoints?.map(({ protocol, host, port, username }) => ({
          protocol,
          host,
          port,
          ...(username ? { username } : {}),
        })),
        engineVersion: service.engineVersion,
        dataWarehouseId: service.dataWarehouseId,
        privateEndpointIds: service.privateEndpointIds,
        ipAccessList: service.ipAccessList?.map(({ source, description }) => ({
          source,
          ...(description ? { description } : {}),
        })),
        ...(backups ? { backups } : {}),
        ...activeWindowStatus(surroundings),
      },
      // The owned password goes to the connection Secret once the cloud has it: now when it was sent,
      // else after the update that sends it (a refused or deferred one leaves the Secret as it was).
      connectionDetails: {
        ...connectionDetails(service),
        ...(password && !password.changed ? { password: password.value } : {}),
      },
      ...(password?.changed ? { connectionDetailsAfterUpdate: { password: password.value } } : {}),
    };
  }

  async create(resource: DatabaseService) {
    const restore = this.restorePoint;
    if (resource.spec.restore && !restore) throw new Error('create without the restore point settled');
    const { service, password: generated } = await this.cloud.management.createService(
      serviceCreateBody(resource.spec, this.owner, restore),
    );
    // An owned password replaces the generated one at once. Should this call fail, the service is found
    // again by its tag and, its Secret never recorded as sent, the password is set by the next reconcile.
    const password = this.password(resource);
    if (password) await this.setPassword(service.id, password.value);
    return {
      externalId: service.id,
      connectionDetails: { ...connectionDetails(service), password: password?.value ?? generated },
      ...(restore ? { status: this.createStatus() } : {}),
    };
  }

  /**
   * The backup a create restores: spec.backupId, or the latest finished backup of the DatabaseService
   * spec.restore names, listed fresh (the latest at create time). A wait, returned, while that service has none; a
   * service the cloud would refuse to restore into (another region or tier) is refused here, naming the field.
   */
  private async findRestorePoint(resource: DatabaseService): Promise<RestorePoint | Waiting | undefined> {
    const { spec } = resource;
    if (spec.backupId) return { id: spec.backupId };
    const source = this.restoreSource;
    if (!spec.restore || !source) return undefined;
    const label = `DatabaseService ${spec.restore.fromBackupOf}`;
    const original = await this.read(source.id);
    if (!original) return new Waiting(REASON.WaitingForReference, `${label} is not in the cloud (yet)`);
    const mismatch = restoreMismatch(spec, original);
    if (mismatch) throw ReconcileError.terminal(REASON.InvalidReference, mismatch, RETRY_DELAYS.userAction);
    const latest = latestFinishedBackup(await this.cloud.snapshots.backups(source.id).all(0));
    if (!latest) return new Waiting(REASON.WaitingForReference, `${label} has no finished backup yet`);
    return { id: latest.id, of: spec.restore.fromBackupOf, serviceId: source.id };
  }

  /** Returns the state the last answer showed: a stop is `stopping` and a resize `degraded` at once. */
  async update(resource: DatabaseService, id: string, observation: { plan: ServiceDiff }) {
    const { patch, replicaScaling, backupConfiguration, command, setPassword, ownerRecordOnly } =
      observation.plan;
    const { scalingSchedule, scheduleRefused, upgradeWindow } = observation.plan;
    const { management } = this.cloud;
    const password = setPassword ? this.password(resource) : undefined;
    if (password) await this.setPassword(id, password.value);
    let answer: Service | undefined;
    if (Object.keys(patch).length > 0) {
      // A PATCH that only records the owner (after an upgrade) waits behind users' changes.
      const options = ownerRecordOnly ? { priority: 'poll' as const } : undefined;
      answer = await management.updateService(id, patch, options);
    }
    if (replicaScaling) answer = await management.updateReplicaScaling(id, replicaScaling);
    if (backupConfiguration) await management.updateBackupConfiguration(id, backupConfiguration);
    if (command) answer = await management.changeServiceState(id, command);
    // Last: an organization without the feature refuses these (403), after the rest has converged.
    if (scalingSchedule) await management.setScalingSchedule(id, scalingSchedule);
    if (upgradeWindow) await management.setUpgradeWindow(id, upgradeWindow);
    if (scheduleRefused) throw scheduleRefused;
    return answer?.state === undefined ? {} : { state: answer.state };
  }

  /**
   * Stop, wait until stopped, DELETE, wait for 404 — one step per call, the reconciler polls between. Each
   * step reads the service as observe does: a deletion's waits share the key's services list.
   */
  async delete(_resource: DatabaseService, id: string): Promise<'gone' | 'pending'> {
    const service = await this.read(id);
    if (!service) return 'gone';
    switch (service.state) {
      case 'running':
      case 'idle':
      case 'degraded':
        await this.cloud.management.changeServiceState(id, 'stop');
        return 'pending';
      case 'stopped':
      case 'failed':
        await ignoreNotFound(this.cloud.management.deleteService(id));
        return 'pending';
      default:
        return 'pending';
    }
  }

  async recoverConnectionDetails(resource: DatabaseService, id: string): Promise<ConnectionDetails> {
    // An owned password is never reset: the cloud has it, or the update that sends it publishes it.
    const password = this.password(resource);
    if (password) return password.changed ? {} : { password: password.value };
    const reset = await this.cloud.management.resetServicePassword(id);
    // Under managementPolicy Observe the reset is only recorded, not sent: there is no answer, no password.
    return reset ? { password: reset.password } : {};
  }

  private setPassword(id: string, password: string): Promise<void> {
    return this.cloud.management.setServicePasswordHash(id, passwordHashes(password));
  }

  /**
   * What the spec manages beside the service object, read only when it asks: the backup configuration and
   * the backups list, each as old as this reconcile allows (a drift check: its sync interval), never a GET
   * per backup.
   */
  private async readSurroundings(
    resource: DatabaseService,
    id: string,
  ): Promise<{ surroundings: ServiceSurroundings; backups?: BackupsStatus }> {
    const { snapshots, freshnessMs } = this.cloud;
    const { spec } = resource;
    const surroundings: ServiceSurroundings = {};
    let backups: BackupsStatus | undefined;
    if (spec.backups) {
      const [configuration] = await snapshots.backupConfiguration(id).all(freshnessMs);
      const listed = await snapshots.backups(id).all(freshnessMs);
      const latest = latestFinishedBackup(listed);
      if (configuration) surroundings.backups = backupPolicyOf(configuration);
      backups = {
        ...(latest ? { latestBackupId: latest.id, latestBackupTime: latest.startedAt } : {}),
        kept: listed.length,
      };
    }
    if (spec.scalingSchedule) {
      try {
        const [schedule] = await snapshots.scalingSchedule(id).all(freshnessMs);
        if (schedule) surroundings.scalingSchedule = observedSchedule(schedule);
      } catch (error) {
        // Without the feature the schedule cannot be read: the rest of the spec still converges, and the
        // update reports the API's own message last, sending no schedule the cloud would refuse again.
        if (!(error instanceof ApiError && error.status === 403)) throw error;
        surroundings.scalingSchedule = { refused: error };
      }
    }
    if (spec.upgradeWindow) {
      const [window] = await snapshots.upgradeWindow(id).all(freshnessMs);
      surroundings.upgradeWindow = window
        ? { weekday: window.weekday, startHourUtc: window.startHourUtc }
        : null;
    }
    return { surroundings, ...(backups ? { backups } : {}) };
  }

  /** The service from the key's services list, as fresh as this reconcile needs; undefined when gone. */
  private read(id: string): Promise<Service | undefined> {
    const { snapshots, freshnessMs, management } = this.cloud;
    return snapshots.services.read(
      id,
      freshnessMs,
      () => ignoreNotFound(management.getService(id)),
      management,
    );
  }
}

/**
 * Host and port of the primary (https) endpoint plus one pair per protocol, and the user name. The password
 * is added by create or recovered by a reset; it never comes from an observation.
 */
/** The fields a user edits most, as the cloud runs them: what status shows of the service's sizing. */
function observedSizing(service: Service): Record<string, number | boolean> {
  const { numReplicas, minReplicaMemoryGb, maxReplicaMemoryGb, idleScaling, idleTimeoutMinutes } = service;
  const sizing = { numReplicas, minReplicaMemoryGb, maxReplicaMemoryGb, idleScaling, idleTimeoutMinutes };
  return Object.fromEntries(
    Object.entries(sizing).filter((entry): entry is [string, number | boolean] => entry[1] != null),
  );
}

function connectionDetails(service: Service): Record<string, string> {
  const endpoints = service.endpoints ?? [];
  const primary = endpoints.find((e) => e.protocol === 'https') ?? endpoints[0];
  const details: Record<string, string> = {};
  if (primary) {
    details.host = primary.host;
    details.port = String(primary.port);
    details.username = primary.username ?? 'default';
  }
  for (const endpoint of endpoints) {
    details[`${endpoint.protocol}_host`] = endpoint.host;
    details[`${endpoint.protocol}_port`] = String(endpoint.port);
  }
  return details;
}

/** Which window the cloud applies now, when the spec has a schedule the cloud could tell. */
function activeWindowStatus(surroundings: ServiceSurroundings): { activeScalingWindow?: string } {
  const schedule = surroundings.scalingSchedule;
  if (!schedule || !('windows' in schedule)) return {};
  // Present even when undefined: the status written replaces a window that has ended.
  return { activeScalingWindow: schedule.active?.name };
}
