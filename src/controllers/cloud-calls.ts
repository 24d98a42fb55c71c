import { ApiError } from '../cloud/errors.ts';

/** The call's answer, or undefined when the cloud says the object does not exist (404). */
export async function ignoreNotFound<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ApiError && error.isNotFound()) return undefined;
    throw error;
  }
}

export const CREATED_AT_TOLERANCE_MS = 10_000;

/**
 * For kinds without a marker on the cloud object: the id of the first object that `matches` and that the cloud
 * created at or after `intent`, the time recorded before the create call. Anything older is someone else's.
 */
export function createdSince<T extends { id: string; createdAt?: string | undefined }>(
  objects: readonly T[],
  intent: Date,
  matches: (object: T) => boolean,
): string | undefined {
  return objects
    .filter((o) => o.createdAt !== undefined && new Date(o.createdAt) >= intent && matches(o))
    .sort((a, b) => a.createdAt!.localeCompare(b.createdAt!))[0]?.id;
}

/**
 * One step of a delete the cloud may finish later: `gone` once the GET answers 404; otherwise one DELETE
 * (none while the object is already on its way out, `deleting`) and `pending`, so the reconciler polls.
 */
export async function deleteUntilGone<T>(
  get: () => Promise<T>,
  remove: () => Promise<unknown>,
  deleting: (found: T) => boolean = () => false,
): Promise<'gone' | 'pending'> {
  const found = await ignoreNotFound(get());
  if (found === undefined) return 'gone';
  if (!deleting(found)) await ignoreNotFound(remove());
  return 'pending';
}
