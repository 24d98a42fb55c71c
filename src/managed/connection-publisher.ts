import { createHash, randomBytes } from 'node:crypto';
import { externalIdOf } from './annotations.ts';
import { RETRY_DELAYS } from '../base/retry-delays.ts';
import { ReconcileError } from './errors.ts';
import type { EventNote } from './events.ts';
import { assertControlledBy, type KubeWriter } from './kube-writer.ts';
import { isObserveOnly } from './observe-only.ts';
import type { SecretReader, SecretSnapshot, SecretWriteListener } from './secret-references.ts';
import { recordedAnnotation } from './status-bounds.ts';
import type { StatusChange } from './status-changes.ts';
import type {
  ConnectionDetails,
  ExternalClient,
  ManagedKind,
  ManagedObject,
  ManagedStatus,
  Observation,
} from './types.ts';
import { REASON } from '../base/reasons.ts';

/** The connection Secret as the cache holds it, or as the apiserver answered (no version then). */
/** The connection Secret as last read: its data, and its version when the cache has one. */
export type ConnectionSecret = Pick<SecretSnapshot, 'data'> & Partial<SecretSnapshot>;

/** The longest reset annotation value status can record (its schema's bound). */
const MAX_RESET_VALUE_LENGTH = 1024;
/**
 * After a reset whose Secret write failed, recorded by a version that kept only its time: the next waits this
 * long (and must pass the dry run).
 */
const UNSTORED_RESET_WAIT_MS = RETRY_DELAYS.userAction;

/** A reset whose Secret write failed: when, and what the user controlled then (see `userInputs`). */
interface UnstoredReset {
  at: number;
  inputs: string;
}

export interface ConnectionPublisherOptions<R extends ManagedObject> {
  connectionSecret: NonNullable<ManagedKind<R, unknown>['connectionSecret']>;
  /**
   * The connection Secret's reads and writes, none to the object itself: a missing Secret is no race with
   * the object's removal, and fails as itself.
   */
  writer: Pick<
    KubeWriter,
    'readConnectionSecret' | 'checkConnectionSecretWritable' | 'writeConnectionSecret'
  >;
  /** The operator's Secret cache (with owners): connection Secrets are never read with a GET per reconcile. */
  secrets: SecretReader;
  /** Told of each connection Secret write, so the cache holds the answer rather than read it again. */
  secretWrites?: SecretWriteListener;
  now?: () => Date;
}

/** The cloud object a connection Secret follows, as one reconcile observed it. */
export interface SyncTarget<R extends ManagedObject> {
  resource: R;
  /** The object's `namespace/name`. */
  key: string;
  client: ExternalClient<R, unknown>;
  id: string;
  observation: Extract<Observation<unknown>, { exists: true }>;
  /** Status says the cloud object was found, not created. */
  adopted: boolean;
}

/**
 * The reconcile's executor, as the sync records through it: what status gets (`found`, written with the
 * executor's next change, or with the failure should the sync fail), an Event, the Secret's write.
 */
export interface SyncRecorder<R> {
  readonly found: StatusChange[];
  note(resource: R, note: EventNote): void;
  publish(resource: R, values: ConnectionDetails, current: ConnectionSecret | undefined): Promise<void>;
}

/**
 * Keeps a resource's connection Secret: the values a create returns, the hosts and ports that follow the
 * cloud, and the secret values (a password) recovered only on proof or on request. One per kind that has
 * a connection Secret; the reconciler hands it what it observed, and the reconcile's executor writes what it
 * returns for status and its Secret (`publish`, asked by the executor alone).
 */
export class ConnectionPublisher<R extends ManagedObject> {
  /** A reset whose Secret write failed, by object: status says so too, but the cache may lag it. */
  private readonly unstoredResets = new Map<string, UnstoredReset>();

  constructor(private readonly options: ConnectionPublisherOptions<R>) {}

  /**
   * The connection Secret as the cache holds it; a Secret this resource does not control is a
   * `SecretConflict`. Read before a create: a password that could not be stored would be lost.
   */
  current(resource: R, name = this.name(resource)): ConnectionSecret | undefined {
    const secret = this.options.secrets.get(resource.metadata.namespace, name);
    if (secret) assertControlledBy({ metadata: { name, ownerReferences: secret.ownerReferences } }, resource);
    return secret;
  }

  /** The object `key` is gone: nothing of it is kept. */
  forget(key: string): void {
    this.unstoredResets.delete(key);
  }

  /**
   * Throws `SecretNotWritable` unless the connection Secret write would land now (admission, quota, a
   * namespace being deleted): asked before a create or reset makes a password only that Secret would keep.
   * The dry run writes what the real write will: `values` and the secret keys still to come (their values
   * stand-ins of the same shape), with every key the kind derives from them.
   */
  async assertWritable(
    resource: R,
    current: ConnectionSecret | undefined,
    values: ConnectionDetails = {},
  ): Promise<void> {
    const coming = Object.fromEntries(
      this.options.connectionSecret.requiredKeys.map((key) => [key, randomBytes(24).toString('base64url')]),
    );
    await this.options.writer.checkConnectionSecretWritable(
      resource,
      this.name(resource),
      this.withDerived(resource, { ...values, ...coming }, current),
      current !== undefined,
    );
  }

  /** Where the values only sluice keeps are, for status, once `values` (a create's) hold all of them. */
  stored(resource: R, values: ConnectionDetails): StatusChange {
    const all = this.options.connectionSecret.requiredKeys.every((key) => values[key]);
    return all ? { set: { passwordStoredIn: this.name(resource) } } : {};
  }

  /**
   * Writes `values` into the Secret as last read (`current`), with the keys the kind derives from all the
   * details (kept and new: a template over host and password); a stale read costs a retry, not a loss. The
   * reconcile's executor asks (`ReconcileExecutor.publish`).
   */
  async publish(
    resource: R,
    values: ConnectionDetails,
    current: ConnectionSecret | undefined,
  ): Promise<void> {
    await this.write(resource, this.withDerived(resource, values, current), current);
  }

  /**
   * Keeps the connection Secret complete: follows the cloud's hosts, and gets new secret values (a password
   * reset) when the user asks with the reset annotation, or when status records that sluice keeps them
   * (`passwordStoredIn`) and a live read confirms the Secret lost them; a renamed Secret gets them from the
   * one it replaces. An adopted resource's values were never known to sluice: resetting them unasked would
   * break every client using them, so they stay unknown (`status.unknownConnectionKeys`) until asked. No
   * reset is made unless a dry run shows the Secret can be written.
   * Returns what an object sluice only observes was asked for and did not do, for its status to say.
   * `adopted`: status says the cloud object was found, not created. The reconcile's executor (`act`) takes
   * what status records, as it becomes true (a reset is recorded before its Secret write, and stands should
   * that write fail), the Event a reset is told with, and the values the Secret is written with.
   */
  async sync(target: SyncTarget<R>, act: SyncRecorder<R>): Promise<string | undefined> {
    const { resource, key, client, id, observation, adopted } = target;
    const { connectionSecret, writer } = this.options;
    const name = this.name(resource);
    let current = this.current(resource, name);
    const inputs = this.userInputs(resource, current);
    const values = { ...observation.connectionDetails };
    const lacking = (from: ConnectionSecret | undefined) =>
      connectionSecret.requiredKeys.filter((field) => !from?.data[field] && !values[field]);
    const resetAsked = this.resetAsked(resource);
    const storedIn = this.storedIn(resource, adopted, name);
    // A renamed connection Secret: what sluice kept moves to the new name, read from the old Secret.
    if (storedIn !== undefined && storedIn !== name && lacking(current).length > 0) {
      Object.assign(values, await this.keptIn(resource, storedIn, lacking(current)));
    }
    let missing = lacking(current);
    if (missing.length > 0 && resetAsked === undefined && storedIn !== undefined) {
      // A cache that lags (or has not synced) must not cost a password: only the apiserver's word counts.
      const live = await writer.readConnectionSecret(resource, name);
      current = live && { data: live };
      missing = lacking(current);
    }
    // A password reset is a write to the cloud: an object sluice only observes never sends one. An asked
    // reset runs against its clients that record writes, so status lists the call Full would send; it
    // answers nothing, and nothing is stored or recorded as done.
    const observeOnly = isObserveOnly(resource);
    const withheld = observeOnly ? await this.withheldReset(resource, client, id, resetAsked) : undefined;
    const recover = observeOnly ? undefined : client.recoverConnectionDetails?.bind(client);
    const recovering =
      recover && (resetAsked !== undefined || (missing.length > 0 && storedIn !== undefined));
    if (recovering) {
      // A password is made only when its Secret can keep it: never one per retry of a refused write.
      this.assertNoUnstoredReset(resource, key, inputs);
      await this.assertWritable(resource, current, values);
      Object.assign(values, await recover(resource, id));
      // On record before the write: should it fail, no other reset is made until the user changes something.
      this.unstoredResets.set(key, { at: this.now().getTime(), inputs });
      act.found.push({
        set: { passwordResetUnstored: this.now().toISOString(), passwordResetUnstoredInputs: inputs },
      });
      const [reason, message] =
        resetAsked === undefined
          ? ['ConnectionDetailsRecovered', `restored ${missing.join(', ')} in Secret ${name}`]
          : ['PasswordReset', `reset as asked by ${this.resetAnnotation}, into Secret ${name}`];
      act.note(resource, { type: 'Normal', reason, message });
    }
    const next = this.withDerived(resource, values, current);
    if (Object.entries(next).some(([field, value]) => current?.data[field] !== value)) {
      await act.publish(resource, values, current);
    }
    this.unstoredResets.delete(key);
    const set: ManagedStatus = {};
    const unset: string[] = [];
    // Recorded only once the new values are stored: a failed write asks again.
    if (resetAsked !== undefined && recover) set.passwordReset = recordedAnnotation(resetAsked);
    const unknown = lacking(current);
    if (unknown.length > 0) set.unknownConnectionKeys = unknown;
    else unset.push('unknownConnectionKeys');
    // What sluice knows is a recorded fact, never read from annotations: the Secret that holds the values.
    if (unknown.length === 0) {
      set.passwordStoredIn = name;
      unset.push('passwordResetUnstored', 'passwordResetUnstoredInputs');
    } else if (storedIn !== undefined) set.passwordStoredIn = storedIn;
    act.found.push({ set, unset });
    return withheld;
  }

  /**
   * The Secret sluice keeps the values it alone knows in, or undefined when it never knew them (adopted,
   * not reset since): the status record. An object from a version that recorded neither this nor
   * `unknownConnectionKeys` gets it derived once from what that version went by: it knew the values of a
   * service it created, and of one it reset as asked.
   */
  private storedIn(resource: R, takenBack: boolean, name: string): string | undefined {
    const status = resource.status ?? {};
    if (typeof status.passwordStoredIn === 'string') return status.passwordStoredIn;
    // Taken back from its record in the cloud (a rebuilt cluster): its password was never known here.
    if (status.unknownConnectionKeys !== undefined || takenBack) return undefined;
    const knew = externalIdOf(resource) === undefined || status.passwordReset !== undefined;
    return knew ? name : undefined;
  }

  /** `keys` as the Secret `name` (the connection Secret before a rename) holds them, when this object controls it. */
  private async keptIn(resource: R, name: string, keys: readonly string[]): Promise<ConnectionDetails> {
    let data: Readonly<Record<string, string>> | undefined;
    try {
      const cached = this.options.secrets.get(resource.metadata.namespace, name);
      if (cached)
        assertControlledBy({ metadata: { name, ownerReferences: cached.ownerReferences } }, resource);
      data = cached?.data ?? (await this.options.writer.readConnectionSecret(resource, name));
    } catch (error) {
      // Someone else's Secret by now: not where sluice kept anything.
      if (!(error instanceof ReconcileError && error.reason === REASON.SecretConflict)) throw error;
    }
    return Object.fromEntries(keys.filter((key) => data?.[key]).map((key) => [key, data![key]!]));
  }

  /**
   * Throws while a reset whose Secret write failed stands and nothing the user controls changed since: the
   * same write would fail the same way, and each try would cost the service its password.
   */
  private assertNoUnstoredReset(resource: R, key: string, inputs: string): void {
    const status = resource.status ?? {};
    const recorded: UnstoredReset | undefined =
      this.unstoredResets.get(key) ??
      (typeof status.passwordResetUnstored === 'string'
        ? {
            at: Date.parse(status.passwordResetUnstored) || 0,
            inputs:
              typeof status.passwordResetUnstoredInputs === 'string'
                ? status.passwordResetUnstoredInputs
                : '',
          }
        : undefined);
    if (recorded === undefined) return;
    const when = new Date(recorded.at).toISOString();
    const name = this.name(resource);
    if (recorded.inputs === inputs) {
      throw ReconcileError.terminal(
        REASON.SecretNotWritable,
        `a password reset at ${when} could not be stored in Secret ${name}; no other is made until the ` +
          `object's spec, its ${this.resetAnnotation ?? 'reset'} annotation or the Secret changes`,
        RETRY_DELAYS.userAction,
      );
    }
    // A record without the inputs (an earlier version's) waits a while instead.
    const waitMs = recorded.inputs ? 0 : recorded.at + UNSTORED_RESET_WAIT_MS - this.now().getTime();
    if (waitMs <= 0) return;
    throw ReconcileError.terminal(
      REASON.SecretNotWritable,
      `a password reset at ${when} could not be stored in Secret ${name}; ` +
        'the next waits, and is made only once a dry run shows the Secret can be written',
      waitMs,
    );
  }

  /**
   * What the user controls that a reset's Secret write depends on: the spec (its generation), the reset
   * annotation and the connection Secret as the cache holds it. A digest: status keeps it, never the values.
   */
  private userInputs(resource: R, current: ConnectionSecret | undefined): string {
    const annotation = this.resetAnnotation && resource.metadata.annotations?.[this.resetAnnotation];
    return createHash('sha256')
      .update(
        JSON.stringify([
          resource.metadata.generation ?? null,
          annotation ?? null,
          current ? (current.resourceVersion ?? '') : null,
        ]),
      )
      .digest('hex')
      .slice(0, 32);
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  /** Under Observe: the reset asked for is only recorded (see `sync`); what status says of it. */
  private async withheldReset(
    resource: R,
    client: ExternalClient<R, unknown>,
    id: string,
    resetAsked: string | undefined,
  ): Promise<string | undefined> {
    if (resetAsked === undefined || !client.recoverConnectionDetails) return undefined;
    await client.recoverConnectionDetails(resource, id);
    return `${this.resetAnnotation} asks for a password reset, which managementPolicy Observe never makes`;
  }

  /**
   * A Ready resource whose secret values are unknown says so in Ready, and how to get them. `status`: as
   * this reconcile has it so far.
   */
  unknownKeysNoted(resource: R, status: ManagedStatus): StatusChange {
    const unknown = status.unknownConnectionKeys;
    const ready = status.conditions?.find((c) => c.type === 'Ready');
    if (!Array.isArray(unknown) || ready?.status !== 'True') return {};
    const howToReset = this.resetAnnotation
      ? `; set the annotation ${this.resetAnnotation} to a new value to reset it`
      : '';
    const message = `Secret ${this.name(resource)} has no ${unknown.join(', ')}: adopted without a reset, so unknown to sluice${howToReset}`;
    return { conditions: [{ type: 'Ready', status: 'True', reason: ready.reason, message }] };
  }

  /** `values` with the further keys the kind computes from every detail, kept and new (a template). */
  private withDerived(
    resource: R,
    values: ConnectionDetails,
    current: ConnectionSecret | undefined,
  ): ConnectionDetails {
    const derived = this.options.connectionSecret.derive?.(resource, { ...current?.data, ...values });
    return { ...values, ...derived };
  }

  private async write(
    resource: R,
    values: ConnectionDetails,
    current: ConnectionSecret | undefined,
  ): Promise<void> {
    const name = this.name(resource);
    const exists = current !== undefined;
    const answer = this.options.writer.writeConnectionSecret(
      resource,
      name,
      values,
      exists,
      current?.resourceVersion,
    );
    this.options.secretWrites?.writing(resource.metadata.namespace, name, answer);
    await answer;
  }

  private name(resource: R): string {
    return this.options.connectionSecret.name(resource);
  }

  /** The annotation the kind names for a reset, if it offers one. */
  private get resetAnnotation(): string | undefined {
    return this.options.connectionSecret.resetAnnotation;
  }

  /** The reset annotation's value when it is one not acted on yet. */
  private resetAsked(resource: R): string | undefined {
    const annotation = this.resetAnnotation;
    const asked = annotation === undefined ? undefined : resource.metadata.annotations?.[annotation];
    if (asked !== undefined && asked.length > MAX_RESET_VALUE_LENGTH) {
      const message = `annotation ${annotation} is longer than ${MAX_RESET_VALUE_LENGTH} characters`;
      throw ReconcileError.terminal(REASON.InvalidAnnotation, message, RETRY_DELAYS.userAction);
    }
    return asked !== undefined && recordedAnnotation(asked) !== resource.status?.passwordReset
      ? asked
      : undefined;
  }
}
