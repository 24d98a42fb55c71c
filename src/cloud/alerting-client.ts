import { z } from 'zod';
import { codeForStatus } from './errors.ts';
import { CloudClient } from './cloud-client.ts';
import { type CallOptions, type ClientOptions, HttpCore } from './http.ts';
import { ALERTING_QUOTA, quotaKey } from './quota.ts';
import { Alert, type AlertRequest } from './schemas/alert.ts';
import {
  Dashboard,
  DashboardValidation,
  SavedSearch,
  Source,
  Webhook,
  WEBHOOK_PAGE_MAX,
  type DashboardRequest,
  type SavedSearchRequest,
  type SourceRequest,
  type WebhookRequest,
} from './schemas/clickstack.ts';
import { type Dialect, parseJson } from './responses.ts';
import { AlertingErrorBody, alertingEnvelope } from './schemas/common.ts';

export interface AlertingConfig {
  /** The alerting API's base URL (`{alerts_url}`); the emulator serves it on its own URL. */
  baseUrl: string;
  /** Bearer token. */
  token: string;
}

export type AlertBody = z.input<typeof AlertRequest>;
export type WebhookBody = z.input<typeof WebhookRequest>;
export type SavedSearchBody = z.input<typeof SavedSearchRequest>;
export type DashboardBody = z.input<typeof DashboardRequest>;
export type SourceBody = z.input<typeof SourceRequest>;

const ALERTS = '/api/v2/alerts';
const ALERT = `${ALERTS}/:id`;
const WEBHOOKS = '/api/v2/webhooks';
const SAVED_SEARCHES = '/api/v2/saved-searches';
const DASHBOARDS = '/api/v2/dashboards';
const SOURCES = '/api/v2/sources';

/** Route patterns of the alerting API (as the emulator's call log names them). */
export const ALERTING_ROUTES = {
  alerts: ALERTS,
  alert: ALERT,
  webhooks: WEBHOOKS,
  webhook: `${WEBHOOKS}/:id`,
  savedSearches: SAVED_SEARCHES,
  savedSearch: `${SAVED_SEARCHES}/:id`,
  dashboards: DASHBOARDS,
  dashboard: `${DASHBOARDS}/:id`,
  dashboardValidate: `${DASHBOARDS}/validate`,
  sources: SOURCES,
  source: `${SOURCES}/:id`,
} as const;

/** One page of the webhooks list: `{data}` and its paging (`meta`, whose `total` counts every webhook). */
const WebhookPage = z.looseObject({
  data: z.array(Webhook),
  meta: z.looseObject({ total: z.number().int().nonnegative() }).optional(),
});

const EnvelopeOfUnknown = alertingEnvelope(z.unknown());

/** `{data}` successes; `{message}` errors (401 is plain text), so the code comes from the status. */
export const alertingDialect: Dialect = {
  api: 'alerting',
  unwrap(body) {
    const parsed = EnvelopeOfUnknown.safeParse(body);
    if (!parsed.success || !('data' in parsed.data)) return { ok: false, problem: 'not a {data} envelope' };
    return { ok: true, value: parsed.data.data };
  },
  describeError(status, text) {
    const body = AlertingErrorBody.safeParse(parseJson(text));
    const message = body.success ? body.data.message : text.trim().slice(0, 500) || `HTTP ${status}`;
    return { code: codeForStatus(status), message };
  },
};

/** The alerting API (v2): create (contract) plus list, get, replace and delete (extensions). */
export class AlertingClient extends CloudClient {
  constructor(config: AlertingConfig, options: ClientOptions = {}) {
    super(
      new HttpCore(
        {
          dialect: alertingDialect,
          baseUrl: config.baseUrl,
          authorization: `Bearer ${config.token}`,
          secrets: [config.token],
          quotaKey: quotaKey('alerting', config.baseUrl, { token: config.token }),
          defaultQuota: ALERTING_QUOTA,
        },
        options,
      ),
    );
  }

  /** Operation 10. NOT idempotent: after an `AmbiguousRequestError` list (match by name) before creating again. */
  createAlert(body: AlertBody, options?: CallOptions): Promise<Alert> {
    return this.call({ method: 'POST', route: ALERTS, body, schema: Alert }, options);
  }

  /** Extension. */
  getAlert(alertId: string, options?: CallOptions): Promise<Alert> {
    return this.call({ method: 'GET', route: ALERT, params: { id: alertId }, schema: Alert }, options);
  }

  /** Extension. */
  listAlerts(options?: CallOptions): Promise<Alert[]> {
    return this.call({ method: 'GET', route: ALERTS, schema: z.array(Alert) }, options);
  }

  /** Extension: replaces the whole alert (omitted optional fields are cleared; state is kept). */
  replaceAlert(alertId: string, body: AlertBody, options?: CallOptions): Promise<Alert> {
    return this.call({ method: 'PUT', route: ALERT, params: { id: alertId }, body, schema: Alert }, options);
  }

  /** Extension; answers `{}`. */
  async deleteAlert(alertId: string, options?: CallOptions): Promise<void> {
    await this.call(
      { method: 'DELETE', route: ALERT, params: { id: alertId }, schema: z.unknown(), envelope: false },
      options,
    );
  }

  /**
   * Every webhook: the list is paged (up to 1000 a page), so the pages are followed, each one call, until the
   * total the first says, or a short page, is read. There is no GET by id. A webhook made or deleted between
   * two pages shifts the later ones: one may show twice (kept once) or be missed (a reader that misses an id
   * lists again).
   */
  async listWebhooks(options?: CallOptions): Promise<Webhook[]> {
    const webhooks = new Map<string, Webhook>();
    for (let offset = 0; ;) {
      const query = [
        ['limit', String(WEBHOOK_PAGE_MAX)],
        ['offset', String(offset)],
      ] as const;
      const page = await this.call(
        { method: 'GET', route: WEBHOOKS, query, schema: WebhookPage, envelope: false },
        options,
      );
      for (const webhook of page.data) webhooks.set(webhook.id, webhook);
      offset += page.data.length;
      const total = page.meta?.total;
      const more = total === undefined ? page.data.length === WEBHOOK_PAGE_MAX : offset < total;
      if (page.data.length === 0 || !more) return [...webhooks.values()];
    }
  }

  /** NOT idempotent. `headers` and `queryParams` are write-only. */
  createWebhook(body: WebhookBody, options?: CallOptions): Promise<Webhook> {
    return this.call({ method: 'POST', route: WEBHOOKS, body, schema: Webhook }, options);
  }

  /** Omitted `headers`/`queryParams` are kept unless `url` or `service` changes. */
  updateWebhook(id: string, body: WebhookBody, options?: CallOptions): Promise<Webhook> {
    const route = ALERTING_ROUTES.webhook;
    return this.call({ method: 'PUT', route, params: { id }, body, schema: Webhook }, options);
  }

  /** 409 while an alert notifies the webhook. */
  async deleteWebhook(id: string, options?: CallOptions): Promise<void> {
    const route = ALERTING_ROUTES.webhook;
    await this.call(
      { method: 'DELETE', route, params: { id }, schema: z.unknown(), envelope: false },
      options,
    );
  }

  listSavedSearches(options?: CallOptions): Promise<SavedSearch[]> {
    return this.call({ method: 'GET', route: SAVED_SEARCHES, schema: z.array(SavedSearch) }, options);
  }

  getSavedSearch(id: string, options?: CallOptions): Promise<SavedSearch> {
    const route = ALERTING_ROUTES.savedSearch;
    return this.call({ method: 'GET', route, params: { id }, schema: SavedSearch }, options);
  }

  createSavedSearch(body: SavedSearchBody, options?: CallOptions): Promise<SavedSearch> {
    return this.call({ method: 'POST', route: SAVED_SEARCHES, body, schema: SavedSearch }, options);
  }

  /** Replaces it whole. */
  replaceSavedSearch(id: string, body: SavedSearchBody, options?: CallOptions): Promise<SavedSearch> {
    const route = ALERTING_ROUTES.savedSearch;
    return this.call({ method: 'PUT', route, params: { id }, body, schema: SavedSearch }, options);
  }

  /** Deletes the alerts on it too. */
  async deleteSavedSearch(id: string, options?: CallOptions): Promise<void> {
    const route = ALERTING_ROUTES.savedSearch;
    await this.call(
      { method: 'DELETE', route, params: { id }, schema: z.unknown(), envelope: false },
      options,
    );
  }

  listDashboards(options?: CallOptions): Promise<Dashboard[]> {
    return this.call({ method: 'GET', route: DASHBOARDS, schema: z.array(Dashboard) }, options);
  }

  getDashboard(id: string, options?: CallOptions): Promise<Dashboard> {
    const route = ALERTING_ROUTES.dashboard;
    return this.call({ method: 'GET', route, params: { id }, schema: Dashboard }, options);
  }

  createDashboard(body: DashboardBody, options?: CallOptions): Promise<Dashboard> {
    return this.call({ method: 'POST', route: DASHBOARDS, body, schema: Dashboard }, options);
  }

  /** Replaces it whole: a tile sent without its id gets a new one, and the alerts of a tile not sent go. */
  replaceDashboard(id: string, body: DashboardBody, options?: CallOptions): Promise<Dashboard> {
    const route = ALERTING_ROUTES.dashboard;
    return this.call({ method: 'PUT', route, params: { id }, body, schema: Dashboard }, options);
  }

  async deleteDashboard(id: string, options?: CallOptions): Promise<void> {
    const route = ALERTING_ROUTES.dashboard;
    await this.call(
      { method: 'DELETE', route, params: { id }, schema: z.unknown(), envelope: false },
      options,
    );
  }

  /** Stores nothing: the verdict, answered bare (no `{data}`). */
  validateDashboard(body: DashboardBody, options?: CallOptions): Promise<DashboardValidation> {
    const route = ALERTING_ROUTES.dashboardValidate;
    return this.call(
      {
        method: 'POST',
        route,
        body,
        schema: DashboardValidation,
        envelope: false,
        idempotent: true,
        storesNothing: true,
      },
      options,
    );
  }

  listSources(options?: CallOptions): Promise<Source[]> {
    return this.call({ method: 'GET', route: SOURCES, schema: z.array(Source) }, options);
  }

  getSource(id: string, options?: CallOptions): Promise<Source> {
    return this.call(
      { method: 'GET', route: ALERTING_ROUTES.source, params: { id }, schema: Source },
      options,
    );
  }

  createSource(body: SourceBody, options?: CallOptions): Promise<Source> {
    return this.call({ method: 'POST', route: SOURCES, body, schema: Source }, options);
  }

  replaceSource(id: string, body: SourceBody, options?: CallOptions): Promise<Source> {
    const route = ALERTING_ROUTES.source;
    return this.call({ method: 'PUT', route, params: { id }, body, schema: Source }, options);
  }

  async deleteSource(id: string, options?: CallOptions): Promise<void> {
    const route = ALERTING_ROUTES.source;
    await this.call(
      { method: 'DELETE', route, params: { id }, schema: z.unknown(), envelope: false },
      options,
    );
  }
}
