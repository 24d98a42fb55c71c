import type { Logger } from 'pino';
import type { WriteRecorder } from '../base/recorded-writes.ts';
import { objectKey } from '../kube/cache.ts';
import type { ResourceType } from '../kube/api-path.ts';
import { ANNOTATIONS, FINALIZER, spentIntent } from './annotations.ts';
import type { ConnectionPublisher, ConnectionSecret } from './connection-publisher.ts';
import type { CreateAttempts } from './create-attempts.ts';
import type { CacheFollowers } from './cache-followers.ts';
import type { CredentialsRead } from './credentials-read.ts';
import type { Decision, Effect } from './decide.ts';
import { deferralOf, Waiting } from './errors.ts';
import type { EventNote, EventRecorder } from './events.ts';
import { Raced, type ObjectWriter } from './object-writes.ts';
import { recordPendingChanges } from './observe-only.ts';
import type { Ended, Outcome, Outcomes } from './outcomes.ts';
import type { ResolvedSecrets } from './secret-references.ts';
import type { StatusChange } from './status-changes.ts';
import { STATUS_REFUSED, type StatusDraft, type StatusWriter } from './status-draft.ts';
import type {
  ConnectionDetails,
  CreatePreparation,
  Creation,
  ExternalClient,
  ManagedObject,
  ManagedStatus,
  Observation,
} from './types.ts';
import { REASON } from '../base/reasons.ts';

/**
 * What every reconcile's executor is given alike: the writers of the object, its Events and Secret, and the
 * hold on its credentials.
 */
export interface ExecutorServices<R extends ManagedObject> {
  kind: ResourceType & { kind: string };
  writer: ObjectWriter;
  statuses: StatusWriter<R>;
  events: EventRecorder;
  /** Keeps the resource's own credentials Secret until the resource is gone (none: nothing to keep). */
  holdCredentials?(resource: R, credentials: CredentialsRead | undefined): Promise<void>;
  outcomes: Outcomes<R>;
  connections: ConnectionPublisher<R> | undefined;
  logger: Logger;
  /** Told once this process's own status write is known: what it keeps beside the cache follows it. */
  followers: Pick<CacheFollowers<R>, 'changed'>;
  /** The creates under way and the look-ups they make needless. */
  creates: CreateAttempts;
  /** The organization status pins once the object has an id (`pinned`): that of the credentials it used. */
  credentialsChecks: { pinned(id: string, credentials: CredentialsRead | undefined): ManagedStatus };
}

/** Makes the executor of one reconcile, from its status draft and what every executor is given. */
export type ExecutorFactory<R extends ManagedObject> = (
  draft: StatusDraft<R>,
  services: ExecutorServices<R>,
) => ReconcileExecutor<R>;

/** A create, decided before anything is written: what it sends and records. */
export interface CreateStep<R extends ManagedObject> {
  client: ExternalClient<R, unknown>;
  /** The kind's preparation of the create, which also says what it does besides (`createEffects`). */
  creation: CreatePreparation<R> | undefined;
  secrets: ResolvedSecrets;
  /** The credentials the create is sent with, as the reconcile read them: what status pins once made. */
  credentials: CredentialsRead | undefined;
  /** The connection Secret as last read. */
  existing: ConnectionSecret | undefined;
  /** Values the client made for the create (a key's secret): stored before it is sent. */
  prepared: ConnectionDetails | undefined;
  /** What the create will record and is settled already (`CreatePreparation.createStatus`), as JSON. */
  createStatus: string | undefined;
  /** When the create was decided: the intent the object carries while it is under way. */
  intentAt: Date;
}

/** The cloud object a decision acts on: what its effects are performed with. */
export interface ObservedTarget<R extends ManagedObject, P> {
  resource: R;
  client: ExternalClient<R, P>;
  id: string;
  observation: Extract<Observation<P>, { exists: true }>;
  secrets: ResolvedSecrets;
  /** Under Observe: where the recorded update's writes go. */
  writes?: WriteRecorder | undefined;
}

/**
 * Performs what one reconcile decided, in order: the one place its status draft is written, its object's
 * metadata and status are written, its changes are sent and its Events recorded. One per reconcile.
 */
export class ReconcileExecutor<R extends ManagedObject> {
  /**
   * What the reading parts of the reconcile found for status, written into the draft together, ahead of the
   * next change: before the create, the end, or a failure's status, so what was found stands beside them.
   */
  readonly found: StatusChange[] = [];

  /**
   * Keeps the resource's own credentials Secret until the resource is gone (the operator's credentials
   * finalizer on it): asked before any cloud call made with them, as the reconcile read them. The services'
   * hold itself (no layer between: it is the one call into the executor's services a reconcile makes before
   * it acts), or one that holds nothing (`sluice plan`'s executor is given none).
   */
  holdCredentials: (resource: R, credentials: CredentialsRead | undefined) => Promise<void>;

  constructor(
    private readonly draft: StatusDraft<R>,
    private readonly services: ExecutorServices<R>,
  ) {
    this.holdCredentials = services.holdCredentials ?? holdNothing;
  }

  /** Status as the reconcile has it so far: read here, written only by this executor. */
  get status(): Readonly<ManagedStatus> {
    return this.draft.status;
  }

  /** The object as the last write to it left it. */
  get resource(): R {
    return this.draft.resource;
  }

  /** The reconcile has nothing to write to status (the object is on its way out, or it says nothing yet). */
  get discarded(): boolean {
    return this.draft.discarded;
  }

  /** A version of the object this process wrote that precedes the status write as surely as the one read. */
  alsoRead(version: string): void {
    this.draft.readVersions.push(version);
  }

  /** What status gets, written into the draft in order, after what was found. */
  apply(...changes: readonly StatusChange[]): void {
    this.draft.apply(...this.found.splice(0), ...changes);
  }

  /** An Event on the object. */
  event(resource: R, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.services.events.record(resource, type, reason, message);
  }

  /** An Event on the object that a step of the reconcile decided on as data. */
  note(resource: R, { type, reason, message }: EventNote): void {
    this.event(resource, type, reason, message);
  }

  /**
   * How the reconcile ends: what was found, then its end's status, into the draft, and the Event it says so
   * with; its outcome returned.
   */
  end(ended: Ended): Outcome {
    this.apply(ended.status);
    if (ended.event) this.note(this.draft.resource, ended.event);
    return ended.outcome;
  }

  /** Deletes the cloud object: `gone` once the cloud no longer has it, `pending` while it goes. */
  deleteInCloud(client: ExternalClient<R, unknown>, resource: R, id: string): Promise<'gone' | 'pending'> {
    return client.delete(resource, id);
  }

  /** Releases sluice's finalizer: the object as written, or the race the write met. */
  async releaseFinalizer(resource: R): Promise<R | Raced> {
    const finalizers = (resource.metadata.finalizers ?? []).filter((f) => f !== FINALIZER);
    return this.services.writer.setFinalizers(this.services.kind, resource, finalizers);
  }

  /** Performs a decision on an observed cloud object; ends early on a `Waiting` answer to its update. */
  async perform<P>(decision: Decision, target: ObservedTarget<R, P>): Promise<Outcome> {
    // Status changes in a row go into the draft together.
    let pending: StatusChange[] = [];
    for (const effect of decision.effects) {
      if ('status' in effect) {
        pending.push(effect.status);
        continue;
      }
      this.apply(...pending);
      pending = [];
      const waiting = await this.performOne(effect, target);
      if (waiting) return this.end(this.services.outcomes.waitForCloud(waiting));
    }
    this.apply(...pending);
    return decision.outcome;
  }

  private async performOne<P>(
    effect: Exclude<Effect, { status: StatusChange }>,
    target: ObservedTarget<R, P>,
  ): Promise<Waiting | undefined> {
    const { resource, client, id, observation, secrets } = target;
    if ('event' in effect) this.note(resource, effect.event);
    else if ('update' in effect) {
      this.draft.changingCloud = true;
      // What the cloud's answers changed (a state entered at once), if anything.
      const answered = (await client.update(resource, id, observation)) ?? {};
      if (answered instanceof Waiting) return answered;
      this.apply({ set: answered });
    } else if ('secretsRecorded' in effect) this.apply(this.secretsRecorded(secrets));
    else if ('publishAccepted' in effect) {
      const { connections } = this.services;
      if (!connections) return undefined;
      await this.publish(resource, effect.publishAccepted, connections.current(resource));
      this.apply(connections.stored(resource, effect.publishAccepted));
    } else {
      const { writes } = target;
      if (!writes) throw new Error('a recorded update needs the recorder of its writes');
      const { notes } = effect.recordPendingChanges;
      this.apply(await recordPendingChanges(resource, client, id, observation, writes, notes));
    }
    return undefined;
  }

  /**
   * Status keeps keyed digests of the Secret values the cloud has (never the values); the
   * resourceVersion-only record of earlier versions goes once digests replace it. `created`: the create
   * call sent every value.
   */
  secretsRecorded(secrets: ResolvedSecrets, created = false): StatusChange {
    if (!secrets.digests) return { unset: ['secretVersions', 'secretDigests'] };
    for (const { field, why } of created ? [] : secrets.rebaselined) {
      const key = objectKey(this.draft.resource);
      this.services.logger.info(
        { key, field, why },
        'Secret values taken as what the cloud has; nothing sent',
      );
    }
    return { set: { secretDigests: secrets.digests }, unset: ['secretVersions'] };
  }

  /**
   * Creates the cloud object, crash-safe: the values the client made go to the connection Secret first (a
   * refused write sends no create, and a crash after the create leaves them where the next attempt finds
   * them); the intent goes on the object before the call, in the same write as the finalizer (after a crash
   * that loses the answer, `findCreated` matches only what was created after it); the id goes to status at
   * once, and the intent is spent once it is there.
   */
  async create(resource: R, step: CreateStep<R>): Promise<Outcome | Raced> {
    const { connections, creates, kind } = this.services;
    const { prepared, existing } = step;
    if (prepared && connections) {
      await this.publish(resource, prepared, existing);
      this.apply(connections.stored(resource, prepared));
    }
    const intended = await this.writeMetadata(resource, {
      ...spentIntent(resource),
      [ANNOTATIONS.createPending]: step.intentAt.toISOString(),
      ...(step.createStatus !== undefined ? { [ANNOTATIONS.createStatus]: step.createStatus } : {}),
    });
    if (intended instanceof Raced) return intended;
    resource = intended;
    creates.intentRecorded(resource);
    this.draft.changingCloud = true;
    const created = await this.sendCreate(resource, step).catch((error: unknown) => {
      // Only a call the quota deferred is known not to have been sent; after anything else, look again.
      if (deferralOf(error) === undefined) creates.createEnded(resource);
      throw error;
    });
    creates.createEnded(resource);
    // The cloud answered that what the create needs is not ready (its service not running): nothing made.
    if (created instanceof Waiting) return this.end(this.services.outcomes.waitForCloud(created));
    const id = created.externalId;
    const creating = `${kind.kind} is being created`;
    this.apply(
      {
        set: { id, ...this.services.credentialsChecks.pinned(id, step.credentials), ...created.status },
        unset: ['adopted'],
      },
      this.secretsRecorded(step.secrets, true),
      {
        conditions: [
          { type: 'Synced', status: 'True', reason: REASON.ReconcileSuccess },
          { type: 'Ready', status: 'False', reason: REASON.Creating, message: creating },
        ],
      },
    );
    // Status and connection Secret at once: neither waits for the other, and a write that fails is retried
    // from what the other kept (the id in status; a lost password is recovered by the next reconcile).
    const details = created.connectionDetails;
    if (details && connections) this.apply(connections.stored(resource, details));
    const written = await statusAndSecretWritten(
      this.flush(),
      details && connections && this.publish(resource, details, existing),
    );
    if (written) return written;
    this.event(resource, 'Normal', 'Created', `created ${kind.kind} ${id}`);
    // The intent is spent once the id is in status: every later reconcile, and every restart, works from
    // the id. Left on, it would read as a create still under way.
    const seen = [
      ...this.draft.readVersions,
      resource.metadata.resourceVersion,
      this.draft.resource.metadata.resourceVersion,
    ];
    const spent = await this.writeMetadata(this.draft.resource, spentIntent(this.draft.resource));
    if (spent instanceof Raced) return spent;
    creates.intentRemoved(spent, seen);
    return { kind: 'waitForCloud' };
  }

  /**
   * Writes `values` into the connection Secret as last read (`current`), with the keys the kind derives: a
   * create's values, an accepted change's, and what keeps the Secret complete (`ConnectionPublisher.sync`).
   */
  async publish(
    resource: R,
    values: ConnectionDetails,
    current: ConnectionSecret | undefined,
  ): Promise<void> {
    await this.services.connections?.publish(resource, values, current);
  }

  /** The create call itself: what `sluice plan`'s executor records instead of sending. */
  protected sendCreate(resource: R, step: CreateStep<R>): Promise<Creation | Waiting> {
    return step.client.create(resource, step.prepared);
  }

  /**
   * Adds the finalizer when missing and sets (or, with null, removes) annotations, in one guarded write: the
   * object as written, or the race the write met.
   */
  async writeMetadata(resource: R, annotations: Record<string, string | null>): Promise<R | Raced> {
    const finalizers = resource.metadata.finalizers ?? [];
    const updated = await this.services.writer.patchMetadata(this.services.kind, resource, {
      ...(finalizers.includes(FINALIZER) ? {} : { finalizers: [...finalizers, FINALIZER] }),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    });
    if (!(updated instanceof Raced)) this.draft.rebase(updated);
    return updated;
  }

  /**
   * Writes the status when it changed; the watch may deliver the write before the response does. Returns
   * the race the write met, if any.
   */
  async flush(): Promise<Raced | undefined> {
    if (this.found.length > 0) this.apply();
    const refused = (resource: R, message: string) => this.statusRefused(resource, message);
    const raced = await this.services.statuses.flush(this.draft, refused);
    if (!raced) this.services.followers.changed(objectKey(this.draft.resource));
    return raced;
  }

  /** The apiserver refused the status (its fallback is written instead): a log line and a Warning say why. */
  private statusRefused(resource: R, message: string): void {
    this.services.logger.warn({ key: objectKey(resource), err: message }, 'status write refused');
    this.event(resource, 'Warning', STATUS_REFUSED, message);
  }
}

/**
 * Waits for both writes to end, none left running unobserved; then throws the status write's failure, or
 * returns its race (the object gone or changed: the Secret's fate is moot), or throws the Secret's failure.
 */
async function statusAndSecretWritten(
  status: Promise<Raced | undefined>,
  secret: Promise<unknown> | undefined,
): Promise<Raced | undefined> {
  const [written, published] = await Promise.allSettled([status, secret]);
  if (written.status === 'rejected') throw written.reason;
  if (written.value) return written.value;
  if (published.status === 'rejected') throw published.reason;
  return undefined;
}

/** The hold of an executor given none: nothing is kept. */
function holdNothing(): Promise<void> {
  return Promise.resolve();
}
