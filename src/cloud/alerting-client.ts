import { z } from 'zod';
import { codeForStatus } from './errors.ts';
import { CloudClient } from './cloud-client.ts';
import { type CallOptions, type ClientOptions, HttpCore } from './http.ts';
import { ALERTING_QUOTA, quotaKey } from './quota.ts';
import { Alert, type AlertRequest } from './schemas/alert.ts';
import { type Dialect, parseJson } from './responses.ts';
import { AlertingErrorBody, alertingEnvelope } from './schemas/common.ts';

export interface AlertingConfig {
  /** The alerting API's base URL (`{alerts_url}`); the emulator serves it on its own URL. */
  baseUrl: string;
  /** Bearer token. */
  token: string;
}

export type AlertBody = z.input<typeof AlertRequest>;

const ALERTS = '/api/v2/alerts';
const ALERT = `${ALERTS}/:id`;

/** Route patterns of the alerting API (as the emulator's call log names them). */
export const ALERTING_ROUTES = { alerts: ALERTS, alert: ALERT } as const;

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
}
