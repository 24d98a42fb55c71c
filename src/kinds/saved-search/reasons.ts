import { reasonNames, type KindReasons } from '../../base/reasons.ts';

/**
 * The reasons only SavedSearch objects carry, and what common ones mean for them: the kind's page in docs/kinds
 * lists them (npm run generate). Its code raises its own by the names in `SAVED_SEARCH_REASON`, and no other.
 */
export const savedSearchReasons = {
  WaitingForDependants: { means: '`deletionPolicy: Delete` while Alerts in its namespace still name it' },
} as const satisfies KindReasons;

/** Each of its reasons by name, as the kind raises it. */
export const SAVED_SEARCH_REASON = reasonNames(savedSearchReasons);
