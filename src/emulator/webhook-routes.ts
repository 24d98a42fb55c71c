/**
 * Webhooks: list (paged), create, update, delete. There is no GET by id: a reader lists. `headers` and
 * `queryParams` are write-only. A webhook's (service, name) is unique in the team. A delete while an alert
 * notifies the webhook answers 409 naming the alerts.
 */
import { PageQuery, WebhookRequest } from '../cloud/schemas/clickstack.ts';
import { newObjectId } from './alerting-routes.ts';
import { idOf, serveBoth } from './clickstack-kit.ts';
import type { App, EmulatorContext } from './context.ts';
import { badRequest, conflict, invalid, notFound } from './errors.ts';
import type { WebhookRecord } from './store.ts';

const WEBHOOKS = '/webhooks';

/** What a read shows: never the write-only headers and query parameters; `body` only for generic webhooks. */
export function webhookView(webhook: WebhookRecord) {
  const { headers: _headers, queryParams: _queryParams, body, ...view } = webhook;
  return { ...view, ...(webhook.service === 'generic' && body !== undefined ? { body } : {}) };
}

export function registerWebhookRoutes(app: App, ctx: EmulatorContext): void {
  const { store } = ctx;

  function requireWebhook(id: string): WebhookRecord {
    const webhook = store.webhooks.get(id);
    if (!webhook) throw notFound('Webhook not found');
    return webhook;
  }

  function requireUniqueName(body: WebhookRequest, except?: string): void {
    for (const other of store.webhooks.values())
      if (other.id !== except && other.service === body.service && other.name === body.name)
        throw badRequest(
          `name ${body.name} is already used by a ${body.service} webhook (unique per service)`,
        );
  }

  serveBoth(app, ctx, 'get', WEBHOOKS, (request) => {
    const page = PageQuery.safeParse(request.query ?? {});
    if (!page.success) throw invalid(page.error);
    const all = [...store.webhooks.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
    const { limit, offset } = page.data;
    return {
      data: all.slice(offset, offset + limit).map(webhookView),
      meta: { total: all.length, limit, offset },
    };
  });

  serveBoth(
    app,
    ctx,
    'post',
    WEBHOOKS,
    (request) => {
      const body = request.body as WebhookRequest;
      requireUniqueName(body);
      const now = ctx.timestamp();
      const webhook: WebhookRecord = { id: newObjectId(), ...body, createdAt: now, updatedAt: now };
      store.webhooks.set(webhook.id, webhook);
      ctx.changed();
      return { data: webhookView(webhook) };
    },
    WebhookRequest,
  );

  // Readable optional fields are replaced (omitted: cleared); the write-only ones kept when omitted, cleared by
  // `{}`, and cleared when omitted on a change of destination (url or service).
  serveBoth(
    app,
    ctx,
    'put',
    `${WEBHOOKS}/:id`,
    (request) => {
      const current = requireWebhook(idOf(request));
      const body = request.body as WebhookRequest;
      requireUniqueName(body, current.id);
      const moved = body.url !== current.url || body.service !== current.service;
      const secret = (field: 'headers' | 'queryParams') => {
        const sent = body[field];
        if (sent === undefined) return moved ? undefined : current[field];
        return Object.keys(sent).length === 0 ? undefined : sent;
      };
      const webhook: WebhookRecord = {
        id: current.id,
        name: body.name,
        service: body.service,
        url: body.url,
        ...(body.description === undefined ? {} : { description: body.description }),
        ...(body.body === undefined ? {} : { body: body.body }),
        ...definedOnly({ headers: secret('headers'), queryParams: secret('queryParams') }),
        createdAt: current.createdAt,
        updatedAt: ctx.timestamp(),
      };
      store.webhooks.set(webhook.id, webhook);
      ctx.changed();
      return { data: webhookView(webhook) };
    },
    WebhookRequest,
  );

  serveBoth(app, ctx, 'delete', `${WEBHOOKS}/:id`, (request) => {
    const webhook = requireWebhook(idOf(request));
    const users = store.alertsOfWebhook(webhook.id);
    if (users.length > 0)
      throw conflict(
        `webhook ${webhook.id} is used by ${users.length} alert(s): ${users.map((alert) => alert.id).join(', ')}`,
      );
    store.webhooks.delete(webhook.id);
    ctx.changed();
    return { empty: true };
  });
}

function definedOnly<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}
