import { DASHBOARD_POLICY, DashboardSpec, DashboardStatus, type Dashboard } from './schema.ts';
import { defineKind } from '../shared/descriptor.ts';
import { dashboardReasons } from './reasons.ts';

/** The Dashboard kind, as the registry lists it; its controller and export step are loaded on first use. */
export const dashboardKind = defineKind<Dashboard>({
  policyFields: DASHBOARD_POLICY,
  kind: 'Dashboard',
  plural: 'dashboards',
  singular: 'dashboard',
  shortNames: [],
  description:
    'A dashboard of the alerting API with its tiles, whose ids survive every apply, managed by sluice.',
  spec: DashboardSpec,
  status: DashboardStatus,
  printerColumns: [{ name: 'Tiles', type: 'string', jsonPath: '.status.tiles[*].name' }],
  reasons: dashboardReasons,
  driftReads: () => [{ api: 'alerting', list: 'dashboards' }],
  exportStep: () => import('./export.ts').then((module) => module.dashboardExport),
  controller: () => import('./controller.ts').then((module) => module.dashboardController),
});
