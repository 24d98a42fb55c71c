import { KubeApiError } from '../kube/kube-http.ts';
import type { ResourceType } from '../kube/api-path.ts';
import type { KubeWriter } from './kube-writer.ts';
import type { ManagedObject, ManagedStatus } from './managed-object.ts';

/**
 * A write to the reconciled object met a race, not a failure: the object was removed (404: a finalizer
 * released, a cache that still held it), or changed since the version a guarded write was for (409: the
 * cache was behind). Returned, never thrown: the reconcile ends on it and reports nothing; one the object
 * changed under is looked at again, from the newer version.
 */
export class Raced {
  constructor(readonly race: 'gone' | 'changed') {}

  get message(): string {
    return this.race === 'gone'
      ? 'the object was removed while it was reconciled'
      : 'the object changed while it was reconciled';
  }
}

/** The writes to the reconciled object itself: each resolves to the object as written, or the race it met. */
export interface ObjectWriter {
  patchStatus<R extends ManagedObject>(
    kind: ResourceType,
    resource: R,
    status: ManagedStatus,
  ): Promise<R | Raced>;
  setFinalizers<R extends ManagedObject>(
    kind: ResourceType,
    resource: R,
    finalizers: string[],
  ): Promise<R | Raced>;
  patchMetadata<R extends ManagedObject>(
    kind: ResourceType,
    resource: R,
    change: { finalizers?: string[]; annotations?: Record<string, string | null> },
  ): Promise<R | Raced>;
}

/**
 * `writer`'s writes to the reconciled object itself (status, finalizers, annotations), a 404 or 409 returned
 * as the race it is, so the reconciler tells a race with the object's own removal or edit from a failure.
 * Connection Secret writes are not among them: a missing Secret is no missing object.
 */
export function objectWrites(writer: KubeWriter): ObjectWriter {
  const raced = async <T>(write: Promise<T>): Promise<T | Raced> => {
    try {
      return await write;
    } catch (error) {
      if (error instanceof KubeApiError && error.statusCode === 404) return new Raced('gone');
      if (error instanceof KubeApiError && error.statusCode === 409) return new Raced('changed');
      throw error;
    }
  };
  return {
    patchStatus: (kind, resource, status) => raced(writer.patchStatus(kind, resource, status)),
    setFinalizers: (kind, resource, finalizers) => raced(writer.setFinalizers(kind, resource, finalizers)),
    patchMetadata: (kind, resource, change) => raced(writer.patchMetadata(kind, resource, change)),
  };
}
