import { KubeApiError } from '../kube/kube-http.ts';
import type { KubeWriter } from './kube-writer.ts';

/**
 * The object a write was for is gone (404): its removal raced this reconcile (a finalizer released, a cache
 * that still held it). Nothing is left to do and nothing failed.
 */
export class ObjectGone extends Error {
  constructor(options?: { cause?: unknown }) {
    super('the object was removed while it was reconciled', options);
    this.name = 'ObjectGone';
  }
}

/**
 * The object changed since the version a guarded write was for (409): the cache was behind. Not a failure;
 * the next reconcile works from the newer version.
 */
export class ObjectChanged extends Error {
  constructor(options?: { cause?: unknown }) {
    super('the object changed while it was reconciled', options);
    this.name = 'ObjectChanged';
  }
}

/**
 * `writer`, its writes to the reconciled object itself (status, finalizers, annotations) saying `ObjectGone`
 * for a 404 and `ObjectChanged` for a 409, so the reconciler tells a race with the object's own removal or
 * edit from a failure. Connection Secret writes are left as they are: a missing Secret is no missing object.
 */
export function objectWrites(writer: KubeWriter): KubeWriter {
  const classified = async <T>(write: Promise<T>): Promise<T> => {
    try {
      return await write;
    } catch (error) {
      if (error instanceof KubeApiError && error.statusCode === 404) throw new ObjectGone({ cause: error });
      if (error instanceof KubeApiError && error.statusCode === 409)
        throw new ObjectChanged({ cause: error });
      throw error;
    }
  };
  return {
    patchStatus: (kind, resource, status) => classified(writer.patchStatus(kind, resource, status)),
    setFinalizers: (kind, resource, finalizers) =>
      classified(writer.setFinalizers(kind, resource, finalizers)),
    patchMetadata: (kind, resource, change) => classified(writer.patchMetadata(kind, resource, change)),
    readConnectionSecret: (owner, name) => writer.readConnectionSecret(owner, name),
    checkConnectionSecretWritable: (owner, name, details, exists) =>
      writer.checkConnectionSecretWritable(owner, name, details, exists),
    writeConnectionSecret: (owner, name, details, exists, checkedVersion) =>
      writer.writeConnectionSecret(owner, name, details, exists, checkedVersion),
  };
}
