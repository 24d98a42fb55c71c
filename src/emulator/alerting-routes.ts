/** The alerting API (v2): alerts create, list, get, replace, delete, on both of its paths (clickstack-kit.ts). */
import { randomBytes } from 'node:crypto';
import { AlertRequest } from '../cloud/schemas/alert.ts';
import { idOf, serveBoth } from './clickstack-kit.ts';
import type { App, EmulatorContext } from './context.ts';
import { notFound } from './errors.ts';
import type { AlertRecord } from './store.ts';
import { alertView } from './views.ts';

const ALERTS = '/alerts';

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

  serveBoth(
    app,
    ctx,
    'post',
    ALERTS,
    (request) => {
      const now = ctx.timestamp();
      const alert: AlertRecord = {
        id: newObjectId(),
        ...fromRequest(request.body as AlertRequest),
        state: 'OK',
        team: ctx.teamId,
        silenced: false,
        createdAt: now,
        updatedAt: now,
      };
      store.alerts.set(alert.id, alert);
      ctx.changed();
      return { data: alertView(alert) };
    },
    AlertRequest,
  );

  serveBoth(app, ctx, 'get', ALERTS, () => ({ data: [...store.alerts.values()].map(alertView) }));

  serveBoth(app, ctx, 'get', `${ALERTS}/:id`, (request) => ({
    data: alertView(requireAlert(idOf(request))),
  }));

  // Replaces the whole alert: optional fields not sent are cleared; state and createdAt stay.
  serveBoth(
    app,
    ctx,
    'put',
    `${ALERTS}/:id`,
    (request) => {
      const current = requireAlert(idOf(request));
      const alert: AlertRecord = {
        id: current.id,
        ...fromRequest(request.body as AlertRequest),
        state: current.state,
        team: current.team,
        silenced: current.silenced,
        createdAt: current.createdAt,
        updatedAt: ctx.timestamp(),
      };
      store.alerts.set(alert.id, alert);
      ctx.changed();
      return { data: alertView(alert) };
    },
    AlertRequest,
  );

  serveBoth(app, ctx, 'delete', `${ALERTS}/:id`, (request) => {
    const id = idOf(request);
    requireAlert(id);
    store.alerts.delete(id);
    ctx.changed();
    return { empty: true };
  });
}

/** Deletes the alerts `matches` picks (a saved search's, a dashboard's or a removed tile's go with it). */
export function deleteAlertsWhere(ctx: EmulatorContext, matches: (alert: AlertRecord) => boolean): void {
  for (const alert of [...ctx.store.alerts.values()]) if (matches(alert)) ctx.store.alerts.delete(alert.id);
}
