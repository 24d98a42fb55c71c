import { objectKey } from '../kube/cache.ts';
import { ANNOTATIONS, createIntentOf } from './annotations.ts';
import type { LostCreate, ManagedObject } from './types.ts';

/**
 * What this process knows of each object's creates, for the crash-safe look-up before the next one: when the
 * last create call ended (a list that started before that may have been answered before the cloud made the
 * object), and which look-up already found nothing with no create sent since. Entries are by object key and
 * hold its uid, so an object deleted and made again under the same name starts afresh.
 */
export class CreateAttempts {
  /**
   * key → the uid and create intent a look-up found nothing for, with no create sent since. Kept with the
   * intent it searched by: a look-up made from a cache that had not shown the last intent yet searched for
   * nothing, and must not spare the next one.
   */
  private readonly foundNothing = new Map<string, { uid: string; intent: string | undefined }>();
  /**
   * key → the uid and end of the object's last create call that may have reached the cloud: on the wall
   * clock, and on `elapsed`, which a step of the wall clock does not move.
   */
  private readonly lastEnded = new Map<string, { uid: string; at: Date; elapsedAt: number }>();
  /**
   * key → the uid, the version this process's removal of the spent create intent made, and the versions
   * from before it, until the cache shows a later one: a cache still at one of those lags our own write.
   */
  private readonly removals = new Map<string, { uid: string; made: string; older: readonly string[] }>();

  /** `elapsed`: a monotonic clock in ms (the one snapshot ages are measured on). */
  constructor(
    private readonly now: () => Date,
    private readonly elapsed: () => number = () => performance.now(),
  ) {}

  /**
   * What `findCreated` searches for, undefined when no create was ever sent for `resource` (no intent on it).
   * A list shows what the create made once it started after the create call ended: in this process, after
   * its end; for a create an earlier process sent, after the intent (every list this process makes started
   * after that process was gone).
   */
  lostCreate(resource: ManagedObject): LostCreate | undefined {
    const intent = createIntentOf(resource);
    if (!intent || !writtenForThisObject(resource, intent)) return undefined;
    const ended = this.lastEnded.get(objectKey(resource));
    const own = ended?.uid === resource.metadata.uid && ended.at > intent;
    if (!own) return { intent, listedAfter: intent };
    // Dated by the time passed since the call ended, not by the wall clock then: a wall clock stepped forward
    // in between would make lists from before the call's end look recent enough to search.
    const since = Math.max(0, this.elapsed() - ended.elapsedAt);
    return { intent, listedAfter: new Date(this.now().getTime() - since) };
  }

  /**
   * Whether to look up before creating: not again while a look-up for the same intent found nothing and no
   * create was sent since (one the quota deferred sent nothing; looking each time would spend its budget).
   */
  shouldLookUp(resource: ManagedObject): boolean {
    const memo = this.foundNothing.get(objectKey(resource));
    return memo?.uid !== resource.metadata.uid || memo.intent !== intentText(resource);
  }

  lookedUpAndFoundNothing(resource: ManagedObject): void {
    this.foundNothing.set(objectKey(resource), { uid: resource.metadata.uid, intent: intentText(resource) });
  }

  /**
   * A new intent is on `resource`, before its create call: no call has gone out under it, so a look-up that
   * found nothing still holds for it.
   */
  intentRecorded(resource: ManagedObject): void {
    const key = objectKey(resource);
    if (this.foundNothing.get(key)?.uid !== resource.metadata.uid) return;
    this.foundNothing.set(key, { uid: resource.metadata.uid, intent: intentText(resource) });
  }

  /** A create call ended, answered or not: it may have made the object, so the next create looks up first. */
  createEnded(resource: ManagedObject): void {
    const key = objectKey(resource);
    this.foundNothing.delete(key);
    this.lastEnded.set(key, { uid: resource.metadata.uid, at: this.now(), elapsedAt: this.elapsed() });
  }

  /** The object's id is in status: no look-up will be needed for it. */
  settled(key: string): void {
    this.lastEnded.delete(key);
  }

  /** This process removed the spent create intent, making `removed`; `older`: the versions seen before. */
  intentRemoved(removed: ManagedObject, older: readonly (string | undefined)[]): void {
    const made = removed.metadata.resourceVersion;
    if (made === undefined) return;
    this.removals.set(objectKey(removed), {
      uid: removed.metadata.uid,
      made,
      older: older.filter((version): version is string => version !== undefined),
    });
  }

  /**
   * The version this process's removal of the intent made, when `cached` is from before it: the intent
   * `cached` shows is gone already, and the server holds that version or a later one.
   */
  removalAhead(cached: ManagedObject, key = objectKey(cached)): string | undefined {
    const removal = this.removals.get(key);
    const version = cached.metadata.resourceVersion;
    if (removal?.uid !== cached.metadata.uid || version === undefined) return undefined;
    return removal.older.includes(version) ? removal.made : undefined;
  }

  /** The cache shows `cached` for `key` (undefined: gone): past the removal's versions, it is forgotten. */
  observe(key: string, cached: ManagedObject | undefined): void {
    if (!cached || this.removalAhead(cached, key) === undefined) this.removals.delete(key);
  }

  /** The object is gone from the cache. */
  forget(key: string): void {
    this.foundNothing.delete(key);
    this.lastEnded.delete(key);
    this.removals.delete(key);
  }
}

const intentText = (resource: ManagedObject) => resource.metadata.annotations?.[ANNOTATIONS.createPending];

/**
 * How far an intent may seem to precede the object's creation and still be this object's: the creation
 * time is the apiserver's, in whole seconds, the intent the operator's.
 */
export const INTENT_CLOCK_TOLERANCE_MS = 10_000;

/**
 * An intent sluice wrote for this object is never older than the object. One that is was copied from another
 * object (a restore, `kubectl get -o yaml | kubectl apply`): it records no create for this one, and a look-up
 * by it could adopt someone else's look-alike.
 */
function writtenForThisObject(resource: ManagedObject, intent: Date): boolean {
  const created = Date.parse(resource.metadata.creationTimestamp ?? '');
  return Number.isNaN(created) || intent.getTime() >= created - INTENT_CLOCK_TOLERANCE_MS;
}
