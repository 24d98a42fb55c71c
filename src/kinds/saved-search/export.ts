import type { SavedSearch } from '../../cloud/schemas/clickstack.ts';
import { byNameThenId, ownedByCluster, plural, type OrganizationExport } from '../shared/export-step.ts';
import { exportSavedSearch, savedSearchOwner } from './mapping.ts';

/** Saved searches, after the sources they name and before the alerts that watch them. */
export const savedSearchExport: OrganizationExport = {
  scope: 'organization',
  position: 1,
  run: async (walk) => {
    if (!walk.alerting)
      return walk.progress('saved searches not exported: no alerting token (alertsUrl and alertsToken)');
    if (walk.tags) return walk.progress('saved searches not exported: --selector matches service tags only');
    const listed: SavedSearch[] = await walk.call(walk.alerting.listSavedSearches());
    const searches = ownedByCluster(walk, listed, savedSearchOwner);
    searches.sort(byNameThenId((search) => search.name));
    walk.progress(`listed ${plural(searches.length, 'saved search')}`);
    for (const search of searches)
      walk.named('SavedSearch', search.name, search.id, 'saved-search', () =>
        exportSavedSearch(search, walk.nameOf('Source', search.sourceId)),
      );
  },
};
