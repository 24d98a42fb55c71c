import { parseOwnerRecord } from '../../managed/index.ts';
import type { SavedSearch } from '../../cloud/schemas/clickstack.ts';
import { byNameThenId, plural, type OrganizationExport } from '../shared/export-step.ts';
import { exportSavedSearch, savedSearchOwner } from './mapping.ts';

/** Saved searches, before the alerts that watch them. */
export const savedSearchExport: OrganizationExport = {
  scope: 'organization',
  position: 1,
  run: async (walk) => {
    if (!walk.alerting)
      return walk.progress('saved searches not exported: no alerting token (alertsUrl and alertsToken)');
    if (walk.tags) return walk.progress('saved searches not exported: --selector matches service tags only');
    const listed: SavedSearch[] = await walk.call(walk.alerting.listSavedSearches());
    const searches = listed.filter((search) => {
      if (walk.ownedBy === undefined) return true;
      const record = parseOwnerRecord(savedSearchOwner(search));
      if (!record || record.cluster !== walk.ownedBy || record.name.startsWith('sha256-')) return false;
      walk.ownedAs(search.id, record);
      return true;
    });
    searches.sort(byNameThenId((search) => search.name));
    walk.progress(`listed ${plural(searches.length, 'saved search')}`);
    for (const search of searches)
      walk.named('SavedSearch', search.name, search.id, 'saved-search', () => exportSavedSearch(search));
  },
};
