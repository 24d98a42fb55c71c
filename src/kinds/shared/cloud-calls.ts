import { ApiError } from '../../cloud/errors.ts';
import { ANNOTATIONS, ReconcileError, type LostCreate } from '../../managed/index.ts';
import { RETRY_DELAYS } from '../../base/retry-delays.ts';
import { REASON } from '../../base/reasons.ts';

/** The call's answer, or undefined when the cloud says the object does not exist (404). */
export async function ignoreNotFound<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ApiError && error.isNotFound()) return undefined;
    throw error;
  }
}

/**
 * How long before the recorded intent the cloud may date what the create made. The intent is stamped by the
 * operator's clock, `createdAt` by the cloud's: a cloud clock a little behind, or a `createdAt` in whole
 * seconds (up to 1 s cut off), dates it before the intent although it was made after. NTP keeps clocks well
 * within a second of each other; 10 s covers the truncation and several seconds of drift, and is short enough
 * that a look-alike made by hand just before sluice's own create is a rare coincidence (and even then it is
 * adopted only when nothing made for the intent is found, see `createdSince`).
 */
export const CREATED_AT_TOLERANCE_MS = 10_000;

/**
 * For kinds without a marker on the cloud object: the id of the object that `matches`, that no other sluice
 * object holds (`claimedBy`), and that the cloud created for the create sent after `intent` (the time
 * recorded before the call). The first one dated at or after the intent; else, a cloud clock behind ours,
 * the last one dated within `CREATED_AT_TOLERANCE_MS` before it (made after any look-alike that was there
 * before the intent). Anything older is someone else's; two equally recent ones are for the user to choose.
 */
export function createdSince<T extends { id: string; createdAt?: string | undefined }>(
  objects: readonly T[],
  intent: Date,
  matches: (object: T) => boolean,
  claimedBy: (id: string) => string | undefined,
): string | undefined {
  const candidates = objects
    .map((object) => ({ id: object.id, at: Date.parse(object.createdAt ?? ''), object }))
    .filter(({ id, at, object }) => !Number.isNaN(at) && claimedBy(id) === undefined && matches(object));
  const since = candidates.filter(({ at }) => at >= intent.getTime()).sort((a, b) => a.at - b.at);
  if (since[0]) return since[0].id;
  const earliest = intent.getTime() - CREATED_AT_TOLERANCE_MS;
  const [latest, ...older] = candidates.filter(({ at }) => at >= earliest).sort((a, b) => b.at - a.at);
  const tied = older.filter(({ at }) => at === latest?.at);
  if (latest && tied.length > 0) {
    const ids = [latest, ...tied].map(({ id }) => id).join(', ');
    throw ReconcileError.terminal(
      REASON.AmbiguousAdoption,
      `a create may have been lost, and ${tied.length + 1} matching objects (${ids}) are dated the same moment just before it was sent; set the annotation ${ANNOTATIONS.externalId} to the one to adopt`,
      RETRY_DELAYS.userAction,
    );
  }
  return latest?.id;
}

/**
 * One step of a delete the cloud may finish later: `gone` once `find` finds nothing (undefined, or a 404);
 * otherwise one DELETE (none while the object is already on its way out, `deleting`) and `pending`, so the
 * reconciler polls.
 */
export async function deleteUntilGone<T>(
  find: () => Promise<T | undefined>,
  remove: () => Promise<unknown>,
  deleting: (found: T) => boolean = () => false,
): Promise<'gone' | 'pending'> {
  const found = await ignoreNotFound(find());
  if (found === undefined) return 'gone';
  if (!deleting(found)) await ignoreNotFound(remove());
  return 'pending';
}

/**
 * How old a snapshot a crash-safe create may search: no older than `freshnessMs`, and listed after the create
 * call ended (`lost.listedAfter`), since a list answered before the cloud made the object cannot show it.
 */
export function listedSince(
  lost: Pick<LostCreate, 'listedAfter'>,
  freshnessMs: number,
  now: number = Date.now(),
): number {
  return Math.max(0, Math.min(freshnessMs, now - lost.listedAfter.getTime()));
}
