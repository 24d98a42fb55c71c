import { ListedAlertingClient } from '../shared/listed-alerting-client.ts';
import type { Webhook } from './schema.ts';
import type { WebhookBody } from '../../cloud/alerting-client.ts';
import type { Webhook as CloudWebhook } from '../../cloud/schemas/clickstack.ts';
import {
  type LostCreate,
  type CloudRecords,
  type ExternalClient,
  type Observed,
} from '../../managed/index.ts';
import { ignoreNotFound } from '../shared/cloud-calls.ts';
import { connectionOf, type KindController } from '../shared/sluice-kind.ts';
import { diffWebhook, observedWebhook, webhookBody, webhookOwner, webhookStatus } from './mapping.ts';

/** The Webhook controller: its cloud client, loaded by the registry only when the kind runs. */
export const webhookController: KindController<Webhook, WebhookBody> = {
  connect: (_resource, context) => connectionOf(new WebhookClient(context)),
};

/**
 * Over the alerting API's webhooks: there is no GET by id, so every read is of the list (shared by every
 * Webhook of the key). The owner is recorded on the description's last line.
 */
class WebhookClient
  extends ListedAlertingClient<CloudWebhook>
  implements ExternalClient<Webhook, WebhookBody>, CloudRecords<Webhook>
{
  protected list() {
    return this.cloud.snapshots.webhooks;
  }

  protected ownerOf(webhook: CloudWebhook) {
    return webhookOwner(webhook);
  }

  protected async fetch(id: string) {
    return (await this.cloud.alerting.listWebhooks()).find((webhook) => webhook.id === id);
  }

  /** After a crash: the webhook of this name and service, recorded as this object's, made after the intent. */
  async findCreated(resource: Webhook, lost: LostCreate | undefined): Promise<string | undefined> {
    return this.createdAfter(
      lost,
      (webhook) =>
        webhook.name === resource.spec.name &&
        webhook.service === resource.spec.service &&
        webhookOwner(webhook) === this.record,
    );
  }

  async observe(resource: Webhook, id: string): Promise<Observed<Webhook, WebhookBody>> {
    const webhook = await this.read(id);
    if (!webhook) return { exists: false };
    const { secrets } = this.context;
    const { record, unheldDifferences } = this.recordOn(resource, webhook);
    const sent = Object.keys(resource.status?.secretDigests?.fields ?? {});
    const values = (field: string) => secrets.values(field);
    return {
      exists: true,
      observed: observedWebhook(webhook),
      diff: (spec: Webhook['spec']) => ({
        differences: diffWebhook(spec, webhook, values, secrets.rotated, sent),
        plan: webhookBody(spec, values, record),
        available: true,
      }),
      unheldDifferences,
      status: webhookStatus(webhook),
    };
  }

  async create(resource: Webhook) {
    const values = (field: string) => this.context.secrets.values(field);
    const webhook = await this.cloud.alerting.createWebhook(webhookBody(resource.spec, values, this.record));
    return { externalId: webhook.id };
  }

  async update(_resource: Webhook, id: string, observation: { plan: WebhookBody }): Promise<void> {
    await this.cloud.alerting.updateWebhook(id, observation.plan);
  }

  /**
   * Alerts this cluster manages go first (they reference the webhook); an alert someone else made keeps the
   * cloud's 409, whose message names it.
   */
  async delete(_resource: Webhook, id: string): Promise<'gone'> {
    await ignoreNotFound(this.cloud.alerting.deleteWebhook(id));
    return 'gone';
  }

  /** From the key's webhooks list; the list again, fresh, when it does not show `id` (there is no GET by id). */
}
