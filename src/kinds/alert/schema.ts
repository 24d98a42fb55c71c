import { z } from 'zod';
import type { ManagedObject } from '../../managed/index.ts';
import {
  ALERT_CHANNEL_TYPES,
  ALERT_INTERVALS,
  ALERT_MESSAGE_MAX,
  ALERT_NAME_MAX,
  ALERT_SOURCE_FIELDS,
  ALERT_SOURCES,
  ALERT_STATES,
  ALERT_THRESHOLD_TYPES,
} from '../../cloud/schemas/alert.ts';
import { managedSpecFields, managedStatusFields } from '../shared/common.ts';
import { defineKind } from '../shared/kind-schema.ts';
import { fieldPolicySchema, policyFields } from '../shared/field-policy.ts';
import { withRules, type CelRule } from '../shared/meta.ts';

// The spec is the alert creation body of the alerting API under the same names. Every field can change: an
// update replaces the whole alert (PUT), so nothing is fixed at creation.

const id = (description: string) => z.string().min(1).max(1024).describe(description);

/** `source: tile` needs dashboardId and tileId, `source: search` needs savedSearchId: one rule per field. */
const sourceRules: CelRule[] = Object.entries(ALERT_SOURCE_FIELDS).flatMap(([source, fields]) =>
  fields.map((field) => ({
    rule: `self.source != '${source}' || has(self.${field})`,
    message: `${field} is required when source is ${source}`,
    fieldPath: `.${field}`,
  })),
);

const AlertFields = z.object({
  name: z
    .string()
    .min(1)
    .max(ALERT_NAME_MAX)
    .describe(
      `The alert name in the cloud, up to ${ALERT_NAME_MAX} characters. Required here (the API makes it optional): sluice finds an alert whose create answer was lost by its name.`,
    ),
  message: z
    .string()
    .max(ALERT_MESSAGE_MAX)
    .optional()
    .describe(`The notification text, up to ${ALERT_MESSAGE_MAX} characters.`),
  threshold: z.number().describe('The value the observed one is compared with.'),
  thresholdType: z
    .enum(ALERT_THRESHOLD_TYPES)
    .describe('Whether the alert fires above or below the threshold.'),
  interval: z.enum(ALERT_INTERVALS).describe(`How often it is evaluated: ${ALERT_INTERVALS.join(', ')}.`),
  source: z
    .enum(ALERT_SOURCES)
    .describe('What is watched: a dashboard tile (dashboardId, tileId) or a saved search (savedSearchId).'),
  channel: z
    .object({
      type: z.enum(ALERT_CHANNEL_TYPES).describe('The channel type; webhook is the only one.'),
      webhookId: id('The webhook notified when the alert fires.'),
    })
    .describe('Where notifications go.'),
  dashboardId: id('The dashboard of the tile (source tile).').optional(),
  tileId: id('The tile watched (source tile).').optional(),
  savedSearchId: id('The saved search watched (source search).').optional(),
  groupBy: id('The field a saved search is grouped by (source search).').optional(),
  ...managedSpecFields('Delete'),
});

/** The fields a field policy may name, those the cloud fixes at creation and the shared lists. */
export const ALERT_POLICY = policyFields(AlertFields, { fixed: [] });

export const AlertSpec = withRules(
  AlertFields.extend({ fieldPolicy: fieldPolicySchema('Alert', ALERT_POLICY) }).describe(
    'The desired alert.',
  ),
  ...sourceRules,
);
export type AlertSpec = z.infer<typeof AlertSpec>;

const STATE = `The evaluator's state: ${ALERT_STATES.join(', ')}. A firing alert (ALERT) is still Ready: it is working.`;

export const AlertStatus = z
  .object({
    ...managedStatusFields,
    state: z.string().max(64).optional().describe(STATE),
    team: z.string().max(253).optional().describe('The team the alert belongs to.'),
    silenced: z.boolean().optional().describe('Whether notifications are silenced.'),
    createdAt: z.string().max(64).optional().describe('When the cloud created the alert (ISO 8601).'),
    updatedAt: z.string().max(64).optional().describe('When the cloud last changed the alert (ISO 8601).'),
  })
  .describe('What sluice last observed of the alert.');
export type AlertStatus = z.infer<typeof AlertStatus>;

/** An Alert object as the operator reads it. */
export interface Alert extends ManagedObject {
  spec: AlertSpec;
  status?: AlertStatus;
}

export const alertSchema = defineKind<Alert>({
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
});
