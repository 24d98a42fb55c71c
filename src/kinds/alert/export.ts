import type { Alert } from '../../cloud/schemas/alert.ts';
import { byNameThenId, ownedByCluster, type OrganizationExport } from '../shared/export-step.ts';
import { exportAlert, noteOwner } from './mapping.ts';

/**
 * Alerts live in the alerting API: exported only with its keys, and only for a whole organization or a
 * cluster name (they carry no tags to select by; an alert's owner is recorded in its note).
 */
export const alertExport: OrganizationExport = {
  scope: 'organization',
  position: 2,
  run: async (walk) => {
    if (!walk.alerting)
      return walk.progress('alerts not exported: no alerting token (alertsUrl and alertsToken)');
    if (walk.tags) return walk.progress('alerts not exported: they carry no tags for --selector to match');
    const listed: Alert[] = await walk.call(walk.alerting.listAlerts());
    const alerts = ownedByCluster(walk, listed, noteOwner);
    alerts.sort(byNameThenId((a) => a.name ?? ''));
    walk.progress(`listed ${alerts.length} alert${alerts.length === 1 ? '' : 's'}`);
    // What an alert hangs on, exported too, is named by reference; anything else keeps its id.
    const references = {
      webhook: (id: string) => walk.nameOf('Webhook', id),
      dashboard: (id: string) => walk.nameOf('Dashboard', id),
      savedSearch: (id: string) => walk.nameOf('SavedSearch', id),
    };
    // A tile by its name: read once, only when some alert watches a tile of an exported dashboard.
    const onExportedTile = alerts.some((alert) => alert.dashboard && references.dashboard(alert.dashboard));
    const dashboards = onExportedTile ? await walk.call(walk.alerting.listDashboards()) : [];
    const tileName = (dashboardId: string, tileId: string) =>
      dashboards.find((d) => d.id === dashboardId)?.tiles.find((tile) => tile.id === tileId)?.name;
    for (const alert of alerts)
      walk.named('Alert', alert.name ?? '', alert.id, 'alert', () =>
        exportAlert(alert, references, tileName),
      );
  },
};
