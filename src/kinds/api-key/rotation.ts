// An ApiKey's rotation as steps decided from facts that survive a restart: the key in status (`id`), the
// previous key status keeps until it is deleted, and the credentials Secret as the operator's cache holds
// it (what every sluice client of that Secret is built from). Each step is safe to repeat.
import type { KeyIdentity } from '../../cloud/api-key-hash.ts';
import { tryParseDurationMs } from '../../base/duration.ts';
import { timing } from '../../base/timings.ts';
import { recordedAnnotation } from '../../managed/index.ts';
import { NEXT_KEY_ID, NEXT_KEY_SECRET, type ApiKeySpec, type ApiKeyStatus } from './schema.ts';

/** A new value (any) asks for a new key. */
export const ROTATE_ANNOTATION = 'sluice.dev/rotate';

export type RotationStep =
  /** Nothing to do; with `every`, the next rotation is due in `dueInMs`. */
  | { step: 'none'; dueInMs?: number }
  /** Store `identity` as the next key in the Secret, then create the key from its hashes. */
  | { step: 'create'; identity: KeyIdentity; asked: string | undefined }
  /** The new key exists: the Secret's clients get it now; the previous key goes at `deleteAt`, in `dueInMs`. */
  | { step: 'promote'; identity: KeyIdentity; deleteAt: string; dueInMs: number }
  /** Every client of the Secret reads the new key; the previous one still works until `deleteAt`. */
  | { step: 'wait'; deleteAt: string; dueInMs: number }
  /** The grace period is over: delete the previous key. */
  | { step: 'deletePrevious'; previousKeyId: string }
  /** The Secret holds neither the key in status nor the one made for it: the previous key is kept. */
  | { step: 'hold'; why: string };

export interface RotationFacts {
  spec: ApiKeySpec;
  annotations: Readonly<Record<string, string>> | undefined;
  status: ApiKeyStatus | undefined;
  /** The key in status, as the cloud shows it. */
  key: { id: string; keySuffix: string; createdAt: string };
  /** The credentials Secret as the operator's cache holds it. */
  stored: Readonly<Record<string, string>> | undefined;
  now: number;
  /** A new key id and secret. */
  make(): KeyIdentity;
}

const suffixOf = (keyId: string | undefined) => keyId?.slice(-4);

/** How long the previous key keeps working once the Secret holds the new one. */
export function gracePeriodMs(spec: ApiKeySpec): number {
  const given = spec.rotation?.gracePeriod;
  return (given && tryParseDurationMs(given)) || timing.apiKeyRotationGraceMs;
}

/** The value of the rotate annotation a rotation is asked for by, as status records it once made. */
export function rotationAsked(annotations: Readonly<Record<string, string>> | undefined): string | undefined {
  const value = annotations?.[ROTATE_ANNOTATION];
  return value === undefined ? undefined : recordedAnnotation(value);
}

export function planRotation(facts: RotationFacts): RotationStep {
  const { spec, status, key, stored, now } = facts;
  const next =
    stored?.[NEXT_KEY_ID] && stored[NEXT_KEY_SECRET]
      ? { keyId: stored[NEXT_KEY_ID], keySecret: stored[NEXT_KEY_SECRET] }
      : undefined;
  const previous = status?.previousKeyId;
  if (previous !== undefined && previous !== key.id) {
    if (suffixOf(stored?.keyId) !== key.keySuffix) {
      if (next && suffixOf(next.keyId) === key.keySuffix) {
        const grace = gracePeriodMs(spec);
        const deleteAt = new Date(now + grace).toISOString();
        return { step: 'promote', identity: next, deleteAt, dueInMs: grace };
      }
      return {
        step: 'hold',
        why: `the Secret holds neither key ${key.id} nor the key made for it; key ${previous} is kept`,
      };
    }
    const deleteAt = Date.parse(status?.previousKeyDeleteAt ?? '');
    // Promoted, but its time never reached status (a restart in between): the grace starts now.
    if (Number.isNaN(deleteAt)) {
      const grace = gracePeriodMs(spec);
      return { step: 'wait', deleteAt: new Date(now + grace).toISOString(), dueInMs: grace };
    }
    if (now >= deleteAt) return { step: 'deletePrevious', previousKeyId: previous };
    return { step: 'wait', deleteAt: status!.previousKeyDeleteAt!, dueInMs: deleteAt - now };
  }
  const asked = rotationAsked(facts.annotations);
  const newlyAsked = asked !== undefined && asked !== status?.lastRotation;
  const every = spec.rotation?.every ? tryParseDurationMs(spec.rotation.every) : undefined;
  const dueAt = every === undefined ? undefined : Date.parse(key.createdAt) + every;
  const due = dueAt !== undefined && !Number.isNaN(dueAt) && now >= dueAt;
  if (!newlyAsked && !due) {
    return dueAt === undefined || Number.isNaN(dueAt)
      ? { step: 'none' }
      : { step: 'none', dueInMs: dueAt - now };
  }
  // A key made for a rotation that never reached status (a restart before it did) is the one made again.
  const unfinished = next && next.keyId !== stored?.keyId && suffixOf(next.keyId) !== key.keySuffix;
  return { step: 'create', identity: unfinished ? next : facts.make(), asked };
}
