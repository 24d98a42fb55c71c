/** Saved searches: list, get, create, replace (PUT), delete. Deleting one deletes the alerts on it. */
import { SavedSearchRequest } from '../cloud/schemas/clickstack.ts';
import { deleteAlertsWhere, newObjectId } from './alerting-routes.ts';
import { idOf, serveBoth } from './clickstack-kit.ts';
import type { App, EmulatorContext } from './context.ts';
import { notFound } from './errors.ts';
import type { SavedSearchRecord } from './store.ts';

const SAVED_SEARCHES = '/saved-searches';

export function registerSavedSearchRoutes(app: App, ctx: EmulatorContext): void {
  const { store } = ctx;

  function requireSavedSearch(id: string): SavedSearchRecord {
    const search = store.savedSearches.get(id);
    if (!search) throw notFound('Saved search not found');
    return search;
  }

  serveBoth(app, ctx, 'get', SAVED_SEARCHES, () => ({ data: [...store.savedSearches.values()] }));
  serveBoth(app, ctx, 'get', `${SAVED_SEARCHES}/:id`, (request) => ({
    data: requireSavedSearch(idOf(request)),
  }));

  serveBoth(
    app,
    ctx,
    'post',
    SAVED_SEARCHES,
    (request) => {
      const now = ctx.timestamp();
      const body = request.body as SavedSearchRequest;
      const search: SavedSearchRecord = { id: newObjectId(), ...body, createdAt: now, updatedAt: now };
      store.savedSearches.set(search.id, search);
      ctx.changed();
      return { data: search };
    },
    SavedSearchRequest,
  );

  serveBoth(
    app,
    ctx,
    'put',
    `${SAVED_SEARCHES}/:id`,
    (request) => {
      const current = requireSavedSearch(idOf(request));
      const body = request.body as SavedSearchRequest;
      const search: SavedSearchRecord = {
        id: current.id,
        ...body,
        createdAt: current.createdAt,
        updatedAt: ctx.timestamp(),
      };
      store.savedSearches.set(search.id, search);
      ctx.changed();
      return { data: search };
    },
    SavedSearchRequest,
  );

  serveBoth(app, ctx, 'delete', `${SAVED_SEARCHES}/:id`, (request) => {
    const search = requireSavedSearch(idOf(request));
    store.savedSearches.delete(search.id);
    deleteAlertsWhere(ctx, (alert) => alert.savedSearch === search.id);
    ctx.changed();
    return { empty: true };
  });
}
