import { ReconcileError } from './errors.ts';
import type { ManagedObject } from './types.ts';

/** A Secret as the operator's cache holds it: decoded values and the version that identifies them. */
export interface SecretSnapshot {
  data: Readonly<Record<string, string>>;
  resourceVersion: string;
  /** Who controls the Secret: a connection Secret is written only when its resource does. */
  ownerReferences?: readonly { uid?: string; controller?: boolean }[];
}

/** Reads Secrets from the operator's cache (a watch), never from the apiserver per reconcile. */
export interface SecretReader {
  get(namespace: string, name: string): SecretSnapshot | undefined;
}

/** One `…SecretRef` of a spec: the Secret it names and the keys the cloud field needs from it. */
export interface SecretUse {
  /** The spec field that names the Secret, e.g. `source.kafka.credentialsSecretRef`. */
  field: string;
  secretName: string;
  keys: readonly string[];
}

export interface ResolvedSecrets {
  /** The values of the Secret named by `field`, by key. */
  values(field: string): Readonly<Record<string, string>> | undefined;
  /** Fields whose Secret changed since its values were last sent to the cloud. */
  readonly rotated: ReadonlySet<string>;
  /** resourceVersion per referenced Secret name: what status keeps instead of the values (or a hash). */
  readonly versions: Readonly<Record<string, string>>;
}

/** A missing Secret or key is the user's to fix; the Secret watch brings the resource back when it appears. */
const SECRET_MISSING_RETRY_MS = 30_000;

/**
 * Reads every Secret a resource references. A missing Secret or key fails the reconcile (`Synced=False`)
 * naming the Secret, the key and the field. `previous` is the version map status kept from the last time
 * the values reached the cloud; a Secret whose version differs counts as rotated.
 */
export function resolveSecrets(
  resource: ManagedObject,
  uses: readonly SecretUse[],
  reader: SecretReader,
  previous: Readonly<Record<string, string>> | undefined,
): ResolvedSecrets {
  const namespace = resource.metadata.namespace;
  const values = new Map<string, Record<string, string>>();
  const versions: Record<string, string> = {};
  const rotated = new Set<string>();
  for (const use of uses) {
    const secret = reader.get(namespace, use.secretName);
    const where = `Secret ${namespace}/${use.secretName} (${use.field})`;
    if (!secret) throw new ReconcileError('SecretMissing', `${where} not found`, SECRET_MISSING_RETRY_MS);
    const missing = use.keys.filter((key) => !secret.data[key]);
    if (missing.length > 0) {
      throw new ReconcileError(
        'SecretMissing',
        `${where} has no key ${missing.join(', ')}`,
        SECRET_MISSING_RETRY_MS,
      );
    }
    values.set(use.field, Object.fromEntries(use.keys.map((key) => [key, secret.data[key]!])));
    versions[use.secretName] = secret.resourceVersion;
    if (previous?.[use.secretName] !== secret.resourceVersion) rotated.add(use.field);
  }
  return { values: (field) => values.get(field), rotated, versions };
}
