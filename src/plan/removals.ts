import { kindNamed } from '../kinds/index.ts';
import { isObserveOnly, type ManagedObject } from '../managed/index.ts';
import type { PlannedResource } from './planner.ts';

/**
 * `--prune`: what deleting each object of the cluster that the input leaves out would do to the cloud, as a
 * GitOps tool that prunes (Argo CD, Flux, `kubectl apply --prune`) deletes it once the manifest is removed.
 * `delete` when its deletion policy removes the cloud object, `orphan` when the cloud object stays.
 */
export function plannedRemovals(left: readonly ManagedObject[]): PlannedResource[] {
  return left.map((object) => {
    const kind = object.kind ?? '';
    const id = object.status?.id;
    const cloudObject = `the cloud ${kind}${id ? ` ${id}` : ''}`;
    const policy = object.spec.deletionPolicy ?? kindNamed(kind)?.defaultDeletionPolicy ?? 'Delete';
    const [action, reason] = !id
      ? (['orphan', 'not in the input; it manages no cloud object yet'] as const)
      : isObserveOnly(object)
        ? ([
            'orphan',
            `not in the input; deleting it leaves ${cloudObject} (managementPolicy Observe)`,
          ] as const)
        : policy === 'Delete'
          ? ([
              'delete',
              `not in the input; deleting it deletes ${cloudObject} (deletionPolicy Delete)`,
            ] as const)
          : ([
              'orphan',
              `not in the input; deleting it leaves ${cloudObject} (deletionPolicy Orphan)`,
            ] as const);
    return {
      kind,
      namespace: object.metadata.namespace,
      name: object.metadata.name,
      action,
      calls: [],
      changed: [],
      changes: [],
      reason,
    };
  });
}
