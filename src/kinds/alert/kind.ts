import { ALERT_POLICY, ALERT_REFERENCES, AlertSpec, AlertStatus } from './schema.ts';
import { defineKind } from '../shared/descriptor.ts';
import { alertReasons } from './reasons.ts';
import type { Alert } from './schema.ts';

/** The Alert kind: everything sluice knows of it but its cloud client, which is loaded on first use. */
export const alertKind = defineKind<Alert>({
  policyFields: ALERT_POLICY,
  kind: 'Alert',
  plural: 'alerts',
  singular: 'alert',
  shortNames: [],
  description: 'An alert of the alerting API on a dashboard tile or a saved search, managed by sluice.',
  spec: AlertSpec,
  status: AlertStatus,
  printerColumns: [
    { name: 'State', type: 'string', jsonPath: '.status.state' },
    { name: 'Interval', type: 'string', jsonPath: '.spec.interval' },
  ],
  references: ALERT_REFERENCES,
  reasons: alertReasons,
  driftReads: () => [{ api: 'alerting', list: 'alerts' }],
  exportStep: () => import('./export.ts').then((module) => module.alertExport),
  controller: () => import('./controller.ts').then((module) => module.alertController),
});
