/**
 * Dashboards with tiles: list, get, create, replace (PUT), delete, and validate (stores nothing). A tile sent
 * with its id keeps it; one sent without gets a new id. A replace deletes the alerts of every tile it drops, a
 * delete the alerts of all of them. Answers carry no timestamps, as the real API's: a client that reads a
 * dashboard and sends its body back (the official client's import does) sends only what the body schema takes.
 */
import { DashboardRequest } from '../cloud/schemas/clickstack.ts';
import { fieldPath } from '../cloud/schemas/issues.ts';
import { deleteAlertsWhere, newObjectId } from './alerting-routes.ts';
import { idOf, serveBoth } from './clickstack-kit.ts';
import type { App, EmulatorContext } from './context.ts';
import { notFound } from './errors.ts';
import type { DashboardRecord, TileRecord } from './store.ts';

const DASHBOARDS = '/dashboards';

/** The tiles as stored: each keeps the id it was sent with, or gets a new one. */
function storedTiles(body: DashboardRequest): TileRecord[] {
  return body.tiles.map(({ id, ...tile }) => ({ id: id ?? newObjectId(), ...tile }));
}

function stored(id: string, body: DashboardRequest, createdAt: string, updatedAt: string): DashboardRecord {
  return {
    id,
    name: body.name,
    tiles: storedTiles(body),
    tags: body.tags,
    ...(body.filters === undefined ? {} : { filters: body.filters }),
    createdAt,
    updatedAt,
  };
}

/** A dashboard as answered: the stored one without its timestamps. */
export function dashboardView({ createdAt: _created, updatedAt: _updated, ...dashboard }: DashboardRecord) {
  return dashboard;
}

export function registerDashboardRoutes(app: App, ctx: EmulatorContext): void {
  const { store } = ctx;

  function requireDashboard(id: string): DashboardRecord {
    const dashboard = store.dashboards.get(id);
    if (!dashboard) throw notFound('Dashboard not found');
    return dashboard;
  }

  serveBoth(app, ctx, 'get', DASHBOARDS, () => ({ data: [...store.dashboards.values()].map(dashboardView) }));
  serveBoth(app, ctx, 'get', `${DASHBOARDS}/:id`, (request) => ({
    data: dashboardView(requireDashboard(idOf(request))),
  }));

  // Every problem, not only the first, each with the path of its field; the body is read as JSON, unvalidated.
  serveBoth(app, ctx, 'post', `${DASHBOARDS}/validate`, (request) => {
    const parsed = DashboardRequest.safeParse(request.body ?? {});
    if (!parsed.success) {
      const errors = parsed.error.issues.map((issue) => ({
        path: fieldPath(issue.path),
        message: issue.message,
      }));
      return { bare: { valid: false, errors, normalized: null } };
    }
    const { tiles, ...rest } = parsed.data;
    return { bare: { valid: true, errors: [], normalized: { ...rest, tiles } } };
  });

  serveBoth(
    app,
    ctx,
    'post',
    DASHBOARDS,
    (request) => {
      const now = ctx.timestamp();
      const dashboard = stored(newObjectId(), request.body as DashboardRequest, now, now);
      store.dashboards.set(dashboard.id, dashboard);
      ctx.changed();
      return { data: dashboardView(dashboard) };
    },
    DashboardRequest,
  );

  serveBoth(
    app,
    ctx,
    'put',
    `${DASHBOARDS}/:id`,
    (request) => {
      const current = requireDashboard(idOf(request));
      const dashboard = stored(
        current.id,
        request.body as DashboardRequest,
        current.createdAt,
        ctx.timestamp(),
      );
      const kept = new Set(dashboard.tiles.map((tile) => tile.id));
      deleteAlertsWhere(ctx, (alert) => alert.dashboard === current.id && !kept.has(alert.tileId ?? ''));
      store.dashboards.set(dashboard.id, dashboard);
      ctx.changed();
      return { data: dashboardView(dashboard) };
    },
    DashboardRequest,
  );

  serveBoth(app, ctx, 'delete', `${DASHBOARDS}/:id`, (request) => {
    const dashboard = requireDashboard(idOf(request));
    store.dashboards.delete(dashboard.id);
    deleteAlertsWhere(ctx, (alert) => alert.dashboard === dashboard.id);
    ctx.changed();
    return { empty: true };
  });
}
