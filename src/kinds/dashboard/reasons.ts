import { reasonNames, type KindReasons } from '../../base/reasons.ts';

/**
 * The reasons only Dashboard objects carry, and what common ones mean for them: the kind's page in docs/kinds
 * lists them (npm run generate). Its code raises its own by the names in `DASHBOARD_REASON`, and no other.
 */
export const dashboardReasons = {
  WaitingForDependants: { means: '`deletionPolicy: Delete` while Alerts in its namespace still name it' },
  InvalidSpec: {
    condition: 'Synced=False',
    end: 'terminal',
    kstatus: 'Failed',
    argocd: 'Degraded',
    means: "the alerting API's validate call refused the dashboard; the message lists each problem by path",
  },
} as const satisfies KindReasons;

/** Each of its reasons by name, as the kind raises it. */
export const DASHBOARD_REASON = reasonNames(dashboardReasons);
