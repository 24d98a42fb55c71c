import { reasonNames, type KindReasons } from '../../base/reasons.ts';

/**
 * The reasons only a saved search writes, and what the common ones mean for it: its page in docs/kinds lists
 * them (npm run generate), and its code raises no other of its own (`SAVED_SEARCH_REASON`).
 */
export const savedSearchReasons = {
  WaitingForDependants: { means: '`deletionPolicy: Delete` while Alerts in its namespace still name it' },
} as const satisfies KindReasons;

/** Each of its reasons by name, as the kind raises it. */
export const SAVED_SEARCH_REASON = reasonNames(savedSearchReasons);
