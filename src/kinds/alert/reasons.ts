import { reasonNames, type KindReasons } from '../../base/reasons.ts';

/**
 * The reasons only a alert writes, and what the common ones mean for it: its page in docs/kinds lists
 * them (npm run generate), and its code raises no other of its own (`ALERT_REASON`).
 */
export const alertReasons = {
  InvalidReference: { means: "`tile` names no tile of the Dashboard's spec; nothing is sent" },
} as const satisfies KindReasons;

/** Each of its reasons by name, as the kind raises it. */
export const ALERT_REASON = reasonNames(alertReasons);
