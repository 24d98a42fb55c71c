import { isDeepStrictEqual } from 'node:util';
import {
  OPERATOR_ANNOTATIONS,
  referencedNames,
  type ObjectLookup,
  type ReferenceDeclaration,
  type ManagedObject,
} from '../managed/index.ts';
import { objectKey } from '../kube/cache.ts';

/** What an object not in the cluster yet is called where its cloud id (or uid) would go. */
export const placeholderId = (kind: string, namespace: string, name: string) =>
  `<id of ${kind} ${namespace}/${name}>`;
const placeholderUid = (kind: string, namespace: string, name: string) =>
  `<uid of ${kind} ${namespace}/${name}>`;

/**
 * The object as the operator would see it once `input` is applied: the cluster's object (uid, status,
 * finalizers, the annotations the operator wrote) with the input's spec, labels and annotations; a new
 * object when the cluster has none (no status, a placeholder uid). The generation moves on when the spec
 * changes, as the apiserver's does.
 */
export function desiredObject(input: ManagedObject, cluster: ManagedObject | undefined): ManagedObject {
  const { kind = '' } = input;
  const { namespace, name } = input.metadata;
  if (!cluster) {
    return {
      ...input,
      metadata: { ...input.metadata, uid: placeholderUid(kind, namespace, name), generation: 1 },
    };
  }
  const kept = Object.fromEntries(
    Object.entries(cluster.metadata.annotations ?? {}).filter(([key]) => OPERATOR_ANNOTATIONS.includes(key)),
  );
  const generation = cluster.metadata.generation ?? 1;
  return {
    ...cluster,
    metadata: {
      ...cluster.metadata,
      annotations: { ...input.metadata.annotations, ...kept },
      labels: { ...input.metadata.labels },
      generation: isDeepStrictEqual(cluster.spec, input.spec) ? generation : generation + 1,
    },
    spec: input.spec,
  };
}

/**
 * What a dependant finds when it looks up an object that is only in the input: the object as it will be
 * once made and usable — a placeholder id, the state its spec asks for, the ids of its own references —
 * so that the dependant plans its create with every known field, and the unknown id shown as such.
 */
export function asIfMade(
  object: ManagedObject,
  declarations: readonly ReferenceDeclaration<ManagedObject>[],
  lookup: ObjectLookup,
): ManagedObject {
  const { kind = '' } = object;
  const { namespace, name } = object.metadata;
  const referenceIds: Record<string, string> = {};
  for (const declaration of declarations) {
    if (!('statusField' in declaration)) continue;
    const [target] = referencedNames(declaration, object);
    const id =
      target === undefined
        ? declaration.plainId(object)
        : lookup(declaration.kind, namespace, target)?.status?.id;
    if (id !== undefined) referenceIds[declaration.statusField] = id;
  }
  const state = typeof object.spec.state === 'string' ? object.spec.state.toLowerCase() : 'running';
  return {
    ...object,
    status: {
      id: placeholderId(kind, namespace, name),
      // A service's state, a reverse private endpoint's status: what each kind's references ask for.
      state,
      status: 'Ready',
      ...referenceIds,
    },
  };
}

/** `Kind/namespace/name`: one key space for the objects of every kind. */
export const worldKey = (kind: string, object: { metadata: { namespace: string; name: string } }) =>
  `${kind}/${objectKey(object)}`;
