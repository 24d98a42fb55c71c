import { WEBHOOK_POLICY, WebhookSpec, WebhookStatus, webhookSecretUses, type Webhook } from './schema.ts';
import { defineKind } from '../shared/descriptor.ts';
import { webhookReasons } from './reasons.ts';

/** The Webhook kind, as the registry lists it; its controller and export step are loaded on first use. */
export const webhookKind = defineKind<Webhook>({
  policyFields: WEBHOOK_POLICY,
  kind: 'Webhook',
  plural: 'webhooks',
  singular: 'webhook',
  shortNames: [],
  description:
    'A webhook of the alerting API that alerts notify (slack, incident.io or generic), managed by sluice.',
  spec: WebhookSpec,
  status: WebhookStatus,
  printerColumns: [{ name: 'Service', type: 'string', jsonPath: '.spec.service' }],
  reasons: webhookReasons,
  secretReferences: (resource) => webhookSecretUses(resource.spec),
  driftReads: () => [{ api: 'alerting', list: 'webhooks' }],
  exportStep: () => import('./export.ts').then((module) => module.webhookExport),
  controller: () => import('./controller.ts').then((module) => module.webhookController),
});
