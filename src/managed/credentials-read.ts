import type { ReconcileError } from './errors.ts';
import { credentialsSecretNameOf } from './managed-object.ts';
import type { SecretReader, SecretSnapshot } from './secret-references.ts';
import type { ManagedObject } from './types.ts';

/**
 * The credentials an object's cloud calls sign in with (its own Secret or the operator's), read once per
 * reconcile with the rest of the cluster: the organization check, the pin in status, the digest key and the
 * connection all take this one read, so a Secret that changes meanwhile never has one reconcile act under
 * two credentials.
 */
export interface CredentialsRead {
  /** The Secret they are read from, or why the object may use none (thrown once it would call the cloud). */
  readonly secret: { namespace: string; name: string } | ReconcileError;
  /** That Secret as the cache held it when read; undefined when it held none. */
  readonly snapshot: SecretSnapshot | undefined;
  /** The organization they reach; undefined when they name none or cannot be used. */
  readonly organization: string | undefined;
  /**
   * The Secret of the object's own namespace it signs in with (its `spec.credentialsRef`, or the namespace's
   * default while that exists), by name; undefined when it uses the operator's credentials, or may use none.
   */
  readonly objectSecret: string | undefined;
}

/**
 * The Secret of the object's namespace it signs in with (`CredentialsRead.objectSecret`): as `credentials`
 * read it, else looked for in `secrets` now (no reader given: a runtime on its own). `stated`: its kind
 * makes credentials, and never takes the namespace's default.
 */
export function objectSecretOf(
  resource: ManagedObject,
  credentials: CredentialsRead | undefined,
  secrets: SecretReader,
  stated: boolean,
): string | undefined {
  if (credentials) return credentials.objectSecret;
  const exists = (namespace: string, name: string) => secrets.get(namespace, name) !== undefined;
  return credentialsSecretNameOf(resource, exists, stated);
}
