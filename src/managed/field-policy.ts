import { isDeepStrictEqual } from 'node:util';
import { ANNOTATIONS } from './annotations.ts';
import { fieldChanges, type FieldChange } from './field-changes.ts';
import { readPath } from './field-paths.ts';

/** `spec.fieldPolicy`: who owns which field after create. A field it does not name is enforced. */
export interface FieldPolicy {
  /** Sent in the create; afterwards the cloud's value stands. */
  createOnly?: string[];
  /** Differences are reported in `status.drift`, never corrected. */
  reportOnly?: string[];
  /** Lists whose entries sluice enforces while leaving the entries others add alone. */
  additive?: string[];
}

/**
 * What a kind says of its spec's fields, stated once as data: the CRD's admission rules, `sluice plan` and
 * the reconciler all read it.
 */
export interface PolicyFields {
  /** Every field a policy may name, as a dotted path (`scaling.replicas`). */
  paths: readonly string[];
  /** Fields the cloud fixes at creation: a policy on them would mean nothing, so it is refused. */
  fixed: readonly string[];
  /**
   * Fields whose cloud value sluice never reads or shows (a URL that may hold a token, headers the cloud never
   * returns): what the cloud holds there cannot be kept or reported, so a policy on them is refused, and
   * `sluice.dev/drift: report` reports their differences without a cloud value.
   */
  unread?: readonly string[];
  /** The lists `additive` may name, each with the entry field that tells entries apart. */
  additive: Readonly<Record<string, string>>;
}

/** A field that differs from the spec and is left as it is, with what the cloud holds. */
export interface DriftedField {
  path: string;
  observed: unknown;
  /** A field whose cloud value sluice never reads (`PolicyFields.unread`): status shows none. */
  unread?: true;
}

/** By additive list: the identities of the entries sluice set there (and so may remove). */
export type ManagedEntries = Record<string, string[]>;

export interface PolicyOutcome<S, J> {
  /** The spec sluice enforces: fields left to the cloud hold the cloud's value, shared lists others' entries. */
  spec: S;
  /** What the kind's diff says of that spec. */
  judgement: J;
  /** The differences sluice corrects: what the plan's calls change. */
  differences: string[];
  /** Each difference as the cloud's value and the one sluice sends (`sluice plan` shows them). */
  changes: FieldChange[];
  /** The differences left as they are. */
  drift: DriftedField[];
  /** For `status.managedEntries`; undefined when the spec names no additive list. */
  managedEntries?: ManagedEntries;
}

/** What the policy reads of an object: its drift annotation, its spec and the entries it manages. */
export interface PolicedObject<S> {
  metadata: { annotations?: Record<string, string> };
  spec: S & { fieldPolicy?: FieldPolicy };
  status?: { managedEntries?: ManagedEntries };
}

/**
 * Applies the object's field policy to a kind's diff, which stays a pure function of a spec: fields left
 * to the cloud are given the cloud's value (`observed`, the cloud resource in the spec's own terms) and a
 * shared list the entries others added, so the kind's own diff finds nothing to change there. A field is
 * drift when putting the spec's value back would change the plan. `sluice.dev/drift: report` is reportOnly
 * for every field: what is still different (a rotated Secret) is reported too.
 */
export function applyFieldPolicy<S extends object, J extends { differences: string[] }>(
  resource: PolicedObject<S>,
  fields: PolicyFields,
  observed: Readonly<Record<string, unknown>>,
  diff: (spec: S) => J,
): PolicyOutcome<S, J> {
  const policy = resource.spec.fieldPolicy ?? {};
  const reportAll = resource.metadata.annotations?.[ANNOTATIONS.drift] === 'report';
  const { spec: shared, managedEntries } = shareLists(
    resource.spec,
    policy.additive ?? [],
    fields,
    observed,
    resource.status,
  );
  const leftAlone = reportAll
    ? fields.paths.filter((path) => !path.includes('.'))
    : [...(policy.createOnly ?? []), ...(policy.reportOnly ?? [])];
  let spec = shared;
  for (const path of leftAlone) {
    // A createOnly field of an object the cloud does not hold yet (an upgrade window never set) goes out
    // when that object is made: that is its create.
    if (!reportAll && policy.createOnly?.includes(path) && parentAbsent(observed, path)) continue;
    spec = withPath(spec, path, readPath(observed, path));
  }
  // The one diff: of the spec with every field left alone holding the cloud's value.
  const judgement = diff(spec);
  const differences = new Set(judgement.differences);
  const drift: DriftedField[] = [];
  // A field left alone is drift when putting the spec's value back would change what is sent (its calls,
  // not only the names: a pipe's `scaling` is one difference for all its keys). Only a field whose value the
  // cloud holds otherwise is put back, a diff each: while the cloud holds the spec's values there is none.
  const sent = withoutReadiness(judgement);
  for (const path of leftAlone) {
    const wanted = readPath(shared, path);
    if (isDeepStrictEqual(wanted, readPath(spec, path))) continue;
    if (!isDeepStrictEqual(withoutReadiness(diff(withPath(spec, path, wanted))), sent))
      drift.push({ path, observed: readPath(observed, path) });
  }
  if (reportAll) {
    // Nothing is corrected: what no field's value explains (a credential to send) is reported as well.
    for (const path of judgement.differences)
      drift.push(
        fields.unread?.includes(path)
          ? { path, observed: undefined, unread: true }
          : { path, observed: readPath(observed, path) },
      );
    differences.clear();
  }
  return {
    spec,
    judgement,
    differences: [...differences],
    changes: fieldChanges([...differences], observed, spec),
    drift,
    ...(managedEntries ? { managedEntries } : {}),
  };
}

/**
 * What a judgement says of whether the object is usable by the spec judged: a drift check leaves it out,
 * since a spec may change it without a call (a pipe Completed waits, whatever the state it is asked for).
 */
export const READINESS_FIELDS = ['available', 'waitingFor', 'failed', 'reason'] as const;

/** A judgement as a drift check compares it: what is sent and what differs, its readiness left out. */
function withoutReadiness(judgement: object): unknown {
  const sent: Record<string, unknown> = { ...judgement };
  for (const field of READINESS_FIELDS) delete sent[field];
  return sent;
}

/** Whether the object holding a nested path is absent (or null) in `value`; false for a top-level path. */
function parentAbsent(value: unknown, path: string): boolean {
  const at = path.lastIndexOf('.');
  return at > 0 && readPath(value, path.slice(0, at)) == null;
}

/**
 * Puts the entries others added back into each additive list of `spec`: every observed entry whose
 * identity the spec does not hold, unless sluice set it earlier (then the user removed it from the spec,
 * and sluice removes it from the cloud). Returns what sluice manages now: the spec's entries, and those it
 * set earlier that the cloud still holds, until they are gone.
 */
function shareLists<S extends object>(
  written: S,
  additive: readonly string[],
  fields: PolicyFields,
  observed: Readonly<Record<string, unknown>>,
  status: { managedEntries?: ManagedEntries } | undefined,
): { spec: S; managedEntries?: ManagedEntries } {
  if (additive.length === 0) return { spec: written };
  let spec = written;
  const managed: ManagedEntries = {};
  for (const path of additive) {
    const key = fields.additive[path];
    if (key === undefined) continue;
    const identity = (entry: unknown) => String((entry as Record<string, unknown>)[key]);
    const ours = (readPath(spec, path) as unknown[] | undefined) ?? [];
    const theirs = (readPath(observed, path) as unknown[] | undefined) ?? [];
    const wanted = new Set(ours.map(identity));
    const earlier = new Set(status?.managedEntries?.[path] ?? []);
    const others = theirs.filter((entry) => !wanted.has(identity(entry)) && !earlier.has(identity(entry)));
    spec = withPath(spec, path, [...ours, ...others]);
    const stillThere = theirs.map(identity).filter((id) => earlier.has(id) && !wanted.has(id));
    managed[path] = [...new Set([...wanted, ...stillThere])].sort().slice(0, MAX_MANAGED_ENTRIES);
  }
  return { spec, managedEntries: managed };
}

/** Bounds of what the policy writes to status (the status schema states them too): status stays small. */
export const MAX_MANAGED_ENTRIES = 500;
export const MAX_DRIFT_ENTRIES = 32;
export const MAX_OBSERVED_LENGTH = 256;

/**
 * A copy of `target` with the value at a dotted path replaced (undefined removes the field): only the objects
 * on the path are copied, the rest is shared, so it is cheap for large specs.
 */
export function withPath<T extends object>(target: T, path: string, value: unknown): T {
  const [key, ...rest] = path.split('.') as [string, ...string[]];
  const copy: Record<string, unknown> = { ...(target as Record<string, unknown>) };
  if (rest.length > 0) {
    const child = copy[key];
    copy[key] = withPath(child !== null && typeof child === 'object' ? child : {}, rest.join('.'), value);
  } else if (value === undefined) delete copy[key];
  else copy[key] = value;
  return copy as T;
}
