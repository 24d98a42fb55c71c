import type { PipeSettings } from '../cloud/schemas/pipe.ts';
import type { IpAccessEntry, Tag } from '../cloud/schemas/service.ts';

export interface ListEdit<T> {
  add?: T[] | undefined;
  remove?: T[] | undefined;
}

/**
 * A PATCH `{add, remove}` on a list: remove first, then add; entries are identified by `identity`. Adding an
 * entry that is already there replaces it in place (so an ip entry's description can change), never duplicates.
 * Returns a new list; the input is not touched.
 */
export function applyListEdit<T>(
  list: readonly T[],
  edit: ListEdit<T> | undefined,
  identity: (item: T) => string,
): T[] {
  if (!edit) return [...list];
  const removed = new Set((edit.remove ?? []).map(identity));
  const result = list.filter((item) => !removed.has(identity(item)));
  for (const item of edit.add ?? []) {
    const id = identity(item);
    const index = result.findIndex((existing) => identity(existing) === id);
    if (index >= 0) result[index] = item;
    else result.push(item);
  }
  return result;
}

/** ip access entries are identified by `source`. */
export const ipEntryIdentity = (entry: IpAccessEntry) => entry.source;
/** Tags are identified by their whole value, key and value. */
export const tagIdentity = (tag: Tag) => JSON.stringify([tag.key, tag.value]);
export const stringIdentity = (value: string) => value;

/** Settings PUT: omitted keys keep their value, null resets a key to the default (drops it), others set. */
export function mergeSettings(current: PipeSettings, change: PipeSettings): PipeSettings {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(change)) {
    if (value === undefined) continue;
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged as PipeSettings;
}

/** Tag filter of the service list: `tag:Key=Value`, repeatable, every one must match. */
export function parseTagFilters(filter: string | string[] | undefined): Tag[] | { error: string } {
  const filters = filter === undefined ? [] : Array.isArray(filter) ? filter : [filter];
  const tags: Tag[] = [];
  for (const text of filters) {
    const match = /^tag:([^=]+)=(.*)$/s.exec(text);
    if (!match) return { error: `filter must look like tag:Key=Value (got "${text}")` };
    tags.push({ key: match[1]!, value: match[2]! });
  }
  return tags;
}

export function hasAllTags(tags: readonly Tag[], wanted: readonly Tag[]): boolean {
  return wanted.every((w) => tags.some((t) => t.key === w.key && t.value === w.value));
}
