import type { Logger } from 'pino';
import { apiPath, SECRETS } from '../kube/api-path.ts';
import type { KubeAccess } from '../kube/kube-config.ts';
import { KubeApiError, kubeRequestJson } from '../kube/kube-http.ts';
import type { SecretObject } from '../kube/secret-data.ts';

/**
 * Kept on a credentials Secret (`spec.credentialsRef`) while a sluice object uses it: deleting that object
 * may still need to call the cloud with it. Deleting the Secret (or its namespace) then waits until its last
 * user is gone, as Crossplane's ProviderConfigUsage keeps a ProviderConfig.
 */
export const CREDENTIALS_FINALIZER = 'sluice.dev/credentials-in-use';

export interface CredentialsUsageOptions {
  kubeConfig: KubeAccess;
  /** The Secret (`namespace/name`) as the operator's cache holds it. */
  secret(key: string): SecretObject | undefined;
  /** No object uses the Secret any more: what was kept for it (clients, budgets, metrics) can go. */
  onReleased?(secretKey: string): void;
  logger: Logger;
}

/**
 * Which credentials Secret each sluice object uses, from the object caches, and the finalizer that follows
 * it: added before an object's first cloud call with a Secret, removed when the Secret's last user is gone.
 */
export class CredentialsUsage {
  /** Secret key → the objects using it. */
  private readonly users = new Map<string, Set<string>>();
  /** Object key → the Secret it uses. */
  private readonly uses = new Map<string, string>();
  private synced = false;
  /** Finalizer writes in flight, by Secret key. */
  private readonly adding = new Map<string, Promise<void>>();

  constructor(private readonly options: CredentialsUsageOptions) {}

  /** `user` now uses `secretKey` as its credentials, or none (it is gone, or uses the operator's). */
  set(user: string, secretKey: string | undefined): void {
    const before = this.uses.get(user);
    if (before === secretKey) return;
    if (secretKey === undefined) this.uses.delete(user);
    else {
      this.uses.set(user, secretKey);
      const users = this.users.get(secretKey) ?? new Set();
      this.users.set(secretKey, users.add(user));
    }
    if (before === undefined) return;
    const users = this.users.get(before);
    users?.delete(user);
    if (users?.size === 0) {
      this.users.delete(before);
      this.released(before);
    }
  }

  /** Every cache has synced: Secrets whose users went while the operator was away are released now. */
  start(secretKeys: Iterable<string>): void {
    this.synced = true;
    for (const key of secretKeys) if (!this.users.has(key)) this.released(key);
  }

  /** Secrets that are in use now (for tests and diagnostics). */
  inUse(): string[] {
    return [...this.users.keys()].sort();
  }

  /**
   * Before a cloud call with `secretKey`: the Secret carries the finalizer from now on. A Secret already
   * being deleted cannot take a finalizer (the apiserver refuses new ones): it is used while it lasts.
   */
  hold(secretKey: string, secret = this.options.secret(secretKey)): Promise<void> {
    if (!needsFinalizer(secret)) return Promise.resolve();
    // The objects of one Secret reconcile side by side: one write, which they all wait for.
    let adding = this.adding.get(secretKey);
    if (!adding) {
      adding = this.addFinalizer(secret).finally(() => this.adding.delete(secretKey));
      this.adding.set(secretKey, adding);
    }
    return adding;
  }

  /** A Secret changed: a finalizer no object needs any more goes (also after a removal lost a race). */
  onSecretChange(secretKey: string): void {
    if (this.synced && !this.users.has(secretKey)) void this.removeFinalizer(secretKey);
  }

  private released(secretKey: string): void {
    if (!this.synced) return;
    this.options.onReleased?.(secretKey);
    void this.removeFinalizer(secretKey);
  }

  /** Adds the finalizer; a version the cache had not caught up with yet is read again (twice at most). */
  private async addFinalizer(secret: SecretObject): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.setFinalizers(secret, [...finalizersOf(secret), CREDENTIALS_FINALIZER]);
        return;
      } catch (error) {
        if (!(error instanceof KubeApiError && error.statusCode === 409) || attempt >= 3) throw error;
        const fresh = await this.read(secret);
        if (!needsFinalizer(fresh)) return;
        secret = fresh;
      }
    }
  }

  private async read(secret: SecretObject): Promise<SecretObject | undefined> {
    const { namespace, name } = secret.metadata;
    try {
      return await kubeRequestJson<SecretObject>(this.options.kubeConfig, {
        path: apiPath(SECRETS, namespace, name),
      });
    } catch (error) {
      if (error instanceof KubeApiError && error.statusCode === 404) return undefined;
      throw error;
    }
  }

  private async removeFinalizer(secretKey: string): Promise<void> {
    const secret = this.options.secret(secretKey);
    if (!secret || !finalizersOf(secret).includes(CREDENTIALS_FINALIZER)) return;
    try {
      const rest = finalizersOf(secret).filter((f) => f !== CREDENTIALS_FINALIZER);
      const updated = await this.setFinalizers(secret, rest);
      // A user that arrived while the write was on its way read the old finalizers: it needs them back.
      if (this.users.has(secretKey)) await this.hold(secretKey, updated);
    } catch (error) {
      // A conflict or a Secret gone: the change that caused it arrives as a Secret event, which looks again.
      if (error instanceof KubeApiError && (error.statusCode === 409 || error.statusCode === 404)) return;
      this.options.logger.warn(
        { err: error, secret: secretKey },
        'could not remove the credentials-in-use finalizer',
      );
    }
  }

  /** Sets the Secret's finalizers on exactly the version read: a concurrent change fails (409), never lost. */
  private setFinalizers(secret: SecretObject, finalizers: string[]): Promise<SecretObject> {
    const { namespace, name, resourceVersion } = secret.metadata;
    return kubeRequestJson<SecretObject>(this.options.kubeConfig, {
      method: 'PATCH',
      path: apiPath(SECRETS, namespace, name),
      body: { metadata: { finalizers, resourceVersion } },
      contentType: 'application/merge-patch+json',
    });
  }
}

/** A Secret that exists, is not being deleted (no finalizer can be added then) and lacks the finalizer. */
function needsFinalizer(secret: SecretObject | undefined): secret is SecretObject {
  return (
    secret !== undefined &&
    !secret.metadata.deletionTimestamp &&
    !finalizersOf(secret).includes(CREDENTIALS_FINALIZER)
  );
}

function finalizersOf(secret: SecretObject): string[] {
  const finalizers = secret.metadata.finalizers;
  return Array.isArray(finalizers) ? finalizers.filter((f): f is string => typeof f === 'string') : [];
}
