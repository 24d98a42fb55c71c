import { isUnauthorized } from '../cloud/errors.ts';
import type { CloudConnection } from '../cloud-access/connection.ts';
import { kindNamed } from '../kinds/index.ts';
import { loadKinds } from '../kinds/load.ts';
import { objectKey } from '../kube/cache.ts';
import { mapConcurrently } from '../base/map-concurrently.ts';
import { failureOf } from '../base/failure.ts';
import type { Priority } from '../base/priority.ts';
import type { WriteRecorder } from '../base/recorded-writes.ts';
import {
  ANNOTATIONS,
  messageOf,
  ReconcileError,
  describePendingChange,
  isObserveOnly,
  REFERENCE_NOT_FOUND,
  referencedNames,
  ALREADY_MANAGED,
  OWNED_BY_ANOTHER_CLUSTER,
  type PendingChange,
  type ClusterIdentity,
  type ObjectLookup,
  type SecretReader,
  type DigestKey,
  type ManagedObject,
  type ManagedStatus,
  type FieldChange,
} from '../managed/index.ts';
import { asIfMade, worldKey } from './desired.ts';
import { DryRun, type DryReconcile } from './dry-run.ts';
import { plannedCall, plannedChange, type PlannedCall } from './sensitive.ts';
import { REASON } from '../base/reasons.ts';

export type { PlannedCall } from './sensitive.ts';

/** `delete` and `orphan`: an object of the cluster the input leaves out (`--prune`), by what its deletion does. */
export type PlanAction = 'create' | 'adopt' | 'update' | 'none' | 'blocked' | 'error' | 'delete' | 'orphan';

/** What the operator would do for one object once the input is applied. */
export interface PlannedResource {
  kind: string;
  namespace: string;
  name: string;
  action: PlanAction;
  /** The calls it would send, in order (for `create`, the create request). */
  calls: PlannedCall[];
  /** The spec fields that differ from the cloud (an update's). */
  changed: string[];
  /** Each of `changed` as the cloud's value and the spec's (a list: entries added and removed). */
  changes: FieldChange[];
  /** Why it is blocked or fails, or what a `none` still waits for. */
  reason?: string;
}

/**
 * Ready reasons of a reconcile that cannot go on until someone acts or another object is there: the
 * operator sends nothing for the object, and the plan says why.
 */
const BLOCKING_REASONS = new Set<string>([
  REASON.WaitingForReference,
  REFERENCE_NOT_FOUND,
  ALREADY_MANAGED,
  REASON.NothingToObserve,
  REASON.Conflict,
  REASON.ReferenceReplaced,
  OWNED_BY_ANOTHER_CLUSTER,
]);

/**
 * Reasons that say the plan could not read the cloud at all (no usable credentials): the plan failed, as
 * for a key the cloud refuses (401, 403). A CI gate must fail on them, never take them for a change.
 */
const ACCESS_REASONS = new Set<string>([
  REASON.CredentialsMissing,
  REASON.OperatorCredentialsNotAllowed,
  REASON.ApiHostNotAllowed,
]);

/** Why the plan could not read the cloud for the object, when that is what `error` says; else undefined. */
function accessFailure(error: unknown): string | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof ReconcileError && ACCESS_REASONS.has(cause.reason)) {
      return `${cause.reason}: ${cause.message}`;
    }
    if (isUnauthorized(cause)) {
      return `${messageOf(cause)} (the cloud refused the credentials: check their key id and key secret)`;
    }
  }
  return undefined;
}

export interface PlanRequest {
  /** The objects to plan, as they will be once applied, in the order they are reported. */
  targets: readonly ManagedObject[];
  /** Every sluice object the operator would see once the input is applied, by `worldKey`. */
  world: ReadonlyMap<string, ManagedObject>;
  /** The `worldKey`s of objects only in the input: dependants see them as made, under a placeholder id. */
  inputOnly: ReadonlySet<string>;
  secrets: SecretReader;
  secretDigestKey(resource: ManagedObject): DigestKey;
  /** Clients of the resource's credentials that record every write in `writes` instead of sending it. */
  cloudFor(resource: ManagedObject, priority: Priority, writes: WriteRecorder): Promise<CloudConnection>;
  /** The cluster name the operator records as owner: what it takes back and what it is refused. */
  cluster: ClusterIdentity;
  /** How many objects are planned at once; the quota scheduler paces the calls whatever this is. */
  concurrency?: number;
  progress?: (line: string) => void;
}

/** Plans every target with the operator's own reconciler, reading the cloud and writing nothing. */
export async function planObjects(request: PlanRequest): Promise<PlannedResource[]> {
  const { targets, progress = () => {} } = request;
  const kinds = await loadKinds();
  // Objects taken back (or refused) are seen by their dependants as they will be, not as made anew.
  const world = new Map(request.world);
  const inputOnly = new Set(request.inputOnly);
  const lookup: ObjectLookup = (kind, namespace, name) => {
    const key = worldKey(kind, { metadata: { namespace, name } });
    const object = world.get(key);
    if (!object || !inputOnly.has(key)) return object;
    return asIfMade(object, kindNamed(kind)?.references ?? [], lookup);
  };
  const namesOf = (kind: string, namespace: string) =>
    [...world.keys()]
      .filter((key) => key.startsWith(`${kind}/${namespace}/`))
      .map((key) => key.slice(`${kind}/${namespace}/`.length));
  const runs = new Map<string, { run: DryRun; objects: Map<string, ManagedObject> }>();
  const runOf = (kind: string) => {
    let found = runs.get(kind);
    if (!found) {
      const objects = new Map(
        [...world].filter(([key]) => key.startsWith(`${kind}/`)).map(([, o]) => [objectKey(o), o]),
      );
      const sluiceKind = kinds.find((loaded) => loaded.kind === kind);
      if (!sluiceKind) throw new Error(`${kind} is no sluice kind`);
      const run = new DryRun(sluiceKind, { ...request, objects, lookup, namesOf });
      runs.set(kind, (found = { run, objects }));
    }
    return found;
  };

  // What an object references is planned before it: what that takes back is what it is planned under.
  const phases = dependencyPhases(targets);
  const planned = new Map<ManagedObject, PlannedResource>();
  let done = 0;
  for (const phase of phases) {
    const results = await planPhase(phase);
    phase.forEach((target, i) => planned.set(target, results[i]!));
  }
  return targets.map((target) => planned.get(target)!);

  function planPhase(phase: readonly ManagedObject[]) {
    return mapConcurrently(
      phase,
      request.concurrency ?? 4,
      async (target) => {
        const kind = target.kind ?? '';
        const { run, objects } = runOf(kind);
        const key = objectKey(target);
        let dry = await run.reconcile(key);
        // A cloud object that is gone is forgotten by one reconcile and made anew by the next: plan both.
        if (dry.status?.conditions?.some((c) => c.type === 'Ready' && c.reason === REASON.ExternalMissing)) {
          objects.set(key, { ...target, status: dry.status });
          dry = await run.reconcile(key);
          objects.set(key, target);
        }
        const worldKeyOf = worldKey(kind, target);
        const refused = dry.status?.conditions?.some((c) => c.reason === OWNED_BY_ANOTHER_CLUSTER);
        // Dependants see what it will be: the id it takes back, or (refused) none, so they wait.
        if ((dry.status?.adopted === true || refused) && inputOnly.has(worldKeyOf)) {
          world.set(worldKeyOf, { ...target, status: dry.status });
          inputOnly.delete(worldKeyOf);
        }
        return classify(target, dry, secretValuesOf(target, request.secrets));
      },
      (resource, target) =>
        progress(
          `[${++done}/${targets.length}] ${target.kind ?? ''} ${objectKey(target)}: ${resource.action}`,
        ),
    );
  }
}

/** An object the apiserver refuses (`refusal` names the file, the object and why): it is never applied. */
export function refusedResource(resource: ManagedObject, refusal: string): PlannedResource {
  const { namespace, name } = resource.metadata;
  const reason = `refused by the apiserver: ${refusal}`;
  return {
    kind: resource.kind ?? '',
    namespace,
    name,
    action: 'error',
    calls: [],
    changed: [],
    changes: [],
    reason,
  };
}

/** What one dry reconcile of `resource` says the operator would do. */
export function classify(
  resource: ManagedObject,
  dry: DryReconcile,
  secretValues: readonly string[] = [],
): PlannedResource {
  const base = {
    kind: resource.kind ?? '',
    namespace: resource.metadata.namespace,
    name: resource.metadata.name,
    calls: [] as PlannedCall[],
    changed: [...dry.differences],
    changes: dry.differences.map((field) =>
      plannedChange(dry.changes.find((change) => change.field === field) ?? { field }, secretValues),
    ),
  };
  const calls = dry.writes.map((write) => plannedCall(write, secretValues));
  // A reconcile that finds the status as it should be writes none: the status is then the object's own.
  const status = dry.status ?? resource.status;
  const ready = status?.conditions?.find((c) => c.type === 'Ready');
  const synced = status?.conditions?.find((c) => c.type === 'Synced');
  if (synced?.reason === REASON.ReconcilePaused) {
    return { ...base, action: 'none', reason: synced.message ?? `paused by ${ANNOTATIONS.paused}` };
  }
  if (dry.created) {
    const effects = dry.createEffects === undefined ? {} : { reason: dry.createEffects };
    return { ...base, action: 'create', calls, changed: [], changes: [], ...effects };
  }
  const takenBack = dry.status?.adopted === true && !resource.status?.id ? dry.status.id : undefined;
  if (takenBack && !isObserveOnly(resource)) {
    const reason = `takes back ${takenBack}, recorded in the cloud for this object; nothing is created`;
    return { ...base, action: 'adopt', calls, reason };
  }
  if (isObserveOnly(resource)) {
    if (ready?.reason === REASON.NothingToObserve)
      return { ...base, action: 'blocked', reason: ready.message! };
    const pending = pendingChangesOf(status);
    if (pending.length > 0) {
      const listed = pending.map(describePendingChange).join('; ');
      return {
        ...base,
        action: 'none',
        reason: `managementPolicy Observe sends nothing; Full would send ${listed}`,
      };
    }
  } else if (calls.length > 0) {
    return { ...base, action: 'update', calls };
  }
  const noAccess = dry.error === undefined ? undefined : accessFailure(dry.error);
  if (noAccess) return { ...base, action: 'error', reason: noAccess };
  if (dry.error !== undefined) {
    // A failure only the user can end (a field the cloud cannot change, a Secret missing) blocks the
    // object; any other (the cloud failing, a network error) is an error of the plan itself.
    const terminal = failureOf(dry.error)?.kind === 'terminal';
    const reason = synced?.status === 'False' ? `${synced.reason}: ${synced.message}` : messageOf(dry.error);
    return { ...base, action: terminal ? 'blocked' : 'error', reason };
  }
  if (ready?.status === 'False' && BLOCKING_REASONS.has(ready.reason)) {
    return { ...base, action: 'blocked', reason: ready.message ?? ready.reason };
  }
  const note = ready?.status === 'False' ? ready.message : undefined;
  return { ...base, action: 'none', ...(note ? { reason: note } : {}) };
}

function pendingChangesOf(status: ManagedStatus | undefined): PendingChange[] {
  return Array.isArray(status?.pendingChanges) ? (status.pendingChanges as PendingChange[]) : [];
}

/** The values of the Secrets the object references: none of them may be printed. */
function secretValuesOf(resource: ManagedObject, secrets: SecretReader): string[] {
  const uses = kindNamed(resource.kind ?? '')?.secretReferences?.(resource) ?? [];
  return uses.flatMap((use) => {
    const data = secrets.get(resource.metadata.namespace, use.secretName)?.data ?? {};
    return use.keys.flatMap((key) => (data[key] === undefined ? [] : [data[key]]));
  });
}

/**
 * The targets in phases, each after every target it references (a Pipe after its DatabaseService, a service
 * restored from another after that one): an object's phase is one more than the deepest of its references
 * among the targets. A reference cycle, which the operator would leave waiting too, ends in the last phase.
 */
export function dependencyPhases(targets: readonly ManagedObject[]): ManagedObject[][] {
  const byKey = new Map(targets.map((t) => [worldKey(t.kind ?? '', t), t]));
  const referenced = (target: ManagedObject) =>
    (kindNamed(target.kind ?? '')?.references ?? []).flatMap((declaration) =>
      referencedNames(declaration, target)
        .map((name) =>
          byKey.get(worldKey(declaration.kind, { metadata: { namespace: target.metadata.namespace, name } })),
        )
        .filter((found): found is ManagedObject => found !== undefined && found !== target),
    );
  const depth = new Map<ManagedObject, number>();
  const depthOf = (target: ManagedObject, visiting: Set<ManagedObject>): number => {
    const known = depth.get(target);
    if (known !== undefined) return known;
    if (visiting.has(target)) return targets.length;
    visiting.add(target);
    const deepest = Math.max(-1, ...referenced(target).map((r) => depthOf(r, visiting)));
    visiting.delete(target);
    const own = Math.min(deepest + 1, targets.length);
    depth.set(target, own);
    return own;
  };
  const phases: ManagedObject[][] = [];
  for (const target of targets) (phases[depthOf(target, new Set())] ??= []).push(target);
  return phases.filter((phase) => phase !== undefined);
}
