import type { Webhook } from '../../cloud/schemas/clickstack.ts';
import { byNameThenId, ownedByCluster, plural, type OrganizationExport } from '../shared/export-step.ts';
import { exportWebhook, urlSecretName, webhookOwner } from './mapping.ts';

/**
 * Webhooks, before the alerts that name them. Their URL goes in a Secret the user creates; their headers and
 * query parameters are never shown by the cloud, so they are listed as withheld.
 */
export const webhookExport: OrganizationExport = {
  scope: 'organization',
  position: 1,
  run: async (walk) => {
    if (!walk.alerting)
      return walk.progress('webhooks not exported: no alerting token (alertsUrl and alertsToken)');
    if (walk.tags) return walk.progress('webhooks not exported: they carry no tags for --selector to match');
    const listed: Webhook[] = await walk.call(walk.alerting.listWebhooks());
    const webhooks = ownedByCluster(walk, listed, webhookOwner);
    webhooks.sort(byNameThenId((webhook) => webhook.name));
    walk.progress(`listed ${plural(webhooks.length, 'webhook')}`);
    for (const webhook of webhooks) {
      const name = walk.named('Webhook', webhook.name, webhook.id, 'webhook', (manifest) =>
        exportWebhook(webhook, manifest),
      );
      if (!name) continue;
      walk.secretToCreate({ name: urlSecretName(name), keys: ['url'], usedBy: `Webhook ${name} (url)` });
      if (webhook.service !== 'slack')
        walk.withheld(`Webhook ${name}: headers, queryParams (the cloud never shows them)`);
    }
  },
};
