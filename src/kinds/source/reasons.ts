import { reasonNames, type KindReasons } from '../../base/reasons.ts';

/**
 * The reasons only Source objects carry, and what common ones mean for them: the kind's page in docs/kinds
 * lists them (npm run generate). Its code raises its own by the names in `SOURCE_REASON`, and no other.
 */
export const sourceReasons = {
  WaitingForDependants: {
    means: '`deletionPolicy: Delete` while SavedSearches in its namespace still name it',
  },
} as const satisfies KindReasons;

/** Each of its reasons by name, as the kind raises it. */
export const SOURCE_REASON = reasonNames(sourceReasons);
