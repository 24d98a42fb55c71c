/** What one object of a kind says about the cloud id it acts on. */
export interface Claim {
  /** `namespace/name`. */
  key: string;
  uid: string;
  creationTimestamp?: string;
  /** The id it acts on: in its status, or granted to it by this process before its status shows it. */
  recordedId?: string;
  /** The id its `sluice.dev/external-id` annotation names. */
  externalId?: string;
}

/** The id a claim acts on or asks for: a recorded id wins over the annotation (status says what it manages). */
const claimedId = (claim: Claim) => claim.recordedId ?? claim.externalId;

/**
 * Which object of a kind holds the cloud id `id`, among every object the operator sees (any namespace):
 * - an object with the id recorded (it created, found or adopted it) before one only asking to adopt it;
 * - among those, one that did not get it by adoption (it created the id) before one that adopted it;
 * - then the oldest, ties by key: two objects asking for one unheld id at once get the same answer.
 * Undefined when no object claims it.
 */
export function holderOf(id: string, claims: readonly Claim[]): Claim | undefined {
  const rank = (claim: Claim) =>
    [
      claim.recordedId === id ? 0 : 1,
      claim.recordedId === id && claim.externalId !== id ? 0 : 1,
      claim.creationTimestamp ?? '',
      claim.key,
    ].join('\u0000');
  return claims.filter((claim) => claimedId(claim) === id).sort((a, b) => rank(a).localeCompare(rank(b)))[0];
}

/**
 * The keys of the objects that may claim each id (status, annotation, or a grant of this process), kept as
 * the cache changes: finding an id's claimants costs a look-up, not a pass over every object.
 */
export class ClaimIndex {
  private readonly idsByKey = new Map<string, string[]>();
  private readonly keysById = new Map<string, Set<string>>();

  /** What `key` may claim now (nothing once it is gone). */
  set(key: string, ids: readonly (string | undefined)[]): void {
    for (const id of this.idsByKey.get(key) ?? []) {
      const keys = this.keysById.get(id);
      keys?.delete(key);
      if (keys?.size === 0) this.keysById.delete(id);
    }
    const claimed = [...new Set(ids.filter((id): id is string => id !== undefined && id !== ''))];
    if (claimed.length === 0) {
      this.idsByKey.delete(key);
      return;
    }
    this.idsByKey.set(key, claimed);
    for (const id of claimed) {
      const keys = this.keysById.get(id) ?? new Set<string>();
      keys.add(key);
      this.keysById.set(id, keys);
    }
  }

  keysOf(id: string): string[] {
    return [...(this.keysById.get(id) ?? [])];
  }
}
