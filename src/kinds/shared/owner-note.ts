// The alerting API's objects carry no tags: sluice records who owns one in a text field of its own (an alert's
// `note`, the last line of a webhook's `description`, a tag of a saved search or a dashboard). The record is
// `sluice.dev/owner: <cluster/namespace/Kind/name>`, only ever compared.

import { parseOwnerRecord, type OwnedCandidate } from '../../managed/index.ts';

const OWNER_NOTE = 'sluice.dev/owner: ';

/** The text that records `record` (an owner record, see ownerRecord). */
export const ownerNote = (record: string) => `${OWNER_NOTE}${record}`;

/** The owner record `text` holds, if it is one. */
export function recordIn(text: unknown): string | undefined {
  return typeof text === 'string' && text.startsWith(OWNER_NOTE) ? text.slice(OWNER_NOTE.length) : undefined;
}

/** A free text with the record on its last line: the user's text, and the record. */
export function withOwnerLine(text: string | undefined, record: string): string {
  return text ? `${text}\n${ownerNote(record)}` : ownerNote(record);
}

/** The user's text and the record of a text `withOwnerLine` wrote (the text alone when it holds none). */
export function splitOwnerLine(text: string | undefined): { text?: string; record?: string } {
  if (text === undefined) return {};
  const at = text.lastIndexOf('\n');
  const record = recordIn(at < 0 ? text : text.slice(at + 1));
  if (record === undefined) return { text };
  return at < 0 ? { record } : { text: text.slice(0, at), record };
}

/** The record among a list of tags, and the other tags. */
export function splitOwnerTag(tags: readonly string[] | undefined): { tags: string[]; record?: string } {
  const others = (tags ?? []).filter((tag) => recordIn(tag) === undefined);
  const record = (tags ?? []).map(recordIn).find((found) => found !== undefined);
  return record === undefined ? { tags: others } : { tags: others, record };
}

/** The objects of a list whose text records an owner (`recordOf` reads it): what a rebuild takes back. */
export function ownedAmong<T extends { id: string }>(
  objects: readonly T[],
  recordOf: (object: T) => string | undefined,
): OwnedCandidate[] {
  return objects.flatMap((object) => {
    const owner = parseOwnerRecord(recordOf(object));
    return owner ? [{ id: object.id, owner }] : [];
  });
}
