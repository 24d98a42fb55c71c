import { failureOf } from '../base/failure.ts';
import type { RecordedWrite, WriteRecorder } from '../base/recorded-writes.ts';
import { ANNOTATIONS } from './annotations.ts';
import { ReconcileError, Waiting } from './errors.ts';
import { boundedText, STATUS_BOUNDS } from './status-bounds.ts';
import type { StatusChange } from './status-changes.ts';
import type { ExternalClient, ManagedObject, Observation } from './types.ts';
import { REASON } from '../base/reasons.ts';

/** A call sluice would send, as status shows it: never a value, only the names of the fields it sets. */
export interface PendingChange {
  method: string;
  path: string;
  fields: string[];
}

/** The Ready reason of every object sluice only observes. */
export const OBSERVE_ONLY = REASON.ObserveOnly;

/** `spec.managementPolicy: Observe`: sluice reads the cloud and writes status, and never writes to the cloud. */
export function isObserveOnly(resource: ManagedObject): boolean {
  return resource.spec.managementPolicy === 'Observe';
}

/** Status lists at most this many calls (its schema's bound); the Ready message says how many more. */
const MAX_LISTED = STATUS_BOUNDS.pendingChanges;

/** The leaves of a request body by dotted name (`ipAccessList.add`), with their values; arrays are leaves. */
export function bodyLeaves(body: unknown, prefix = ''): [string, unknown][] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return prefix ? [[prefix, body]] : [];
  const entries = Object.entries(body as Record<string, unknown>);
  if (entries.length === 0) return prefix ? [[prefix, body]] : [];
  return entries.flatMap(([key, value]) => bodyLeaves(value, prefix ? `${prefix}.${key}` : key));
}

/** The dotted names of the leaves of a request body (`ipAccessList.add`); arrays are leaves. */
export function fieldNames(body: unknown, prefix = ''): string[] {
  return bodyLeaves(body, prefix).map(([name]) => name);
}

/** A recorded write as status lists it, cut to the status bounds (field names come from user input). */
export function pendingChangeOf(write: RecordedWrite): PendingChange {
  const fields = fieldNames(write.body)
    .slice(0, STATUS_BOUNDS.pendingChangeFields)
    .map((name) => boundedText(name, STATUS_BOUNDS.fieldName));
  return { method: write.method, path: boundedText(write.path, STATUS_BOUNDS.path), fields };
}

/** `PATCH /v1/…/services/s-1 (name, ipAccessList.add)`: one call in one line. */
export function describePendingChange(change: PendingChange): string {
  const fields = change.fields.length > 0 ? ` (${change.fields.join(', ')})` : '';
  return `${change.method} ${change.path}${fields}`;
}

/**
 * Status and Ready of an observed object: what the cloud differs in, the calls Full would send, and
 * `notes`: what Full would do beyond them (fail on a change no call can make, act on an annotation).
 */
export function reportObserved(
  differences: readonly string[],
  writes: readonly RecordedWrite[],
  waitingFor: string | undefined,
  notes: readonly string[] = [],
): StatusChange {
  const changes = writes.map(pendingChangeOf);
  const listed: StatusChange =
    changes.length > 0
      ? { set: { pendingChanges: changes.slice(0, MAX_LISTED) } }
      : { unset: ['pendingChanges'] };
  if (differences.length > 0 || changes.length > 0 || notes.length > 0) {
    const more = changes.length > MAX_LISTED ? `; and ${changes.length - MAX_LISTED} more` : '';
    const calls = changes.slice(0, MAX_LISTED).map(describePendingChange).join('; ');
    const message =
      `observed only: the cloud differs in ${differences.join(', ') || 'nothing sluice compares'}; ` +
      `managementPolicy Full would send ${calls || 'no call'}${more}` +
      notes.map((note) => `; ${note}`).join('');
    return { ...listed, conditions: [{ type: 'Ready', status: 'False', reason: OBSERVE_ONLY, message }] };
  }
  // Matching but not usable yet (a service still starting) is not Ready, as it is not under Full.
  const message = waitingFor
    ? `observed only: the cloud matches the spec, but ${waitingFor}`
    : 'observed only: the cloud matches the spec';
  const status = waitingFor ? 'False' : 'True';
  return { ...listed, conditions: [{ type: 'Ready', status, reason: OBSERVE_ONLY, message }] };
}

/**
 * An observed object read: Synced, and no field-policy drift to tell of. Recorded before the recorded update
 * runs (`recordPendingChanges`), so it stands should that fail.
 */
export const OBSERVED: StatusChange = {
  removed: ['Drifted'],
  conditions: [{ type: 'Synced', status: 'True', reason: REASON.ReconcileSuccess }],
};

/**
 * Observe: the kind's own `update` runs against clients that record its writes, so the calls status lists
 * are by construction those Full sends. Secret digests stay as they were: nothing was sent. `notes`: what
 * else the object asks for that Observe does not do (a password reset). Returns what status says of it.
 */
export async function recordPendingChanges<R extends ManagedObject, Plan>(
  resource: R,
  client: ExternalClient<R, Plan>,
  id: string,
  observation: Extract<Observation<Plan>, { exists: true }>,
  writes: WriteRecorder,
  notes: readonly string[] = [],
): Promise<StatusChange> {
  const refused =
    observation.differences.length > 0
      ? await refusalOf(() => client.update(resource, id, observation))
      : undefined;
  const waitingFor = observation.available ? undefined : (observation.waitingFor ?? 'waiting for the cloud');
  const all = refused ? [...notes, `it would fail: ${refused}`] : notes;
  return reportObserved(observation.differences, writes.writes, waitingFor, all);
}

/**
 * Runs an update under Observe; the message of a change the kind refuses to make (no call can make it in
 * place), which Full would fail on every time: under Observe that is what status shows, not a failure.
 * Anything else (a read that failed) still fails the reconcile.
 */
async function refusalOf(update: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await update();
    return undefined;
  } catch (error) {
    if (error instanceof ReconcileError && failureOf(error)?.kind === 'terminal') return error.message;
    throw error;
  }
}

/** An Observe object with no cloud id would need a create, which Observe never sends. */
export function nothingToObserve(kind: string): Waiting {
  return new Waiting(
    REASON.NothingToObserve,
    `managementPolicy Observe never creates: set the annotation ${ANNOTATIONS.externalId} to the id of the ${kind} to observe, or managementPolicy Full to create one`,
  );
}
