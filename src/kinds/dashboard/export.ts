import type { Dashboard } from '../../cloud/schemas/clickstack.ts';
import { byNameThenId, ownedByCluster, plural, type OrganizationExport } from '../shared/export-step.ts';
import { dashboardOwner, exportDashboard } from './mapping.ts';

/** Dashboards, before the alerts on their tiles. */
export const dashboardExport: OrganizationExport = {
  scope: 'organization',
  position: 1,
  run: async (walk) => {
    if (!walk.alerting)
      return walk.progress('dashboards not exported: no alerting token (alertsUrl and alertsToken)');
    if (walk.tags) return walk.progress('dashboards not exported: --selector matches service tags only');
    const listed: Dashboard[] = await walk.call(walk.alerting.listDashboards());
    const dashboards = ownedByCluster(walk, listed, dashboardOwner);
    dashboards.sort(byNameThenId((dashboard) => dashboard.name));
    walk.progress(`listed ${plural(dashboards.length, 'dashboard')}`);
    for (const dashboard of dashboards)
      walk.named('Dashboard', dashboard.name, dashboard.id, 'dashboard', () => exportDashboard(dashboard));
  },
};
