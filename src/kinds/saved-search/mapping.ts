// The SavedSearch's mapping between spec and cloud, pure: the body (`savedSearchBody`), the cloud object in
// the spec's terms (`observedSavedSearch`), the differences (`diffSavedSearch`) and the export mapping.
import { isDeepStrictEqual } from 'node:util';
import type { SavedSearchSpec } from './schema.ts';
import type { SavedSearchBody } from '../../cloud/alerting-client.ts';
import type { SavedSearch } from '../../cloud/schemas/clickstack.ts';
import { ownerNote, splitOwnerTag } from '../shared/owner-note.ts';

const FIELDS = ['name', 'sourceId', 'select', 'where', 'whereLanguage', 'orderBy', 'tags'] as const;
/** What the API stores for a field not sent: a spec that leaves one out asks for that. */
const DEFAULTS: Record<string, unknown> = {
  select: '',
  where: '',
  whereLanguage: 'lucene',
  orderBy: '',
  tags: [],
};

/** The spec in cloud ids: `sourceRef` replaced by the id of the Source it names, once resolved. */
export function withSourceId(spec: SavedSearchSpec, sourceId: string | undefined): SavedSearchSpec {
  const { sourceRef, ...rest } = spec;
  return sourceRef ? { ...rest, sourceId } : rest;
}

/** The replace body of a spec in cloud ids: every field (the PUT replaces it whole), the owner record a tag. */
export function savedSearchBody(spec: SavedSearchSpec, record: string): SavedSearchBody {
  return {
    name: spec.name,
    sourceId: spec.sourceId ?? '',
    select: spec.select ?? '',
    where: spec.where ?? '',
    whereLanguage: spec.whereLanguage ?? 'lucene',
    orderBy: spec.orderBy ?? '',
    tags: [...(spec.tags ?? []), ownerNote(record)],
  };
}

/** The cloud saved search in the spec's terms: a field at the API's default is left out, as a spec leaves it. */
export function observedSavedSearch(search: SavedSearch): Record<string, unknown> {
  const shown: Record<string, unknown> = { ...search, tags: splitOwnerTag(search.tags).tags };
  return Object.fromEntries(
    FIELDS.filter((f) => shown[f] !== undefined && !isDeepStrictEqual(shown[f], DEFAULTS[f])).map((f) => [
      f,
      shown[f],
    ]),
  );
}

export const savedSearchOwner = (search: SavedSearch) => splitOwnerTag(search.tags).record;

export function diffSavedSearch(spec: SavedSearchSpec, search: SavedSearch): string[] {
  const observed = observedSavedSearch(search);
  const desired = observedSavedSearch({ id: '', ...savedSearchBody(spec, '') } as SavedSearch);
  return FIELDS.filter((field) => !isDeepStrictEqual(desired[field], observed[field]));
}

export function savedSearchStatus(search: SavedSearch): Record<string, unknown> {
  const { createdAt, updatedAt } = search as { createdAt?: string; updatedAt?: string };
  return Object.fromEntries(Object.entries({ createdAt, updatedAt }).filter(([, v]) => v !== undefined));
}

/**
 * The spec that adopts a saved search as it is, naming its source by reference when that was exported too
 * (`sourceName`); one with pinned filters cannot be (a spec has no field).
 */
export function exportSavedSearch(
  search: SavedSearch,
  sourceName?: string,
): { spec: Record<string, unknown> } | { unexpressible: string } {
  if (search.filters?.length)
    return { unexpressible: 'it has pinned filters, which a spec has no field for' };
  const { sourceId, ...spec } = observedSavedSearch(search);
  return { spec: sourceName ? { ...spec, sourceRef: { name: sourceName } } : { ...spec, sourceId } };
}
