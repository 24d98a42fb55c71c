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
import { LocalObjectReference, managedSpecFields, managedStatusFields } from '../shared/common.ts';
import { fieldPolicySchema, policyFields } from '../shared/field-policy.ts';
import { withRules, type CelRule } from '../shared/meta.ts';
import type { ReferenceDeclaration } from '../../managed/index.ts';

// The spec is the alert creation body of the alerting API under the same names. Every field can change: an
// update replaces the whole alert (PUT), so nothing is fixed at creation.

const id = (description: string) => z.string().min(1).max(1024).describe(description);

/** The field a reference stands in for, by the id field it replaces. */
const BY_REFERENCE = {
  dashboardId: 'dashboardRef',
  tileId: 'tile',
  savedSearchId: 'savedSearchRef',
} as const;

/**
 * What each source watches, by reference to a sluice object or by cloud id: `source: tile` needs a dashboard
 * (dashboardRef or dashboardId) and a tile of it (tile, the tile's name in the Dashboard's spec, with
 * dashboardRef; tileId with dashboardId); `source: search` a saved search (savedSearchRef or savedSearchId).
 * One rule per field, and never both ways at once.
 */
const sourceRules: CelRule[] = [
  ...Object.entries(ALERT_SOURCE_FIELDS).flatMap(([source, fields]) =>
    fields.map((field) => {
      const ref = BY_REFERENCE[field];
      return {
        rule: `self.source != '${source}' || has(self.${field}) || has(self.${ref})`,
        message: `${field} or ${ref} is required when source is ${source}`,
        fieldPath: `.${field}`,
      };
    }),
  ),
  ...Object.entries(BY_REFERENCE).map(([field, ref]) => ({
    rule: `!(has(self.${field}) && has(self.${ref}))`,
    message: `${field} and ${ref} are two ways of naming the same thing: set one`,
    fieldPath: `.${ref}`,
  })),
  {
    rule: 'has(self.dashboardRef) == has(self.tile)',
    message: 'tile goes with dashboardRef',
    fieldPath: '.tile',
  },
  {
    rule: 'has(self.channel.webhookId) != has(self.channel.webhookRef)',
    message: 'exactly one of channel.webhookId and channel.webhookRef must be set',
    fieldPath: '.channel.webhookRef',
  },
];

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
      webhookRef: LocalObjectReference.optional().describe(
        'The Webhook (in this namespace) notified when the alert fires: the alert waits for it, and it is not deleted while the alert is there. Exactly one of webhookRef and webhookId.',
      ),
      webhookId: id('The cloud id of a webhook sluice does not manage, instead of webhookRef.').optional(),
    })
    .describe('Where notifications go.'),
  dashboardRef: LocalObjectReference.optional().describe(
    'The Dashboard (in this namespace) of the tile watched (source tile), with tile; instead of dashboardId.',
  ),
  tile: z
    .string()
    .min(1)
    .max(1024)
    .optional()
    .describe(
      "The watched tile's name in the Dashboard's spec (with dashboardRef): its id is the Dashboard's.",
    ),
  dashboardId: id('The cloud id of the dashboard of the tile (source tile), with tileId.').optional(),
  tileId: id('The cloud id of the tile watched (source tile), with dashboardId.').optional(),
  savedSearchRef: LocalObjectReference.optional().describe(
    'The SavedSearch (in this namespace) watched (source search); instead of savedSearchId.',
  ),
  savedSearchId: id('The cloud id of the saved search watched (source search).').optional(),
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
    webhookId: z.string().max(64).optional().describe('The cloud id of the webhook it notifies.'),
    savedSearchId: z.string().max(64).optional().describe('The cloud id of the saved search it watches.'),
    dashboardId: z.string().max(64).optional().describe('The cloud id of the dashboard of its tile.'),
  })
  .describe('What sluice last observed of the alert.');
export type AlertStatus = z.infer<typeof AlertStatus>;

/**
 * What an alert hangs on, when named by reference: it waits for each to exist in the cloud, and a Webhook,
 * SavedSearch or Dashboard with `deletionPolicy: Delete` is not deleted while an Alert names it.
 */
const reference = <K extends string>(
  name: string,
  kind: K,
  objectName: (spec: AlertSpec) => string | undefined,
  plainId: (spec: AlertSpec) => string | undefined,
  statusField: string,
): ReferenceDeclaration<Alert> => ({
  name,
  kind,
  objectName: (alert) => objectName(alert.spec),
  plainId: (alert) => plainId(alert.spec),
  statusField,
});

export const ALERT_REFERENCES: ReferenceDeclaration<Alert>[] = [
  reference(
    'webhook',
    'Webhook',
    (s) => s.channel.webhookRef?.name,
    (s) => s.channel.webhookId,
    'webhookId',
  ),
  reference(
    'savedSearch',
    'SavedSearch',
    (s) => s.savedSearchRef?.name,
    (s) => s.savedSearchId,
    'savedSearchId',
  ),
  reference(
    'dashboard',
    'Dashboard',
    (s) => s.dashboardRef?.name,
    (s) => s.dashboardId,
    'dashboardId',
  ),
];

/** An Alert object as the operator reads it. */
export interface Alert extends ManagedObject {
  spec: AlertSpec;
  status?: AlertStatus;
}
