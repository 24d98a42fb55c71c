import { describe, expect, it } from 'vitest';
import { webhookKind } from '../../../../src/kinds/webhook/kind.ts';
import { WEBHOOK_POLICY, type WebhookSpec } from '../../../../src/kinds/webhook/schema.ts';
import {
  diffWebhook,
  observedWebhook,
  webhookBody,
  type SecretValues,
} from '../../../../src/kinds/webhook/mapping.ts';
import { applyFieldPolicy } from '../../../../src/managed/field-policy.ts';
import { driftRecorded } from '../../../../src/managed/drift-status.ts';
import type { Webhook } from '../../../../src/cloud/schemas/clickstack.ts';

const URL_NOW = 'https://hooks.example.com/services/new-token-77';
const spec: WebhookSpec = {
  name: 'on-call',
  service: 'generic',
  url: { secretKeyRef: { name: 'hook', key: 'url' } },
  description: 'pages',
  headers: [{ name: 'Authorization', secretKeyRef: { name: 'hook', key: 'authorization' } }],
  deletionPolicy: 'Delete',
} as WebhookSpec;
/** The cloud's webhook: made with the URL before the Secret was rotated. */
const cloud = {
  id: 'wh-1',
  name: 'on-call',
  service: 'generic',
  url: 'https://hooks.example.com/services/old-token-12',
  description: 'pages',
} as Webhook;
const SECRET_VALUES: Record<string, Record<string, string>> = {
  url: { url: URL_NOW },
  'headers.Authorization': { authorization: 'Bearer new-token-77' },
};
const values: SecretValues = (field) => SECRET_VALUES[field];

const reportAll = { metadata: { annotations: { 'sluice.dev/drift': 'report' } }, spec };

describe('a Webhook under sluice.dev/drift: report', () => {
  it('reports a URL the Secret changed as drift with no cloud value, and sends nothing', () => {
    const outcome = applyFieldPolicy(reportAll, WEBHOOK_POLICY, observedWebhook(cloud), (policed) => ({
      differences: diffWebhook(policed, cloud, values, new Set(['headers.Authorization']), []),
      spec: policed,
    }));
    expect(outcome.differences).toEqual([]);
    expect(outcome.drift.map((d) => d.path).sort()).toEqual(['headers', 'url']);
    // The body a correction of another field would carry is still made from the spec's Secrets.
    expect(webhookBody(outcome.judgement.spec, values, 'owner').url).toBe(URL_NOW);
    const recorded = driftRecorded({}, outcome.drift, undefined, new Date(0));
    const shown = JSON.stringify(recorded);
    expect(shown).not.toContain('token');
    expect(recorded.set?.drift).toEqual([
      expect.objectContaining({ path: 'url', observed: '(sensitive)' }),
      expect.objectContaining({ path: 'headers', observed: '(sensitive)' }),
    ]);
  });
});

describe('a Webhook field policy', () => {
  it.each(['url', 'url.secretKeyRef.key', 'headers', 'queryParams'])(
    'is refused on %s, a field never read back from the cloud, naming it',
    (path) => {
      for (const list of ['createOnly', 'reportOnly'] as const) {
        const parsed = webhookKind.spec.safeParse({ ...spec, fieldPolicy: { [list]: [path] } });
        expect(parsed.success).toBe(false);
        expect(parsed.error?.issues.map((issue) => issue.message)).toContain(
          `spec.fieldPolicy.${list}: ${path} is never read back from the cloud: sluice can neither keep nor report its value there`,
        );
      }
    },
  );

  it('is taken on the fields the cloud shows', () => {
    const parsed = webhookKind.spec.safeParse({
      ...spec,
      fieldPolicy: { reportOnly: ['description', 'body'] },
    });
    expect(parsed.error?.issues).toBeUndefined();
  });
});
