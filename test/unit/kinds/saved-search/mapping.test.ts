import { describe, expect, it } from 'vitest';
import type { SavedSearch } from '../../../../src/cloud/schemas/clickstack.ts';
import type { SavedSearchSpec } from '../../../../src/kinds/saved-search/schema.ts';
import {
  diffSavedSearch,
  exportSavedSearch,
  savedSearchBody,
  withSourceId,
} from '../../../../src/kinds/saved-search/mapping.ts';
import { errorSearch, errorSearchOf } from '../../../../tools/fixtures/alert.ts';

const bySource = { ...errorSearchOf('errors', 'logs'), deletionPolicy: 'Delete' } as SavedSearchSpec;
const cloud = (sourceId: string): SavedSearch => ({
  id: '65f0c0ffee0000000000abcd',
  ...savedSearchBody(
    { ...errorSearch('errors'), sourceId, deletionPolicy: 'Delete' },
    'c/ns/SavedSearch/errors',
  ),
});

describe('SavedSearch mapping of its source', () => {
  it('a sourceRef becomes the id its Source got; a plain id stays as written', () => {
    const resolved = withSourceId(bySource, 'src-1');
    expect(resolved).not.toHaveProperty('sourceRef');
    expect(savedSearchBody(resolved, 'r').sourceId).toBe('src-1');
    expect(withSourceId({ ...errorSearch('errors'), deletionPolicy: 'Delete' }, 'ignored').sourceId).toBe(
      'logs',
    );
  });

  it('a search on another source than the one its Source got differs in sourceId', () => {
    expect(diffSavedSearch(withSourceId(bySource, 'src-1'), cloud('src-1'))).toEqual([]);
    expect(diffSavedSearch(withSourceId(bySource, 'src-2'), cloud('src-1'))).toEqual(['sourceId']);
  });

  it('exports the source by reference when its Source was exported too, else by id', () => {
    // The API's default where language is left out, as a spec leaves it.
    const { whereLanguage: _default, ...shown } = errorSearchOf('errors', 'logs');
    expect(exportSavedSearch(cloud('src-1'), 'logs')).toEqual({ spec: shown });
    const { sourceRef: _ref, ...byId } = shown;
    expect(exportSavedSearch(cloud('src-1'))).toEqual({ spec: { ...byId, sourceId: 'src-1' } });
  });
});
