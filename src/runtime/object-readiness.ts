import type { ManagedObject } from '../managed/types.ts';
import type { ObjectReadiness } from './metrics.ts';

/**
 * Each object's Ready condition as the readiness gauges count it: by credentials Secret, kind, status and
 * reason, with how long it has been so (since creation for an object with no condition yet).
 */
export function* readinessOf(
  objects: Iterable<{ kind: { kind: string }; object: ManagedObject }>,
  credentialsOf: (object: ManagedObject) => { namespace: string; name: string } | undefined,
  now: number = Date.now(),
): Generator<ObjectReadiness> {
  for (const { kind, object } of objects) {
    const ready = object.status?.conditions?.find((c) => c.type === 'Ready');
    const since = Date.parse(ready?.lastTransitionTime ?? object.metadata.creationTimestamp ?? '');
    const ref = credentialsOf(object);
    yield {
      credentials: ref ? `${ref.namespace}/${ref.name}` : '',
      kind: kind.kind,
      ready: ready?.status ?? 'Unknown',
      reason: ready?.reason || 'None',
      sinceSeconds: Number.isNaN(since) ? 0 : Math.max(0, (now - since) / 1000),
    };
  }
}
