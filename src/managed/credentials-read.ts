import type { ReconcileError } from './errors.ts';
import type { SecretSnapshot } from './secret-references.ts';

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
}
