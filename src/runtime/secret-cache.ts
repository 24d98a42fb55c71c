import type { Informer } from '../kube/informer.ts';
import type { SecretReader, SecretSnapshot } from '../managed/secret-references.ts';
import { decodeSecretData, type SecretObject } from '../kube/secret-data.ts';

/**
 * Secrets as the operator's informers hold them (one for the watched namespaces, maybe one more for the
 * operator's credentials Secret elsewhere), decoded on read. No apiserver request per reconcile.
 */
export class SecretCache implements SecretReader {
  constructor(private readonly informers: readonly Informer<SecretObject>[]) {}

  get(namespace: string, name: string): SecretSnapshot | undefined {
    for (const informer of this.informers) {
      const secret = informer.cache.get(`${namespace}/${name}`);
      if (secret) {
        return {
          data: decodeSecretData(secret.data ?? {}),
          resourceVersion: secret.metadata.resourceVersion ?? '',
          ...(secret.metadata.ownerReferences ? { ownerReferences: secret.metadata.ownerReferences } : {}),
        };
      }
    }
    return undefined;
  }

  /** The Secret as the watch delivered it (data still encoded): for its metadata. */
  object(namespace: string, name: string): SecretObject | undefined {
    for (const informer of this.informers) {
      const secret = informer.cache.get(`${namespace}/${name}`);
      if (secret) return secret;
    }
    return undefined;
  }

  /** The keys (`namespace/name`) of every cached Secret. */
  keys(): string[] {
    return this.informers.flatMap((informer) => informer.cache.keys());
  }

  /** A cached Secret's identity (never its data): what an Event about the Secret names. */
  identity(namespace: string, name: string): { namespace: string; name: string; uid: string } | undefined {
    for (const informer of this.informers) {
      const uid = informer.cache.get(`${namespace}/${name}`)?.metadata.uid;
      if (uid !== undefined) return { namespace, name, uid };
    }
    return undefined;
  }
}
