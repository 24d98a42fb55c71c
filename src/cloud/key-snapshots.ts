import { ALERTING_ROUTES, type AlertingClient } from './alerting-client.ts';
import type { Dashboard, SavedSearch, Source, Webhook } from './schemas/clickstack.ts';
import type { WriteEvent } from './http.ts';
import { MANAGEMENT_ROUTES, type ManagementClient } from './management-client.ts';
import type { Alert } from './schemas/alert.ts';
import type { Pipe } from './schemas/pipe.ts';
import type { ReversePrivateEndpoint } from './schemas/reverse-private-endpoint.ts';
import type { Service } from './schemas/service.ts';
import type { Backup, BackupConfiguration, ScalingSchedule, UpgradeWindow } from './schemas/lifecycle.ts';
import { ApiError } from './errors.ts';
import { CloudSnapshot, type SnapshotClock, type SnapshotHooks } from './list-snapshot.ts';

export interface CloudSnapshotsOptions {
  /**
   * The key's clients; a list of an API whose client is missing throws, the error given in its place when
   * there is one (why the keys cannot make one, as the client's users see it).
   */
  management?: ManagementClient | Error | undefined;
  alerting?: AlertingClient | Error | undefined;
  clock: SnapshotClock;
  /** Ids whose cloud object a list showed added, changed or removed: the objects managing them look again. */
  onChange?(ids: string[]): void;
}

/** The kinds of list a key observes by. */
export type SnapshotList =
  | 'services'
  | 'pipes'
  | 'reversePrivateEndpoints'
  | 'alerts'
  | 'webhooks'
  | 'savedSearches'
  | 'dashboards'
  | 'sources'
  | 'backups'
  | 'backupConfiguration'
  | 'scalingSchedule'
  | 'upgradeWindow';

/** A service's backup configuration, kept under the service's id as a one-entry list. */
export type ServiceBackupConfiguration = BackupConfiguration & { id: string };
/** A service's scaling schedule, kept the same way. */
export type ServiceScalingSchedule = ScalingSchedule & { id: string };
/** A service's upgrade window, kept the same way: an empty list when it has none. */
export type ServiceUpgradeWindow = UpgradeWindow & { id: string };

/**
 * One credentials key's snapshots of every list sluice observes by: the organization's services, each
 * service's pipes and reverse private endpoints, the token's alerts. Every write the key's clients send
 * replaces (or marks stale) the entry it wrote, so a snapshot taken before it never undoes it.
 */
export class CloudSnapshots {
  private servicesSnapshot?: CloudSnapshot<Service>;
  private alertsSnapshot?: CloudSnapshot<Alert>;
  private webhooksSnapshot?: CloudSnapshot<Webhook>;
  private savedSearchesSnapshot?: CloudSnapshot<SavedSearch>;
  private dashboardsSnapshot?: CloudSnapshot<Dashboard>;
  private sourcesSnapshot?: CloudSnapshot<Source>;
  private readonly pipesByService = new Map<string, CloudSnapshot<Pipe>>();
  private readonly endpointsByService = new Map<string, CloudSnapshot<ReversePrivateEndpoint>>();
  private readonly backupsByService = new Map<string, CloudSnapshot<Backup>>();
  private readonly backupConfigurations = new Map<string, CloudSnapshot<ServiceBackupConfiguration>>();
  private readonly scalingSchedules = new Map<string, CloudSnapshot<ServiceScalingSchedule>>();
  private readonly upgradeWindows = new Map<string, CloudSnapshot<ServiceUpgradeWindow>>();
  private readonly unsubscribe: (() => void)[] = [];
  /** The clock and change hook every snapshot of the key shares but the services list's. */
  private readonly hooks: SnapshotHooks;

  constructor(private readonly options: CloudSnapshotsOptions) {
    const { management, alerting, clock, onChange } = options;
    this.hooks = { clock, ...(onChange ? { onChange } : {}) };
    if (management && !(management instanceof Error))
      this.unsubscribe.push(management.onWrite((write) => this.managementWrote(write)));
    if (alerting && !(alerting instanceof Error))
      this.unsubscribe.push(alerting.onWrite((write) => this.alertingWrote(write)));
  }

  get services(): CloudSnapshot<Service> {
    return (this.servicesSnapshot ??= new CloudSnapshot((call) => this.management.listServices({}, call), {
      clock: this.options.clock,
      onChange: (ids) => {
        this.forgetGoneServices(ids);
        this.options.onChange?.(ids);
      },
    }));
  }

  get alerts(): CloudSnapshot<Alert> {
    return (this.alertsSnapshot ??= new CloudSnapshot((call) => this.alerting.listAlerts(call), this.hooks));
  }

  get webhooks(): CloudSnapshot<Webhook> {
    return (this.webhooksSnapshot ??= new CloudSnapshot(
      (call) => this.alerting.listWebhooks(call),
      this.hooks,
    ));
  }

  get savedSearches(): CloudSnapshot<SavedSearch> {
    return (this.savedSearchesSnapshot ??= new CloudSnapshot(
      (call) => this.alerting.listSavedSearches(call),
      this.hooks,
    ));
  }

  get dashboards(): CloudSnapshot<Dashboard> {
    return (this.dashboardsSnapshot ??= new CloudSnapshot(
      (call) => this.alerting.listDashboards(call),
      this.hooks,
    ));
  }

  get sources(): CloudSnapshot<Source> {
    return (this.sourcesSnapshot ??= new CloudSnapshot(
      (call) => this.alerting.listSources(call),
      this.hooks,
    ));
  }

  pipes(serviceId: string): CloudSnapshot<Pipe> {
    return perService(
      this.pipesByService,
      serviceId,
      () => new CloudSnapshot((call) => this.management.listPipes(serviceId, call), this.hooks),
    );
  }

  reversePrivateEndpoints(serviceId: string): CloudSnapshot<ReversePrivateEndpoint> {
    return perService(
      this.endpointsByService,
      serviceId,
      () =>
        new CloudSnapshot((call) => this.management.listReversePrivateEndpoints(serviceId, call), this.hooks),
    );
  }

  /** A service's backups, newest first: one list per service, read as a drift check allows. */
  backups(serviceId: string): CloudSnapshot<Backup> {
    return perService(
      this.backupsByService,
      serviceId,
      () => new CloudSnapshot((call) => this.management.listBackups(serviceId, call), this.hooks),
    );
  }

  /** A service's backup configuration: one GET, shared and aged like a list. */
  backupConfiguration(serviceId: string): CloudSnapshot<ServiceBackupConfiguration> {
    return perService(
      this.backupConfigurations,
      serviceId,
      () =>
        new CloudSnapshot(
          async (call) => [
            { ...(await this.management.getBackupConfiguration(serviceId, call)), id: serviceId },
          ],
          this.hooks,
        ),
    );
  }

  /** A service's scaling schedule (403 when the organization lacks the feature: the reader gets the error). */
  scalingSchedule(serviceId: string): CloudSnapshot<ServiceScalingSchedule> {
    return perService(
      this.scalingSchedules,
      serviceId,
      () =>
        new CloudSnapshot(
          async (call) => [{ ...(await this.management.getScalingSchedule(serviceId, call)), id: serviceId }],
          this.hooks,
        ),
    );
  }

  /** A service's upgrade window; none set (404) is an empty list. */
  upgradeWindow(serviceId: string): CloudSnapshot<ServiceUpgradeWindow> {
    return perService(
      this.upgradeWindows,
      serviceId,
      () =>
        new CloudSnapshot(async (call) => {
          try {
            return [{ ...(await this.management.getUpgradeWindow(serviceId, call)), id: serviceId }];
          } catch (error) {
            if (error instanceof ApiError && error.status === 404) return [];
            throw error;
          }
        }, this.hooks),
    );
  }

  /**
   * How old each listed snapshot is, by the kind of list. A service's pipes and endpoints count while the
   * services list still shows the service: nothing reads those of a deleted service again.
   */
  ages(): { list: SnapshotList; ageMs: number }[] {
    const services = this.servicesSnapshot;
    const live = (serviceId: string) => services?.ageMs() === undefined || services.knows(serviceId);
    const listed: [SnapshotList, { ageMs(): number | undefined } | undefined][] = [
      ['services', services],
      ['alerts', this.alertsSnapshot],
      ['webhooks', this.webhooksSnapshot],
      ['savedSearches', this.savedSearchesSnapshot],
      ['dashboards', this.dashboardsSnapshot],
      ['sources', this.sourcesSnapshot],
    ];
    for (const [id, snapshot] of this.pipesByService) if (live(id)) listed.push(['pipes', snapshot]);
    for (const [id, snapshot] of this.endpointsByService) {
      if (live(id)) listed.push(['reversePrivateEndpoints', snapshot]);
    }
    for (const [id, snapshot] of this.backupsByService) if (live(id)) listed.push(['backups', snapshot]);
    for (const [id, snapshot] of this.backupConfigurations) {
      if (live(id)) listed.push(['backupConfiguration', snapshot]);
    }
    for (const [id, snapshot] of this.scalingSchedules)
      if (live(id)) listed.push(['scalingSchedule', snapshot]);
    for (const [id, snapshot] of this.upgradeWindows) if (live(id)) listed.push(['upgradeWindow', snapshot]);
    return listed.flatMap(([list, snapshot]) => {
      const ageMs = snapshot?.ageMs();
      return ageMs === undefined ? [] : [{ list, ageMs }];
    });
  }

  /** Stops following the clients' writes (the key rotated; its snapshots are dropped with it). */
  close(): void {
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
  }

  /**
   * A services list no longer shows a service: its pipes and endpoints lists go with it, so a key that
   * churns through services keeps no snapshot of each one it ever saw. Anything still reading them lists
   * afresh (and learns the service is gone).
   */
  private forgetGoneServices(changedIds: string[]): void {
    for (const id of changedIds) {
      if (this.servicesSnapshot?.knows(id)) continue;
      this.pipesByService.delete(id);
      this.endpointsByService.delete(id);
      this.backupsByService.delete(id);
      this.backupConfigurations.delete(id);
      this.scalingSchedules.delete(id);
      this.upgradeWindows.delete(id);
    }
  }

  /** How many services' pipes or endpoints lists are kept (what pruning bounds). */
  get perServiceSnapshots(): number {
    return new Set([...this.pipesByService.keys(), ...this.endpointsByService.keys()]).size;
  }

  private get management(): ManagementClient {
    const { management } = this.options;
    if (management instanceof Error) throw management;
    if (!management) throw new Error('no management API client for this key');
    return management;
  }

  private get alerting(): AlertingClient {
    const { alerting } = this.options;
    if (alerting instanceof Error) throw alerting;
    if (!alerting) throw new Error('no alerting API client for this key');
    return alerting;
  }

  /** Which entry a management write touched: the pipe or endpoint it names, else the service. */
  private managementWrote({ route, params, answer }: WriteEvent): void {
    const { serviceId, pipeId, reversePrivateEndpointId: endpointId } = params;
    if (route === MANAGEMENT_ROUTES.services) return writtenNew(this.services, answer);
    if (serviceId === undefined) return;
    if (pipeId !== undefined) return this.pipesByService.get(serviceId)?.written(pipeId, answer as Pipe);
    if (endpointId !== undefined) {
      return this.endpointsByService.get(serviceId)?.written(endpointId, answer as ReversePrivateEndpoint);
    }
    if (route === MANAGEMENT_ROUTES.pipes) return writtenNew(this.pipes(serviceId), answer);
    if (route === MANAGEMENT_ROUTES.reversePrivateEndpoints) {
      return writtenNew(this.reversePrivateEndpoints(serviceId), answer);
    }
    if (route === MANAGEMENT_ROUTES.serviceBackupConfiguration) {
      const configuration = answer as BackupConfiguration | undefined;
      return this.backupConfigurations
        .get(serviceId)
        ?.written(serviceId, configuration && { ...configuration, id: serviceId });
    }
    if (route === MANAGEMENT_ROUTES.serviceUpgradeWindow) {
      const window = answer as UpgradeWindow | undefined;
      return this.upgradeWindows.get(serviceId)?.written(serviceId, window && { ...window, id: serviceId });
    }
    if (route === MANAGEMENT_ROUTES.serviceScalingSchedule) {
      // A new schedule may resize the service at once: its entry is stale until the next list.
      this.servicesSnapshot?.written(serviceId);
      const schedule = answer as ScalingSchedule | undefined;
      return this.scalingSchedules
        .get(serviceId)
        ?.written(serviceId, schedule && { ...schedule, id: serviceId });
    }
    // Any other write under a service (state, scaling, password, …) may change what the service shows.
    this.servicesSnapshot?.written(serviceId, answer as Service);
  }

  /** The entry of the family the write's route names; a validate call writes nothing. */
  private alertingWrote({ route, params, answer }: WriteEvent): void {
    const family = this.alertingFamilyOf(route);
    if (!family) return;
    if (params.id !== undefined) return family.snapshot?.written(params.id, answer as never);
    writtenNew(family.all(), answer);
  }

  private alertingFamilyOf(route: string) {
    const R = ALERTING_ROUTES;
    const family = <T extends { id: string }>(
      snapshot: CloudSnapshot<T> | undefined,
      all: () => CloudSnapshot<T>,
    ) => ({
      snapshot: snapshot as CloudSnapshot<{ id: string }> | undefined,
      all: all as () => CloudSnapshot<{ id: string }>,
    });
    if (route === R.alerts || route === R.alert) return family(this.alertsSnapshot, () => this.alerts);
    if (route === R.webhooks || route === R.webhook)
      return family(this.webhooksSnapshot, () => this.webhooks);
    if (route === R.savedSearches || route === R.savedSearch)
      return family(this.savedSearchesSnapshot, () => this.savedSearches);
    if (route === R.dashboards || route === R.dashboard)
      return family(this.dashboardsSnapshot, () => this.dashboards);
    if (route === R.sources || route === R.source) return family(this.sourcesSnapshot, () => this.sources);
    return undefined;
  }
}

/**
 * A create's answer goes into the snapshot at once (a service's inside `{service, password}`: only the
 * service is kept); a create that failed has no id to mark, and the next list shows what it made.
 */
function writtenNew<T extends { id: string }>(snapshot: CloudSnapshot<T>, answer: unknown): void {
  const object = (answer as { service?: T } | undefined)?.service ?? (answer as T | undefined);
  if (typeof object?.id === 'string') snapshot.written(object.id, object);
}

function perService<T extends { id: string }>(
  snapshots: Map<string, CloudSnapshot<T>>,
  serviceId: string,
  create: () => CloudSnapshot<T>,
): CloudSnapshot<T> {
  let snapshot = snapshots.get(serviceId);
  if (!snapshot) snapshots.set(serviceId, (snapshot = create()));
  return snapshot;
}
