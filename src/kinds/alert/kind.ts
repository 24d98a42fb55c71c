import { ALERT_POLICY, ALERT_REFERENCES, AlertSpec, AlertStatus, type Alert } from './schema.ts';
import { defineKind } from '../shared/descriptor.ts';
import { alertReasons } from './reasons.ts';

/** The Alert kind, as the registry lists it; its controller and export step are loaded on first use. */
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
