import { ALERTING_ROUTES } from '../../../src/cloud/alerting-client.ts';

/** Alert manifests for the operator tests (and the diff unit tests). */
export const ALERTS = ALERTING_ROUTES.alerts;
export const ALERT = ALERTING_ROUTES.alert;

/** An alert on a dashboard tile, with every optional field a tile alert takes. */
export const tileAlert = (name: string) => ({
  name,
  message: `${name} is above 100`,
  threshold: 100,
  thresholdType: 'above' as const,
  interval: '5m' as const,
  source: 'tile' as const,
  dashboardId: 'dash-1',
  tileId: 'tile-1',
  channel: { type: 'webhook' as const, webhookId: 'hook-1' },
});

/** An alert on a saved search, grouped. */
export const searchAlert = (name: string) => ({
  name,
  threshold: 3,
  thresholdType: 'below' as const,
  interval: '1h' as const,
  source: 'search' as const,
  savedSearchId: 'search-1',
  groupBy: 'service',
  channel: { type: 'webhook' as const, webhookId: 'hook-2' },
});
