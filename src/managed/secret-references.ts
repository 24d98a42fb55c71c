import { ReconcileError } from './errors.ts';
import { RETRY_DELAYS } from '../base/retry-delays.ts';
import { digestOf, type DigestKey } from './secret-digests.ts';
import type { ManagedObject, SecretDigest, SecretDigests } from './managed-object.ts';
import { REASON } from '../base/reasons.ts';
import { decodeSecretData, type SecretObject } from '../kube/secret-data.ts';

/** A Secret as the operator's cache holds it: decoded values and the version that identifies them. */
export interface SecretSnapshot {
  data: Readonly<Record<string, string>>;
  resourceVersion: string;
  /** Keys sluice uses whose values it did not keep: past `MAX_KEPT_SECRET_BYTES` of the Secret. */
  oversized?: readonly string[];
  /** Who controls the Secret: a connection Secret is written only when its resource does. */
  ownerReferences?: readonly { uid?: string; controller?: boolean }[];
}

/**
 * What the operator keeps of one Secret at most (keys and values, in bytes): only the keys sluice uses are
 * kept, and a key that would take them past this is left out, so no Secret an object names costs more.
 */
export const MAX_KEPT_SECRET_BYTES = 64 * 1024;

/** The refusal of a Secret whose used `keys` sluice did not keep, being too large; undefined when none. */
export function oversizedSecret(
  secret: SecretSnapshot,
  where: string,
  keys: readonly string[],
): ReconcileError | undefined {
  const over = keys.filter((key) => secret.oversized?.includes(key));
  if (over.length === 0) return undefined;
  return ReconcileError.terminal(
    REASON.SecretTooLarge,
    `${where} key ${over.join(', ')} takes it past the ${MAX_KEPT_SECRET_BYTES / 1024} KiB the operator ` +
      `keeps of a Secret: not read`,
    RETRY_DELAYS.secretMissing,
  );
}

/** Reads Secrets from the operator's cache (a watch), never from the apiserver per reconcile. */
export interface SecretReader {
  get(namespace: string, name: string): SecretSnapshot | undefined;
}

/**
 * Hears sluice's own Secret writes: the apiserver's answer to a write is the Secret as stored, data and
 * version, so the cache can hold it instead of reading it again when the watch shows that version. Only
 * writes that store are told (a dry run's answer stores nothing).
 */
export interface SecretWriteListener {
  /**
   * A write of Secret `namespace/name` is under way; `answer` resolves to the Secret as stored, or rejects
   * when the write failed (what the watch then shows is read as usual).
   */
  writing(namespace: string, name: string, answer: Promise<SecretSnapshot>): void;
}

/** A Secret as the apiserver serves it, as the operator holds it: its data decoded. */
export function snapshotOf(secret: SecretObject): SecretSnapshot {
  const { resourceVersion = '', ownerReferences } = secret.metadata;
  return {
    data: Object.freeze(decodeSecretData(secret.data ?? {})),
    resourceVersion,
    ...(ownerReferences ? { ownerReferences } : {}),
  };
}

/** One `…SecretRef` of a spec: the Secret it names and the keys the cloud field needs from it. */
export interface SecretUse {
  /** The spec field that names the Secret, e.g. `source.kafka.credentialsSecretRef`. */
  field: string;
  secretName: string;
  keys: readonly string[];
  /**
   * Whether the cloud takes new values for this field in place (default true). When sluice cannot tell
   * whether the values changed, replaceable values are sent again (harmless); others are taken as unchanged.
   */
  replaceable?: boolean;
  /**
   * With no record of what the cloud was sent (an adopted object, or a reference added to an existing one):
   * false (the default) takes the values as what the cloud has, since it cannot show them (a pipe's
   * credentials); true sends them, for a value the spec asks the cloud to take that is set without harm
   * (a password the user owns).
   */
  sendWhenUnrecorded?: boolean;
}

export interface ResolvedSecrets {
  /** The values of the Secret named by `field`, by key. */
  values(field: string): Readonly<Record<string, string>> | undefined;
  /** Fields whose values changed since they were last sent to the cloud: by content, never by metadata. */
  readonly rotated: ReadonlySet<string>;
  /** What status keeps once the current values are what the cloud has; undefined when nothing is referenced. */
  readonly digests: SecretDigests | undefined;
  /** Fields recorded afresh without a digest to compare (taken as what the cloud has), and why: for the log. */
  readonly rebaselined: readonly { field: string; why: string }[];
}

/** What status kept from the last time values reached the cloud. */
export interface KeptSecretRecord {
  digests?: SecretDigests | undefined;
  /** The resourceVersion-only record of earlier versions, by Secret name. */
  versions?: Readonly<Record<string, string>> | undefined;
}

/**
 * Reads every Secret a resource references. A missing Secret or key fails the reconcile (`Synced=False`)
 * naming the Secret, the key and the field. A field counts as rotated when the HMAC of the values it uses
 * differs from the one `kept` (made with `key`), so a change of labels, annotations or of keys the field does
 * not use is none. Where no digest can be compared, see `unsure`.
 */
export function resolveSecrets(
  resource: ManagedObject,
  uses: readonly SecretUse[],
  reader: SecretReader,
  kept: KeptSecretRecord,
  key: DigestKey | undefined,
): ResolvedSecrets {
  const namespace = resource.metadata.namespace;
  const values = new Map<string, Record<string, string>>();
  const fields: Record<string, SecretDigest> = {};
  const rotated = new Set<string>();
  const rebaselined: { field: string; why: string }[] = [];
  for (const use of uses) {
    const secret = reader.get(namespace, use.secretName);
    const where = `Secret ${namespace}/${use.secretName} (${use.field})`;
    if (!secret)
      throw ReconcileError.terminal(REASON.SecretMissing, `${where} not found`, RETRY_DELAYS.secretMissing);
    const oversized = oversizedSecret(secret, `Secret ${namespace}/${use.secretName}`, use.keys);
    if (oversized) throw oversized;
    const missing = use.keys.filter((k) => !secret.data[k]);
    if (missing.length > 0) {
      throw ReconcileError.terminal(
        REASON.SecretMissing,
        `${where} has no key ${missing.join(', ')}`,
        RETRY_DELAYS.secretMissing,
      );
    }
    if (!key) throw new Error(`no digest key for the Secrets of ${namespace}/${resource.metadata.name}`);
    const used = Object.fromEntries(use.keys.map((k) => [k, secret.data[k]!]));
    values.set(use.field, used);
    const now: SecretDigest = {
      secret: use.secretName,
      resourceVersion: secret.resourceVersion,
      digest: digestOf(key, use.field, used),
    };
    fields[use.field] = now;
    const before = kept.digests?.fields[use.field];
    if (kept.digests?.keyId === key.id) {
      // A field without a digest was referenced since: its values have not been sent.
      if (before?.digest !== now.digest) rotated.add(use.field);
      continue;
    }
    const verdict = unsure(use, now, kept, before);
    if (verdict === 'rotated') rotated.add(use.field);
    else rebaselined.push({ field: use.field, why: verdict.rebaselined });
  }
  const digests = key && uses.length > 0 ? { keyId: key.id, fields } : undefined;
  return { values: (field) => values.get(field), rotated, digests, rebaselined };
}

/**
 * No digest under the current key to compare with: the digest key changed (the credentials the resource is
 * reconciled with), the record is an earlier version's resourceVersion, or there is none (an adopted object).
 * The Secret's resourceVersion when last recorded still matching proves the values the same. With nothing
 * recorded at all the values are taken as what the cloud has: an adopted object's cloud side is the user's,
 * and pushing credentials no one changed is what this rule is for. A Secret changed since the record may
 * hold new values or only new labels: replaceable values are sent again; others cannot be, so they are
 * taken as unchanged rather than block the resource.
 */
function unsure(
  use: SecretUse,
  now: SecretDigest,
  kept: KeptSecretRecord,
  before: SecretDigest | undefined,
): 'rotated' | { rebaselined: string } {
  if (!before && (use.sendWhenUnrecorded || (!kept.digests && !kept.versions))) {
    if (use.sendWhenUnrecorded) return 'rotated';
    return { rebaselined: 'no record of what the cloud was sent (adopted, or never recorded)' };
  }
  const version = kept.digests
    ? before?.secret === now.secret
      ? before.resourceVersion
      : undefined
    : kept.versions?.[now.secret];
  const why = kept.digests ? 'the digest key changed' : 'recorded by resourceVersion only';
  if (version === now.resourceVersion) return { rebaselined: `${why}; the Secret did not change since` };
  if (use.replaceable !== false) return 'rotated';
  return {
    rebaselined: kept.digests
      ? 'the digest key changed and so did the Secret; the cloud cannot take its values in place'
      : 'recorded by resourceVersion only, and the Secret changed since; the cloud cannot take its values in place',
  };
}
