// The Webhook's mapping between spec and cloud, pure: the create and update body (`webhookBody`), the cloud
// webhook in the spec's terms (`observedWebhook`), the differences (`diffWebhook`), the status
// (`webhookStatus`) and the export mapping (`exportWebhook`).
import { isDeepStrictEqual } from 'node:util';
import { NAMED, webhookSecretUses, type WebhookSpec } from './schema.ts';
import type { WebhookBody } from '../../cloud/alerting-client.ts';
import { requestBody } from '../../cloud/request-body.ts';
import { WebhookRequest, type Webhook } from '../../cloud/schemas/clickstack.ts';
import { splitOwnerLine, withOwnerLine } from '../shared/owner-note.ts';

type Named = (typeof NAMED)[number];

/** The fields the cloud shows, compared as they are. */
const SHOWN = ['name', 'service', 'description', 'body'] as const;

/** A Secret field's value, by the field the spec names it under. */
export type SecretValues = (field: string) => Readonly<Record<string, string>> | undefined;

function secretValue(values: SecretValues, field: string, key: string): string {
  const value = values(field)?.[key];
  if (value === undefined) throw new Error(`the Secret values of ${field} were not resolved`);
  return value;
}

/**
 * The create and update body: every field, the owner `record` on the last line of the description. The update
 * always carries the headers and query parameters (`{}` when none): the cloud never shows them, and an update
 * that moves the URL clears those it does not carry.
 */
export function webhookBody(spec: WebhookSpec, values: SecretValues, record: string): WebhookBody {
  const named = (list: Named) =>
    Object.fromEntries(
      (spec[list] ?? []).map(({ name, secretKeyRef }) => [
        name,
        secretValue(values, `${list}.${name}`, secretKeyRef.key),
      ]),
    );
  return requestBody(WebhookRequest, {
    name: spec.name,
    service: spec.service,
    url: secretValue(values, 'url', spec.url.secretKeyRef.key),
    description: withOwnerLine(spec.description, record),
    ...(spec.body === undefined ? {} : { body: spec.body }),
    ...(spec.service === 'slack' ? {} : { headers: named('headers'), queryParams: named('queryParams') }),
  });
}

/** The cloud webhook in the spec's terms: what it shows (never the URL: it may hold a token). */
export function observedWebhook(webhook: Webhook): Partial<Record<(typeof SHOWN)[number], unknown>> {
  const { text } = splitOwnerLine(webhook.description);
  const shown: Record<string, unknown> = { ...webhook, description: text };
  return Object.fromEntries(SHOWN.filter((field) => shown[field] !== undefined).map((f) => [f, shown[f]]));
}

/** The record the webhook's description holds. */
export const webhookOwner = (webhook: Webhook) => splitOwnerLine(webhook.description).record;

/**
 * The fields to send again: those the cloud shows that differ, `url` when the Secret's URL is not the cloud's,
 * and `headers`/`queryParams` when one of their Secrets changed or one was removed from the spec (`sent`: the
 * Secret fields last sent, from status).
 */
export function diffWebhook(
  spec: WebhookSpec,
  webhook: Webhook,
  values: SecretValues,
  rotated: ReadonlySet<string>,
  sent: readonly string[],
): string[] {
  const observed = observedWebhook(webhook);
  const differences: string[] = SHOWN.filter((field) => !isDeepStrictEqual(spec[field], observed[field]));
  if (values('url')?.[spec.url.secretKeyRef.key] !== webhook.url) differences.push('url');
  const wanted = new Set(webhookSecretUses(spec).map((use) => use.field));
  for (const list of NAMED) {
    const changed = [...rotated].some((field) => field.startsWith(`${list}.`));
    const removed = sent.some((field) => field.startsWith(`${list}.`) && !wanted.has(field));
    if (changed || removed) differences.push(list);
  }
  return differences;
}

export function webhookStatus(webhook: Webhook): Record<string, unknown> {
  const { service, createdAt, updatedAt } = webhook;
  return Object.fromEntries(
    Object.entries({ service, createdAt, updatedAt }).filter(([, value]) => value !== undefined),
  );
}

/** The Secret an exported webhook's URL is read from: the user creates it. */
export const urlSecretName = (manifestName: string) => `${manifestName}-webhook`;

/**
 * The spec that adopts a webhook as it is; its URL goes in a Secret the user creates (key `url`). Headers and
 * query parameters cannot be exported: the cloud never shows them.
 */
export function exportWebhook(webhook: Webhook, manifestName: string): { spec: Record<string, unknown> } {
  return {
    spec: {
      ...observedWebhook(webhook),
      url: { secretKeyRef: { name: urlSecretName(manifestName), key: 'url' } },
    },
  };
}
