import { reasonNames, type KindReasons } from '../../base/reasons.ts';

/**
 * The reasons only Alert objects carry, and what common ones mean for them: the kind's page in docs/kinds
 * lists them (npm run generate). Its code raises its own by the names in `ALERT_REASON`, and no other.
 */
export const alertReasons = {
  InvalidReference: { means: "`tile` names no tile of the Dashboard's spec; nothing is sent" },
} as const satisfies KindReasons;

/** Each of its reasons by name, as the kind raises it. */
export const ALERT_REASON = reasonNames(alertReasons);
