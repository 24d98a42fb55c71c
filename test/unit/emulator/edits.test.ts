import { describe, expect, it } from 'vitest';
import {
  applyListEdit,
  hasAllTags,
  ipEntryIdentity,
  mergeSettings,
  parseTagFilters,
  stringIdentity,
  tagIdentity,
} from '../../../src/emulator/edits.ts';

describe('list edits {add, remove}', () => {
  it('removes before adding, so removing and adding the same entry keeps it', () => {
    expect(applyListEdit(['a', 'b'], { add: ['b', 'c'], remove: ['b'] }, stringIdentity)).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it('identifies ip entries by source: remove ignores the description, add replaces it', () => {
    const list = [{ source: '10.0.0.0/8', description: 'office' }, { source: '1.2.3.4' }];
    expect(applyListEdit(list, { remove: [{ source: '10.0.0.0/8' }] }, ipEntryIdentity)).toEqual([
      { source: '1.2.3.4' },
    ]);
    expect(
      applyListEdit(list, { add: [{ source: '1.2.3.4', description: 'vpn' }] }, ipEntryIdentity),
    ).toEqual([
      { source: '10.0.0.0/8', description: 'office' },
      { source: '1.2.3.4', description: 'vpn' },
    ]);
  });

  it('identifies tags by their whole value', () => {
    const tags = [{ key: 'env', value: 'dev' }];
    expect(applyListEdit(tags, { remove: [{ key: 'env', value: 'prod' }] }, tagIdentity)).toEqual(tags);
    expect(applyListEdit(tags, { remove: [{ key: 'env', value: 'dev' }] }, tagIdentity)).toEqual([]);
  });

  it('never duplicates and never touches its input', () => {
    const list = ['a'];
    expect(applyListEdit(list, { add: ['a', 'a'] }, stringIdentity)).toEqual(['a']);
    applyListEdit(list, { add: ['b'], remove: ['a'] }, stringIdentity);
    expect(list).toEqual(['a']);
  });
});

describe('settings merge', () => {
  it('keeps omitted keys, sets given ones and drops keys set to null (back to the default)', () => {
    expect(
      mergeSettings(
        { engine_max_threads: 4, streaming_max_insert_wait_ms: 1000 },
        { streaming_max_insert_wait_ms: null, object_storage_concurrency: 3 },
      ),
    ).toEqual({ engine_max_threads: 4, object_storage_concurrency: 3 });
  });

  it('keeps false booleans', () => {
    expect(mergeSettings({}, { engine_parallel_view_processing: false })).toEqual({
      engine_parallel_view_processing: false,
    });
  });
});

describe('tag filters', () => {
  it('reads one or many tag:Key=Value filters; the value may contain "="', () => {
    expect(parseTagFilters(undefined)).toEqual([]);
    expect(parseTagFilters('tag:env=prod')).toEqual([{ key: 'env', value: 'prod' }]);
    expect(parseTagFilters(['tag:a=1', 'tag:b=x=y'])).toEqual([
      { key: 'a', value: '1' },
      { key: 'b', value: 'x=y' },
    ]);
  });

  it('refuses other filters', () => {
    expect(parseTagFilters('env=prod')).toEqual({ error: expect.stringMatching(/^filter must look like/) });
  });

  it('matches only when every filter matches', () => {
    const tags = [
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
    ];
    expect(hasAllTags(tags, [{ key: 'a', value: '1' }])).toBe(true);
    expect(
      hasAllTags(tags, [
        { key: 'a', value: '1' },
        { key: 'b', value: '3' },
      ]),
    ).toBe(false);
    expect(hasAllTags(tags, [])).toBe(true);
  });
});
