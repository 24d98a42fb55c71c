import { ListedAlertingClient } from '../shared/listed-alerting-client.ts';
import { type Alert } from './schema.ts';
import type { AlertBody } from '../../cloud/alerting-client.ts';
import type { Alert as CloudAlert } from '../../cloud/schemas/alert.ts';
import {
  externalIdOf,
  type ConnectContext,
  type LostCreate,
  type ManagedObject,
  ReconcileError,
  Waiting,
  type CloudRecords,
  type ExternalClient,
  type Observed,
} from '../../managed/index.ts';
import {
  alertBody,
  alertStatus,
  diffAlert,
  isAlertFor,
  noteOwner,
  observedBody,
  ownerNote,
  withReferencedIds,
  type ReferencedIds,
} from './mapping.ts';
import { REASON } from '../../base/reasons.ts';
import { RETRY_DELAYS } from '../../base/retry-delays.ts';
import { ignoreNotFound } from '../shared/cloud-calls.ts';
import type { CloudConnection } from '../../cloud-access/connection.ts';
import { connectionOf, type KindController } from '../shared/sluice-kind.ts';

/** The Alert controller: its cloud client, loaded by the registry only when the kind runs. */
export const alertController: KindController<Alert, AlertBody> = {
  connect: (resource, context) => {
    const ids = referencedIds(context.references);
    const waiting = tileOnItsWay(resource.spec.tile, ids.tiles);
    return { ...connectionOf(new AlertClient(context, ids)), ...(waiting ? { waiting } : {}) };
  },
};

/** A tile the Dashboard's spec has and has not made yet: the alert waits for it before any call. */
function tileOnItsWay(tile: string | undefined, tiles: DashboardTiles | undefined): Waiting | undefined {
  if (tile === undefined || !tiles || tiles.ids[tile] !== undefined || !tiles.names.includes(tile))
    return undefined;
  return new Waiting(
    REASON.WaitingForReference,
    `Dashboard ${tiles.dashboard} has not made tile ${tile} yet`,
  );
}

/** The cloud ids the references resolved to; a tile by its name in the Dashboard's status. */
function referencedIds(
  references: ConnectContext<CloudConnection>['references'],
): ReferencedIds & { tiles?: DashboardTiles } {
  const [webhook] = references.webhook ?? [];
  const [savedSearch] = references.savedSearch ?? [];
  const [dashboard] = references.dashboard ?? [];
  return {
    webhookId: webhook?.id,
    savedSearchId: savedSearch?.id,
    dashboardId: dashboard?.id,
    ...(dashboard?.object ? { tiles: tilesOf(dashboard.object) } : {}),
  };
}

/** A Dashboard's tiles: their cloud ids by name as its status records them, and the names its spec has. */
function tilesOf(dashboard: ManagedObject): DashboardTiles {
  const tiles = (dashboard.status as { tiles?: { name: string; id: string }[] } | undefined)?.tiles ?? [];
  const wanted = (dashboard.spec as { tiles?: { name: string }[] }).tiles ?? [];
  return {
    dashboard: dashboard.metadata.name,
    ids: Object.fromEntries(tiles.map((tile) => [tile.name, tile.id])),
    names: wanted.map((tile) => tile.name),
  };
}

interface DashboardTiles {
  dashboard: string;
  ids: Record<string, string>;
  /** The tiles of the Dashboard's spec: one not in `ids` yet is on its way. */
  names: string[];
}

/** Over the alerting API: create (POST), observe (GET), replace (PUT of the whole alert), delete. */
class AlertClient
  extends ListedAlertingClient<CloudAlert>
  implements ExternalClient<Alert, AlertBody>, CloudRecords<Alert>
{
  constructor(
    context: ConnectContext<CloudConnection>,
    private readonly ids: ReferencedIds & { tiles?: DashboardTiles },
  ) {
    super(context);
  }

  protected list() {
    return this.cloud.snapshots.alerts;
  }

  protected ownerOf(alert: CloudAlert) {
    return noteOwner(alert);
  }

  protected fetch(id: string) {
    return ignoreNotFound(this.cloud.alerting.getAlert(id));
  }

  /**
   * The spec in cloud ids: a tile the Dashboard does not have is the user's to fix. One it has and has not
   * made yet never gets here: the connection's wait (`tileOnItsWay`) comes first.
   */
  private resolved(spec: Alert['spec']): Alert['spec'] {
    const { tile } = spec;
    const tiles = this.ids.tiles;
    const tileId = tile === undefined ? undefined : tiles?.ids[tile];
    if (tile !== undefined && tileId === undefined && !tiles?.names.includes(tile)) {
      throw ReconcileError.terminal(
        REASON.InvalidReference,
        `tile ${tile} is not a tile of Dashboard ${tiles?.dashboard ?? ''} (its tiles: ${tiles?.names.join(', ') || 'none'})`,
        RETRY_DELAYS.userAction,
      );
    }
    return withReferencedIds(spec, { ...this.ids, tileId });
  }

  /**
   * Alerts carry no tags: after a crash, the alert is the one with this name and watched object, and this
   * object's own record in its note (the create wrote it), that the cloud created after the intent was
   * recorded and no other Alert holds. Without an intent a look-alike is never adopted, nor is one another
   * cluster (or another object) recorded.
   */
  async findCreated(resource: Alert, lost: LostCreate | undefined): Promise<string | undefined> {
    if (!lost) return undefined;
    // Through the snapshot: the list that finds it serves the observe that follows.
    const note = ownerNote(this.record);
    const spec = this.resolved(resource.spec);
    return this.createdAfter(lost, (alert) => isAlertFor(spec, alert) && alert.note === note);
  }

  /** The plan is the whole desired body: the PUT replaces the alert, so it never carries less. */
  async observe(resource: Alert, id: string): Promise<Observed<Alert, AlertBody>> {
    const alert = await this.read(id);
    if (!alert) return { exists: false };
    // An alert adopted by id keeps its note; any other records its owner there (once, after an upgrade).
    const adopted = externalIdOf(resource) !== undefined;
    const note = adopted ? alert.note : ownerNote(this.record);
    return {
      exists: true,
      observed: observedBody(alert),
      diff: (written: Alert['spec']) => {
        const spec = this.resolved(written);
        return {
          differences: diffAlert(spec, alert),
          plan: { ...alertBody(spec), ...(typeof note === 'string' ? { note } : {}) },
          // A firing alert works as it should: its state is shown in status, it does not make the resource unready.
          available: true,
        };
      },
      unheldDifferences: !adopted && alert.note !== note ? ['owner'] : [],
      status: alertStatus(alert),
    };
  }

  async create(resource: Alert) {
    const body = { ...alertBody(this.resolved(resource.spec)), note: ownerNote(this.record) };
    const alert = await this.cloud.alerting.createAlert(body);
    return { externalId: alert.id };
  }

  async update(_resource: Alert, id: string, observation: { plan: AlertBody }): Promise<void> {
    await this.cloud.alerting.replaceAlert(id, observation.plan);
  }

  /** The alert from the key's alerts list, as fresh as this reconcile needs; undefined when gone. */

  /** The DELETE answers `{}` once the alert is gone; a 404 means it already was. */
  async delete(_resource: Alert, id: string): Promise<'gone'> {
    await ignoreNotFound(this.cloud.alerting.deleteAlert(id));
    return 'gone';
  }
}
