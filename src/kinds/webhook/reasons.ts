import { reasonNames, type KindReasons } from '../../base/reasons.ts';

/**
 * The reasons only a webhook writes, and what the common ones mean for it: its page in docs/kinds lists
 * them (npm run generate), and its code raises no other of its own (`WEBHOOK_REASON`).
 */
export const webhookReasons = {
  WaitingForDependants: {
    means: '`deletionPolicy: Delete` while Alerts in its namespace still name it (`channel.webhookRef`)',
  },
} as const satisfies KindReasons;

/** Each of its reasons by name, as the kind raises it. */
export const WEBHOOK_REASON = reasonNames(webhookReasons);
