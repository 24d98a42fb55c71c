/** The finalizer that keeps a resource until its cloud side is deleted or orphaned. */
export const FINALIZER = 'sluice.dev/cleanup';

export const ANNOTATIONS = {
  /** Adopt an existing cloud resource by id instead of creating one. */
  externalId: 'sluice.dev/external-id',
  /** "true" stops all reconciling of the resource, deletion included. */
  paused: 'sluice.dev/paused',
  /** "report": no field is corrected; every difference is reported in status.drift (reportOnly for all). */
  drift: 'sluice.dev/drift',
  /** Per-resource drift-check interval (e.g. 30s, 5m), overriding --sync-interval. */
  syncInterval: 'sluice.dev/sync-interval',
  /**
   * Written by sluice just before a create call (an RFC 3339 time), with optimistic concurrency: after a
   * crash between the call and the status write, the cloud resource created after it is found and adopted.
   */
  createPending: 'sluice.dev/create-pending',
  /** A new value (any) asks for a reconcile at once, with a fresh cloud read; status records it when handled. */
  reconcileRequestedAt: 'sluice.dev/reconcile-requested-at',
  /**
   * The cluster name the object's cloud resource is recorded under, instead of the operator's
   * `--cluster-name`: a cluster taking over another's objects acts under the name they were recorded with.
   */
  ownerCluster: 'sluice.dev/owner-cluster',
} as const;

/** The cloud id the object asks to adopt with `sluice.dev/external-id`, if any. */
export function externalIdOf(resource: {
  metadata: { annotations?: Record<string, string> };
}): string | undefined {
  return resource.metadata.annotations?.[ANNOTATIONS.externalId];
}

/** The time recorded before the last create call, if any. */
export function createIntentOf(resource: {
  metadata: { annotations?: Record<string, string> };
}): Date | undefined {
  const text = resource.metadata.annotations?.[ANNOTATIONS.createPending];
  if (text === undefined) return undefined;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

export const MANAGED_BY_LABEL = { 'app.kubernetes.io/managed-by': 'sluice' } as const;
