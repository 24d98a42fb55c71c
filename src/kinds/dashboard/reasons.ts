import { reasonNames, type KindReasons } from '../../base/reasons.ts';

/**
 * The reasons only a dashboard writes, and what the common ones mean for it: its page in docs/kinds lists
 * them (npm run generate), and its code raises no other of its own (`DASHBOARD_REASON`).
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
