import { closestName } from '../base/similar-name.ts';
import type { ManagedObject } from './managed-object.ts';

interface ReferenceCommon {
  /** The key the kind finds the resolved references under, e.g. `service`. */
  name: string;
  /** The referenced kind, e.g. `DatabaseService`. */
  kind: string;
  /**
   * Why the referenced object cannot be used by `dependant` (`is stopped`), `NOT_READY_YET` while it is
   * still on its way, or undefined when it can be used.
   */
  notUsableBecause?(target: ManagedObject, dependant: ManagedObject): string | undefined;
}

/**
 * The wait on a referenced object that is still on its way (no cloud id yet, provisioning, ...): one message
 * for all of its steps, so a dependant's status is written once for the whole wait instead of once per step
 * of the other object, whose own status has the detail.
 */
export const NOT_READY_YET = 'is not ready yet';

/**
 * A reference from one sluice kind to another in the same namespace (a Pipe's `spec.serviceRef` to a
 * DatabaseService), or a plain cloud id given instead (`spec.serviceId`) for an object sluice does not manage.
 */
export interface SingleReference<R extends ManagedObject> extends ReferenceCommon {
  /** The referenced object's name, when the spec names one. */
  objectName(resource: R): string | undefined;
  /** The cloud id the spec gives instead of a reference. */
  plainId(resource: R): string | undefined;
  /** The status field that keeps the resolved id, so delete still works once the referenced object is gone. */
  statusField: string;
}

/** A list of references to objects of one kind (a Pipe's `reversePrivateEndpointRefs`); each is waited for. */
export interface ReferenceList<R extends ManagedObject> extends ReferenceCommon {
  objectNames(resource: R): string[];
}

export type ReferenceDeclaration<R extends ManagedObject> = SingleReference<R> | ReferenceList<R>;

const isList = <R extends ManagedObject>(d: ReferenceDeclaration<R>): d is ReferenceList<R> =>
  'objectNames' in d;

/** The names a declaration references in a resource's spec. */
export function referencedNames<R extends ManagedObject>(declaration: ReferenceDeclaration<R>, resource: R) {
  if (isList(declaration)) return declaration.objectNames(resource);
  const name = declaration.objectName(resource);
  return name === undefined ? [] : [name];
}

export interface ResolvedReference {
  /** The referenced object's cloud id. */
  id: string;
  /** The referenced object as cached, when the reference is by name and the object still exists. */
  object?: ManagedObject;
}
/** Resolved references by the declaration's name: one entry for a single reference, any number for a list. */
export type ResolvedReferences = Readonly<Record<string, readonly ResolvedReference[]>>;

/** The one resolved reference of a single-reference declaration. */
export function onlyReference(references: ResolvedReferences, name: string): ResolvedReference {
  const [reference] = references[name] ?? [];
  if (!reference) throw new Error(`reference ${name} was not resolved`);
  return reference;
}

/** Looks a sluice object up in the operator's caches. */
export type ObjectLookup = (kind: string, namespace: string, name: string) => ManagedObject | undefined;

/** A lookup that finds nothing: a runtime on its own sees no other kinds' objects. */
export const NO_OBJECTS: ObjectLookup = () => undefined;

/** The names of the sluice objects of a kind in a namespace, as the caches hold them. */
export type ObjectNames = (kind: string, namespace: string) => Iterable<string>;

/**
 * `missing`: the wait is for an object the cache does not have (yet), named `Kind name`: it may be on its way;
 * `didYouMean` is the one existing name close to it, a likely typo.
 */
export type ReferenceResolution =
  { resolved: ResolvedReferences } | { waitingFor: string; missing?: string; didYouMean?: string };

/**
 * Resolves every reference of a resource that is being reconciled. A reference that cannot be used yet is a
 * wait, never an error: the first one found is named, e.g. `DatabaseService analytics is provisioning`.
 */
export function resolveReferences<R extends ManagedObject>(
  resource: R,
  declarations: readonly ReferenceDeclaration<R>[],
  lookup: ObjectLookup,
  namesOf?: ObjectNames,
): ReferenceResolution {
  const resolved: Record<string, ResolvedReference[]> = {};
  for (const declaration of declarations) {
    const references: ResolvedReference[] = (resolved[declaration.name] = []);
    const names = referencedNames(declaration, resource);
    if (names.length === 0 && !isList(declaration)) {
      const id = declaration.plainId(resource);
      if (id !== undefined) references.push({ id });
    }
    for (const name of names) {
      const what = `${declaration.kind} ${name}`;
      const target = lookup(declaration.kind, resource.metadata.namespace, name);
      if (!target) {
        const near = namesOf && closestName(name, namesOf(declaration.kind, resource.metadata.namespace));
        const hint = near ? `: did you mean ${near}?` : '';
        return {
          waitingFor: `${what} does not exist yet${hint}`,
          missing: what,
          ...(near ? { didYouMean: near } : {}),
        };
      }
      if (target.metadata.deletionTimestamp) return { waitingFor: `${what} is being deleted` };
      const id = target.status?.id;
      if (!id) return { waitingFor: `${what} ${NOT_READY_YET}` };
      const because = declaration.notUsableBecause?.(target, resource);
      if (because) return { waitingFor: `${what} ${because}` };
      references.push({ id, object: target });
    }
  }
  return { resolved };
}

/**
 * A resource's references as a reconcile reads them: how they resolve and, once every one does, the first
 * single reference that now names another cloud object than the one status kept (asked only of a resource
 * with an id: one not made yet was made under none), and the ids status keeps of them.
 */
export type ReferencesRead =
  | Exclude<ReferenceResolution, { resolved: ResolvedReferences }>
  | { resolved: ResolvedReferences; replaced: ReplacedReference | undefined; kept: Record<string, string> };

export function readReferences<R extends ManagedObject>(
  resource: R,
  declarations: readonly ReferenceDeclaration<R>[],
  lookup: ObjectLookup,
  namesOf?: ObjectNames,
): ReferencesRead {
  const resolution = resolveReferences(resource, declarations, lookup, namesOf);
  if (!('resolved' in resolution)) return resolution;
  const { resolved } = resolution;
  const replaced = resource.status?.id ? replacedReference(resource, declarations, resolved) : undefined;
  return { resolved, replaced, kept: keptReferenceIds(declarations, resolved) };
}

/**
 * Resolves single references for deleting: the id kept in status first (the referenced object may be gone),
 * then the referenced object or plain id. Never waits; a reference with no known id is left out. Lists are
 * not needed to delete and are left out.
 */
export function resolveReferencesForDelete<R extends ManagedObject>(
  resource: R,
  declarations: readonly ReferenceDeclaration<R>[],
  lookup: ObjectLookup,
): ResolvedReferences {
  const resolved: Record<string, ResolvedReference[]> = {};
  for (const declaration of declarations) {
    if (isList(declaration)) continue;
    const name = declaration.objectName(resource);
    const target =
      name === undefined ? undefined : lookup(declaration.kind, resource.metadata.namespace, name);
    const kept = resource.status?.[declaration.statusField];
    const id =
      (typeof kept === 'string' ? kept : undefined) ?? target?.status?.id ?? declaration.plainId(resource);
    resolved[declaration.name] = id === undefined ? [] : [{ id, ...(target ? { object: target } : {}) }];
  }
  return resolved;
}

/** The status fields that keep the ids of single references. */
export function keptReferenceIds<R extends ManagedObject>(
  declarations: readonly ReferenceDeclaration<R>[],
  resolved: ResolvedReferences,
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const declaration of declarations) {
    const [reference] = resolved[declaration.name] ?? [];
    if (!isList(declaration) && reference) kept[declaration.statusField] = reference.id;
  }
  return kept;
}

/** A single reference whose object now has another cloud id than the one status kept when it was used. */
export interface ReplacedReference {
  /** What the spec references, e.g. `DatabaseService analytics`. */
  what: string;
  statusField: string;
  kept: string;
  now: string;
}

/**
 * The first single reference that resolves to another cloud id than the one kept in `status` (the referenced
 * object was deleted and applied again, and made a new cloud object), or undefined.
 */
export function replacedReference<R extends ManagedObject>(
  resource: R,
  declarations: readonly ReferenceDeclaration<R>[],
  resolved: ResolvedReferences,
): ReplacedReference | undefined {
  for (const declaration of declarations) {
    if (isList(declaration)) continue;
    const kept = resource.status?.[declaration.statusField];
    const now = resolved[declaration.name]?.[0]?.id;
    if (typeof kept !== 'string' || now === undefined || now === kept) continue;
    const name = declaration.objectName(resource);
    const what = name === undefined ? `spec ${declaration.name} id` : `${declaration.kind} ${name}`;
    return { what, statusField: declaration.statusField, kept, now };
  }
  return undefined;
}

/**
 * `Kind/namespace/name` from a kind and a cache key (`namespace/name`): one key space for every object a
 * resource can depend on (sluice kinds, Secrets).
 */
export const dependencyKey = (kind: string, key: string) => `${kind}/${key}`;

/** Splits a dependency key back into the kind and the cache key (`namespace/name`). */
export function splitDependencyKey(key: string): { kind: string; key: string } {
  const slash = key.indexOf('/');
  return { kind: key.slice(0, slash), key: key.slice(slash + 1) };
}

/**
 * Which objects depend on which (client-go's indexer idea): fed from each dependant's spec as the reflector
 * sees it, read when a referenced object changes so exactly its dependants are enqueued — no polling.
 */
export class DependencyIndex {
  private readonly dependants = new Map<string, Set<string>>();
  private readonly dependencies = new Map<string, readonly string[]>();

  /** Records what `dependant` depends on now (nothing, when it is gone); returns what it depended on before. */
  set(dependant: string, dependencies: readonly string[]): readonly string[] {
    const before = this.dependencies.get(dependant) ?? [];
    for (const dependency of before) {
      const set = this.dependants.get(dependency);
      set?.delete(dependant);
      if (set?.size === 0) this.dependants.delete(dependency);
    }
    if (dependencies.length === 0) this.dependencies.delete(dependant);
    else this.dependencies.set(dependant, dependencies);
    for (const dependency of dependencies) {
      let set = this.dependants.get(dependency);
      if (!set) this.dependants.set(dependency, (set = new Set()));
      set.add(dependant);
    }
    return before;
  }

  dependantsOf(dependency: string): string[] {
    return [...(this.dependants.get(dependency) ?? [])];
  }
}
