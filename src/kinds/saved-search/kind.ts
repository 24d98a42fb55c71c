import { SAVED_SEARCH_POLICY, SavedSearchSpec, SavedSearchStatus, type SavedSearch } from './schema.ts';
import { defineKind } from '../shared/descriptor.ts';
import { savedSearchReasons } from './reasons.ts';

/** The SavedSearch kind, as the registry lists it; its controller and export step are loaded on first use. */
export const savedSearchKind = defineKind<SavedSearch>({
  policyFields: SAVED_SEARCH_POLICY,
  kind: 'SavedSearch',
  plural: 'savedsearches',
  singular: 'savedsearch',
  shortNames: [],
  description: 'A saved search of the alerting API that alerts watch, managed by sluice.',
  spec: SavedSearchSpec,
  status: SavedSearchStatus,
  printerColumns: [{ name: 'Where', type: 'string', jsonPath: '.spec.where' }],
  references: [
    {
      name: 'source',
      kind: 'Source',
      objectName: (search) => search.spec.sourceRef?.name,
      plainId: (search) => search.spec.sourceId,
      statusField: 'sourceId',
    },
  ],
  reasons: savedSearchReasons,
  driftReads: () => [{ api: 'alerting', list: 'savedSearches' }],
  exportStep: () => import('./export.ts').then((module) => module.savedSearchExport),
  controller: () => import('./controller.ts').then((module) => module.savedSearchController),
});
