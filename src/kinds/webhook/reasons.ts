import { reasonNames, type KindReasons } from '../../base/reasons.ts';

/**
 * The reasons only Webhook objects carry, and what common ones mean for them: the kind's page in docs/kinds
 * lists them (npm run generate). Its code raises its own by the names in `WEBHOOK_REASON`, and no other.
 */
export const webhookReasons = {
  WaitingForDependants: {
    means: '`deletionPolicy: Delete` while Alerts in its namespace still name it (`channel.webhookRef`)',
  },
} as const satisfies KindReasons;

/** Each of its reasons by name, as the kind raises it. */
export const WEBHOOK_REASON = reasonNames(webhookReasons);
