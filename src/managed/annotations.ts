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
  /**
   * Written with `createPending` when the kind settled status fields before the create (JSON; the backup a
   * restore uses): a create whose answer is lost records them when its cloud resource is found.
   */
  createStatus: 'sluice.dev/create-status',
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

/**
 * The status fields recorded with the create intent (`createStatus`), of `fields` only: those the kind
 * settles before a create. The annotation is anyone's to write who may edit the object, so nothing else in
 * it reaches status (an ApiKey's `previousKeyId` there would have the next rotation step delete that key).
 */
export function createStatusOf(
  resource: { metadata: { annotations?: Record<string, string> } },
  fields: readonly string[],
): Record<string, unknown> {
  const text = resource.metadata.annotations?.[ANNOTATIONS.createStatus];
  if (text === undefined || fields.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {};
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const recorded = value as Record<string, unknown>;
  return Object.fromEntries(fields.filter((f) => Object.hasOwn(recorded, f)).map((f) => [f, recorded[f]]));
}

/** The annotation change that removes a spent create intent and what was recorded with it. */
export function spentIntent(resource: {
  metadata: { annotations?: Record<string, string> };
}): Record<string, null> {
  const recorded = resource.metadata.annotations?.[ANNOTATIONS.createStatus] !== undefined;
  return { [ANNOTATIONS.createPending]: null, ...(recorded ? { [ANNOTATIONS.createStatus]: null } : {}) };
}

/** Annotations the operator writes itself (a create's intent): no user edit, and no trigger to reconcile. */
export const OPERATOR_ANNOTATIONS: readonly string[] = [ANNOTATIONS.createPending, ANNOTATIONS.createStatus];

export const MANAGED_BY_LABEL = { 'app.kubernetes.io/managed-by': 'sluice' } as const;
