/** The alerting API (v2): alerts create, list, get, replace, delete. Success `{data}`, errors `{message}`. */
import { randomBytes } from 'node:crypto';
import { AlertRequest } from '../cloud/schemas/alert.ts';
import type { App, EmulatorContext } from './context.ts';
import { notFound } from './errors.ts';
import type { AlertRecord } from './store.ts';
import { alertView } from './views.ts';

const ALERTS = '/api/v2/alerts';
const alerting = { config: { api: 'alerting' as const } };

/** Alert ids look like the real service's: 24 hex digits (an object id). */
export const newObjectId = () => randomBytes(12).toString('hex');

/** The fields a request sets; everything else (id, state, team, silenced, createdAt) belongs to the alert. */
function fromRequest(body: AlertRequest) {
  return {
    name: body.name,
    message: body.message,
    threshold: body.threshold,
    interval: body.interval,
    thresholdType: body.thresholdType,
    source: body.source,
    channel: { ...body.channel },
    tileId: body.tileId,
    dashboard: body.dashboardId,
    savedSearch: body.savedSearchId,
    groupBy: body.groupBy,
    scheduleStartAt: body.scheduleStartAt ?? null,
    scheduleOffsetMinutes: body.scheduleOffsetMinutes,
    numConsecutiveWindows: body.numConsecutiveWindows,
    thresholdMax: body.thresholdMax,
    note: body.note,
  };
}

export function registerAlertingRoutes(app: App, ctx: EmulatorContext): void {
  const { store } = ctx;

  function requireAlert(id: string): AlertRecord {
    const alert = store.alerts.get(id);
    if (!alert) throw notFound(`alert ${id} does not exist`);
    return alert;
  }

  app.post(ALERTS, { ...alerting, schema: { body: AlertRequest } }, (request) => {
    const now = ctx.timestamp();
    const alert: AlertRecord = {
      id: newObjectId(),
      ...fromRequest(request.body),
      state: 'OK',
      team: ctx.teamId,
      silenced: false,
      createdAt: now,
      updatedAt: now,
    };
    store.alerts.set(alert.id, alert);
    ctx.changed();
    return { data: alertView(alert) };
  });

  app.get(ALERTS, alerting, () => ({ data: [...store.alerts.values()].map(alertView) }));

  app.get(`${ALERTS}/:id`, alerting, (request) => {
    const { id } = request.params as { id: string };
    return { data: alertView(requireAlert(id)) };
  });

  // Replaces the whole alert: optional fields not sent are cleared; state and createdAt stay.
  app.put(`${ALERTS}/:id`, { ...alerting, schema: { body: AlertRequest } }, (request) => {
    const { id } = request.params as { id: string };
    const current = requireAlert(id);
    const alert: AlertRecord = {
      id: current.id,
      ...fromRequest(request.body),
      state: current.state,
      team: current.team,
      silenced: current.silenced,
      createdAt: current.createdAt,
      updatedAt: ctx.timestamp(),
    };
    store.alerts.set(id, alert);
    ctx.changed();
    return { data: alertView(alert) };
  });

  app.delete(`${ALERTS}/:id`, alerting, (request) => {
    const { id } = request.params as { id: string };
    requireAlert(id);
    store.alerts.delete(id);
    ctx.changed();
    return {};
  });
}
