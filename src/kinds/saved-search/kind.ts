import { SAVED_SEARCH_POLICY, SavedSearchSpec, SavedSearchStatus } from './schema.ts';
import { defineKind } from '../shared/descriptor.ts';
import { savedSearchReasons } from './reasons.ts';
import type { SavedSearch } from './schema.ts';

/** The SavedSearch kind: everything sluice knows of it but its cloud client, which is loaded on first use. */
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
  reasons: savedSearchReasons,
  driftReads: () => [{ api: 'alerting', list: 'savedSearches' }],
  exportStep: () => import('./export.ts').then((module) => module.savedSearchExport),
  controller: () => import('./controller.ts').then((module) => module.savedSearchController),
});
