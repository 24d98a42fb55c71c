// Keys carry no tags, no description, nothing but their name that sluice may write freely: the owner record
// every other cloud object carries (`cluster/namespace/Kind/name`) is kept on a key as a mark at the end of
// its name, ` #` and 8 hex digits of the record's SHA-256. Records are only ever compared, never read back,
// so a digest serves: the key of this object under this cluster name is the one whose mark is this one.
import { createHash } from 'node:crypto';
import { ApiKeyName } from '../../cloud/schemas/api-key.ts';
import { ownerRecord, type Owner } from '../../managed/index.ts';

/** The longest name the cloud keeps for a key. */
const MAX_KEY_NAME = ApiKeyName.maxLength ?? 50;
/** ` #` and 8 hex digits. */
export const OWNER_MARK_LENGTH = 10;
const MARK = / #[0-9a-f]{8}$/;

/** The mark of `owner`'s record. */
export function ownerMark(owner: Owner): string {
  return ` #${createHash('sha256').update(ownerRecord(owner)).digest('hex').slice(0, 8)}`;
}

/** The key's name in the cloud: the spec's name (cut to leave room) and the owner's mark. */
export function cloudKeyName(name: string, owner: Owner): string {
  return `${name.slice(0, MAX_KEY_NAME - OWNER_MARK_LENGTH)}${ownerMark(owner)}`;
}

/** Whether a key's cloud name carries `owner`'s mark: the key is recorded for that object. */
export function isRecordedFor(cloudName: string, owner: Owner): boolean {
  return cloudName.endsWith(ownerMark(owner));
}

/** A key's cloud name less the owner mark, if it has one: the name as a spec would write it. */
export function unmarkedName(cloudName: string): string {
  return cloudName.replace(MARK, '');
}
