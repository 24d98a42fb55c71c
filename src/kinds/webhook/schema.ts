import { z } from 'zod';
import type { ManagedObject, SecretUse } from '../../managed/index.ts';
import { OBJECT_NAME_MAX, SLACK_REFUSES, WEBHOOK_SERVICES } from '../../cloud/schemas/clickstack.ts';
import {
  managedSpecFields,
  managedStatusFields,
  ObjectName,
  secretRecordStatusFields,
} from '../shared/common.ts';
import { fieldPolicySchema, policyFields } from '../shared/field-policy.ts';
import { withRules, type CelRule } from '../shared/meta.ts';

// The spec is the webhook body of the alerting API under the same names, but for what may hold a token: the URL
// and every header and query parameter value come from a Secret (`secretKeyRef`), so no token is ever in a
// manifest, in status, an Event, a plan or an export.

export const SecretKeyRef = z
  .object({
    name: ObjectName.describe('A Secret in this namespace.'),
    key: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[-._a-zA-Z0-9]+$/)
      .describe('The key of the Secret that holds the value.'),
  })
  .describe('A key of a Secret in this namespace.');

const FromSecret = z.object({ secretKeyRef: SecretKeyRef });

const namedValues = (what: string) =>
  z
    .array(
      z
        .object({
          name: z.string().min(1).max(256).describe(`The ${what}'s name.`),
          secretKeyRef: SecretKeyRef.describe(`The Secret key that holds the ${what}'s value.`),
        })
        .describe(`One ${what}.`),
    )
    .max(50)
    .optional();

/** A slack webhook takes its URL alone: the fields it refuses, one rule each. */
const slackRules: CelRule[] = SLACK_REFUSES.map((field) => ({
  rule: `self.service != 'slack' || !has(self.${field})`,
  message: `${field} is not allowed for the slack service`,
  fieldPath: `.${field}`,
}));

const WebhookFields = z.object({
  name: z.string().min(1).max(OBJECT_NAME_MAX).describe('The webhook name in the cloud: unique per service.'),
  service: z.enum(WEBHOOK_SERVICES).describe(`Where it posts: ${WEBHOOK_SERVICES.join(', ')}.`),
  url: FromSecret.describe(
    'The URL the webhook posts to, from a Secret: a slack or incident.io URL holds its token.',
  ),
  description: z.string().max(2048).optional().describe('Shown in the alerting console.'),
  body: z
    .string()
    .max(100_000)
    .optional()
    .describe('The request body template (generic and incidentio; not slack).'),
  headers: namedValues('header').describe(
    'HTTP headers sent with each notification, each value from a Secret (not slack). The cloud never shows them.',
  ),
  queryParams: namedValues('query parameter').describe(
    'Query parameters added to the URL, each value from a Secret (not slack). The cloud never shows them.',
  ),
  ...managedSpecFields('Delete'),
});

/**
 * The fields a field policy may name: none is fixed at creation (the update replaces every field); the URL,
 * the headers and the query parameters come from Secrets and are never read back (the cloud never shows
 * headers and query parameters, and the URL may hold a token), so no policy may leave them to the cloud.
 */
export const WEBHOOK_POLICY = policyFields(WebhookFields, {
  fixed: [],
  unread: ['url', 'headers', 'queryParams'],
});

export const WebhookSpec = withRules(
  WebhookFields.extend({ fieldPolicy: fieldPolicySchema('Webhook', WEBHOOK_POLICY) }).describe(
    'The desired webhook.',
  ),
  ...slackRules,
);
export type WebhookSpec = z.infer<typeof WebhookSpec>;

export const WebhookStatus = z
  .object({
    ...managedStatusFields,
    ...secretRecordStatusFields,
    service: z.string().max(64).optional().describe('The service the cloud records.'),
    createdAt: z.string().max(64).optional().describe('When the cloud created the webhook (ISO 8601).'),
    updatedAt: z.string().max(64).optional().describe('When the cloud last changed the webhook (ISO 8601).'),
  })
  .describe('What sluice last observed of the webhook (never its URL, headers or query parameters).');
export type WebhookStatus = z.infer<typeof WebhookStatus>;

/** A Webhook object as the operator reads it. */
export interface Webhook extends ManagedObject {
  spec: WebhookSpec;
  status?: WebhookStatus;
}

/** The spec's named values (headers, query parameters): Secret fields `headers.<name>`. */
export const NAMED = ['headers', 'queryParams'] as const;

/** Each value that comes from a Secret: the URL, and every header and query parameter. */
export function webhookSecretUses(spec: WebhookSpec): SecretUse[] {
  const uses: SecretUse[] = [
    { field: 'url', secretName: spec.url.secretKeyRef.name, keys: [spec.url.secretKeyRef.key] },
  ];
  for (const list of NAMED)
    for (const { name, secretKeyRef } of spec[list] ?? [])
      uses.push({ field: `${list}.${name}`, secretName: secretKeyRef.name, keys: [secretKeyRef.key] });
  return uses;
}
