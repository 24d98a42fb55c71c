import { pino, type Logger } from 'pino';
import type { Priority } from '../../cloud/quota.ts';
import type { Condition } from '../../api/common.ts';
import { objectKey, type ReadonlyCache } from '../cache.ts';
import { removeCondition, setCondition, type ConditionInput } from '../conditions.ts';
import { DURATION_BOUNDS, formatDuration, parseDurationMs } from '../duration.ts';
import { ExponentialFailureRateLimiter } from '../rate-limiter.ts';
import type { Requeue } from '../workers.ts';
import { ANNOTATIONS, FINALIZER } from './annotations.ts';
import { deferralOf, messageOf, ReconcileError, reasonOf, retryFloorOf, Waiting } from './errors.ts';
import type { EventRecorder } from './events.ts';
import { assertControlledBy, type KubeWriter } from './kube-writer.ts';
import { ClaimIndex, holderOf, type Claim } from './ownership.ts';
import {
  keptReferenceIds,
  replacedReference,
  resolveReferences,
  resolveReferencesForDelete,
  type ObjectLookup,
  type ReplacedReference,
  type ResolvedReferences,
} from './references.ts';
import {
  resolveSecrets,
  type ResolvedSecrets,
  type SecretReader,
  type SecretSnapshot,
} from './secret-references.ts';
import type { DigestKey } from './secret-digests.ts';
import { StatusExpectations } from './status-expectations.ts';
import type {
  ConnectContext,
  ExternalClient,
  ManagedKind,
  ManagedObject,
  ManagedStatus,
  Observation,
} from './types.ts';

export interface ManagedReconcilerOptions<R extends ManagedObject, Cloud, S> {
  kind: ManagedKind<R, Cloud, S>;
  cache: ReadonlyCache<R>;
  writer: KubeWriter;
  events: EventRecorder;
  /** Resolves the cloud clients for a resource (its own credentials Secret or the operator's). */
  cloudFor(resource: R, priority: Priority): Promise<Cloud>;
  /** Finds referenced sluice objects in the operator's caches. */
  lookup?: ObjectLookup;
  /** Reads referenced Secrets from the operator's cache. */
  secrets?: SecretReader;
  /** The key for status digests of referenced Secrets' values (derived from the resource's credentials). */
  secretDigestKey?(resource: R): DigestKey;
  /**
   * Reads connection Secrets from the operator's cache (with their owners); without it they are read from
   * the apiserver with a GET per reconcile.
   */
  connectionSecrets?: SecretReader;
  /** Objects that reference this one and still exist (`Pipe orders`): a Delete waits for them. */
  dependantsOf?(resource: R): string[];
  /** Drift-check interval for resources that are in sync (`--sync-interval`). */
  syncIntervalMs: number;
  /** First wait while the cloud is still moving; doubles up to `maxPollIntervalMs` to spare the quota. */
  pollIntervalMs: number;
  maxPollIntervalMs?: number;
  /** Aborted when this process must stop acting (leadership lost, shutdown deadline passed). */
  signal?: AbortSignal;
  logger?: Logger;
  now?: () => Date;
}

/** The connection Secret's values; its version when read from the cache. */
type ConnectionSecret = Pick<SecretSnapshot, 'data'> & Partial<SecretSnapshot>;

type Existing<S> = Extract<Observation<S>, { exists: true }>;

const NO_SECRETS: SecretReader = { get: () => undefined };
/** Deleting needs no credentials of the resource itself (a DELETE sends none). */
const EMPTY_SECRETS: ResolvedSecrets = {
  values: () => undefined,
  rotated: new Set(),
  digests: undefined,
  rebaselined: [],
};

/**
 * How long a new object's reference to an object not in the cache goes unreported: objects applied together
 * (one manifest, one Argo CD sync) arrive through separate watches within about a second.
 */
export const REFERENCE_ARRIVAL_GRACE_MS = 5_000;

/** The longest reset annotation value status can record (its schema's bound). */
const MAX_RESET_VALUE_LENGTH = 1024;

/** The Ready reason of an object naming a cloud id that another object of its kind holds. */
export const ALREADY_MANAGED = 'AlreadyManaged';

/** The time recorded before the last create call, if any. */
function createIntentOf(resource: ManagedObject): Date | undefined {
  const text = resource.metadata.annotations?.[ANNOTATIONS.createPending];
  if (text === undefined) return undefined;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

/**
 * The generic managed reconciler: one instance per kind, knowing nothing of the kind beyond `ManagedKind`.
 * It owns the finalizer, deletion policy, pause, adoption, crash-safe create, conditions, Events, connection
 * Secrets and requeues; the kind's ExternalClient only observes, creates, updates and deletes.
 */
export class ManagedReconciler<R extends ManagedObject, Cloud, S = unknown> {
  private readonly logger: Logger;
  private readonly now: () => Date;
  /** The growing wait per key while the cloud is still moving: poll interval, doubled, capped. */
  private readonly polls: ExponentialFailureRateLimiter;
  private readonly statuses = new StatusExpectations();
  /**
   * The id each object was let act on (by key, with its uid) before its status may show it: a decision
   * made here is seen by every later decision of this process at once, whatever the cache shows yet.
   */
  private readonly granted = new Map<string, { uid: string; id: string }>();
  private readonly claims = new ClaimIndex();

  constructor(private readonly options: ManagedReconcilerOptions<R, Cloud, S>) {
    this.logger = options.logger ?? pino({ enabled: false });
    this.now = options.now ?? (() => new Date());
    this.polls = new ExponentialFailureRateLimiter(
      options.pollIntervalMs,
      options.maxPollIntervalMs ?? 30_000,
    );
  }

  /** The cache changed for `key`: a status this process wrote may show there now. */
  readonly observe = (key: string): void => {
    const cached = this.options.cache.get(key);
    this.statuses.observe(key, cached);
    this.indexClaims(key, cached);
  };

  /** The worker entry point: reconciles one `namespace/name` key. Throws to ask for a backoff retry. */
  readonly reconcile = async (key: string): Promise<Requeue | void> => {
    const cached = this.options.cache.get(key);
    if (!cached) {
      this.polls.forget(key);
      this.granted.delete(key);
      this.statuses.observe(key, undefined);
      this.claims.set(key, []);
      return;
    }
    this.indexClaims(key, cached);
    const draft = new StatusDraft(cached, this.now, this.statuses.ahead(cached));
    try {
      const next = await this.reconcileObject(cached, draft);
      if (!draft.discarded) await this.flushStatus(draft);
      if (!next?.requeueAfterMs || !draft.waiting) this.polls.forget(key);
      return next;
    } catch (error) {
      // Another process may lead by now: an aborted reconcile records nothing, its successor looks again.
      if (this.options.signal?.aborted) throw error;
      if (error instanceof Waiting) {
        // Not a failure, but still the truth to record: the try's status write was skipped by the throw.
        const next = this.wait(draft, error);
        await this.flushStatus(draft);
        return next;
      }
      const deferMs = deferralOf(error);
      if (deferMs !== undefined) {
        this.logger.debug({ key, requeueAfterMs: deferMs }, 'cloud call deferred; requeued');
        return { requeueAfterMs: deferMs };
      }
      draft.recordFailure(reasonOf(error), messageOf(error));
      await this.flushStatus(draft).catch((statusError: unknown) =>
        this.logger.warn({ key, err: messageOf(statusError) }, 'could not record the failure in status'),
      );
      this.options.events.record(draft.resource, 'Warning', reasonOf(error), messageOf(error));
      const { requestId } = error as { requestId?: unknown };
      this.logger.info(
        { key, reason: reasonOf(error), err: messageOf(error), requestId },
        'reconcile failed',
      );
      // The workers read `retryAfterMs` as a floor under the backoff; the cloud's own error stays the cause.
      const floor = retryFloorOf(error);
      if (floor === undefined || error instanceof ReconcileError) throw error;
      throw new ReconcileError(reasonOf(error), messageOf(error), floor, { cause: error });
    }
  };

  private async reconcileObject(resource: R, draft: StatusDraft<R>): Promise<Requeue | void> {
    const { kind, events } = this.options;
    const annotations = resource.metadata.annotations ?? {};
    if (annotations[ANNOTATIONS.paused] === 'true') {
      // The spec was not acted on: observedGeneration must keep saying which generation was.
      draft.keepObservedGeneration();
      draft.setCondition({
        type: 'Synced',
        status: 'False',
        reason: 'ReconcilePaused',
        message: `reconciling is paused by the ${ANNOTATIONS.paused} annotation`,
      });
      return;
    }
    if (resource.metadata.deletionTimestamp) return this.finalize(resource, draft);

    const resolution = resolveReferences(resource, kind.references ?? [], this.lookup);
    if ('waitingFor' in resolution) {
      const graceMs = resolution.missing ? this.arrivalGraceLeft(resource) : 0;
      if (graceMs > 0) {
        // Objects applied together reach the operator through one watch per kind, in any order: the one
        // referenced may be on its way. Say nothing yet (a status written now would be rewritten a moment
        // later); its arrival wakes this object through the dependency index, else the grace runs out.
        draft.discard();
        return { requeueAfterMs: graceMs };
      }
      return this.wait(draft, new Waiting('WaitingForReference', resolution.waitingFor), true);
    }
    const replaced = resource.status?.id
      ? replacedReference(resource, kind.references ?? [], resolution.resolved)
      : undefined;
    if (replaced) return this.reportReplacedReference(resource, replaced, draft);
    Object.assign(draft.status, keptReferenceIds(kind.references ?? [], resolution.resolved));
    const owner = this.exclusiveOwner(resource, resolution.resolved);
    if (owner) {
      const message = `${kind.kind} ${owner} already manages this for the same ${kind.exclusiveOn}`;
      return this.wait(draft, new Waiting('Conflict', message), true);
    }
    let id = resource.status?.id;
    const adopting = !id && annotations[ANNOTATIONS.externalId] !== undefined;
    if (!id) id = annotations[ANNOTATIONS.externalId];
    const holder = id === undefined ? undefined : this.otherHolderOf(resource, id);
    if (holder) {
      // Never two objects on one cloud id: no write, no password reset, no delete for this one.
      delete draft.status.id;
      const message = `${kind.kind} ${holder} already manages ${id}; this object changes nothing in the cloud`;
      return this.wait(draft, new Waiting(ALREADY_MANAGED, message), true);
    }
    const secrets = this.resolveSecrets(resource, draft.status);
    const priority: Priority =
      resource.metadata.generation !== resource.status?.observedGeneration ? 'user' : 'poll';
    const external = await this.connect(resource, priority, resolution.resolved, secrets);

    if (!id) {
      // Crash-safe create: a create whose id never reached status left a marker in the cloud, or at least an
      // intent on this object; look for what it created first.
      id = await external.findCreated(resource, createIntentOf(resource));
      if (id) {
        events.record(
          resource,
          'Normal',
          'Adopted',
          `adopted ${kind.kind} ${id}, created earlier for this resource`,
        );
      } else {
        return this.create(resource, external, secrets, draft);
      }
    }
    if (!resource.metadata.finalizers?.includes(FINALIZER)) {
      resource = await this.writeMetadata(resource, draft, {});
    }
    draft.status.id = id;

    const observation = await external.observe(resource, id);
    if (!observation.exists) {
      if (adopting) {
        throw new ReconcileError('ExternalNotFound', `no ${kind.kind} with id ${id} exists to adopt`, 60_000);
      }
      events.record(
        resource,
        'Warning',
        'ExternalMissing',
        `${kind.kind} ${id} no longer exists in the cloud`,
      );
      // The intent was for the object that is gone: what was created since is not ours to adopt.
      if (createIntentOf(resource)) {
        resource = await this.writeMetadata(resource, draft, { [ANNOTATIONS.createPending]: null });
      }
      delete draft.status.id;
      this.granted.delete(objectKey(resource));
      draft.setCondition({
        type: 'Ready',
        status: 'False',
        reason: 'ExternalMissing',
        message: `${id} is gone`,
      });
      return { requeue: true };
    }
    Object.assign(draft.status, observation.status);
    await this.syncConnectionSecret(resource, external, id, observation, draft);
    const next = await this.converge(resource, external, id, observation, secrets, draft);
    this.noteUnknownConnectionKeys(resource, draft);
    return next;
  }

  /**
   * The `namespace/name` of another object of the kind (any namespace this process sees) that holds `id`,
   * or undefined when `resource` does and may act on it (recorded at once, so a concurrent reconcile of
   * another object claiming it sees this decision).
   */
  private otherHolderOf(resource: R, id: string): string | undefined {
    const { cache } = this.options;
    const uid = resource.metadata.uid;
    const peers = this.claims
      .keysOf(id)
      .map((key) => cache.get(key))
      .filter((peer): peer is R => peer !== undefined && peer.metadata.uid !== uid);
    const holder = holderOf(
      id,
      [resource, ...peers].map((object) => this.claimOf(object)),
    );
    if (holder && holder.uid !== uid) return holder.key;
    const key = objectKey(resource);
    this.granted.set(key, { uid, id });
    this.indexClaims(key, resource);
    return undefined;
  }

  /** Indexes what `object` may claim: its (last written) status id, its annotation, its grant. */
  private indexClaims(key: string, object: R | undefined): void {
    if (!object) return this.claims.set(key, []);
    const granted = this.granted.get(key);
    this.claims.set(key, [
      (this.statuses.ahead(object) ?? object.status)?.id,
      object.metadata.annotations?.[ANNOTATIONS.externalId],
      granted?.uid === object.metadata.uid ? granted.id : undefined,
    ]);
  }

  private claimOf(object: R): Claim {
    const key = objectKey(object);
    const granted = this.granted.get(key);
    const status = this.statuses.ahead(object) ?? object.status;
    const recordedId = status?.id ?? (granted?.uid === object.metadata.uid ? granted.id : undefined);
    return {
      key,
      uid: object.metadata.uid,
      ...(object.metadata.creationTimestamp ? { creationTimestamp: object.metadata.creationTimestamp } : {}),
      ...(recordedId ? { recordedId } : {}),
      ...(object.metadata.annotations?.[ANNOTATIONS.externalId]
        ? { externalId: object.metadata.annotations[ANNOTATIONS.externalId] }
        : {}),
    };
  }

  /**
   * For a kind with one cloud object per referenced object: the `namespace/name` of the object that owns
   * it when that is not `resource` (the oldest claimant; ties by key), or undefined.
   */
  private exclusiveOwner(resource: R, resolved: ResolvedReferences): string | undefined {
    const { kind, cache } = this.options;
    const declaration = kind.references?.find((d) => d.name === kind.exclusiveOn);
    const target = resolved[kind.exclusiveOn ?? '']?.[0]?.id;
    if (!declaration || !('statusField' in declaration) || target === undefined) return undefined;
    const claimOf = (peer: R) => {
      const kept = peer.status?.[declaration.statusField];
      if (typeof kept === 'string') return kept;
      const name = declaration.objectName(peer);
      if (name === undefined) return declaration.plainId(peer);
      return this.lookup(declaration.kind, peer.metadata.namespace, name)?.status?.id;
    };
    const order = (peer: R) => `${peer.metadata.creationTimestamp ?? ''}\u0000${objectKey(peer)}`;
    const claimants = cache
      .list()
      .filter((peer) => peer.metadata.uid === resource.metadata.uid || claimOf(peer) === target)
      .sort((a, b) => order(a).localeCompare(order(b)));
    const owner = claimants[0];
    return owner && owner.metadata.uid !== resource.metadata.uid ? objectKey(owner) : undefined;
  }

  /**
   * The cloud object lives under the referenced object's old cloud id (kept in status): following the new
   * one would lose it there and create a second one. Nothing is done in the cloud until the user chooses;
   * deleting still works, from the kept id.
   */
  private reportReplacedReference(resource: R, replaced: ReplacedReference, draft: StatusDraft<R>): Requeue {
    const { kind } = this.options;
    const { what, statusField, kept, now } = replaced;
    const id = resource.status?.id ?? '';
    const message =
      `${what} now refers to ${now}, but ${kind.kind} ${id} was made under ${kept} (status.${statusField}); ` +
      `nothing is changed in the cloud. Delete this ${kind.kind} (its deletionPolicy applies to ${id} under ${kept}) ` +
      `and apply it again to make one under ${now}, or make ${what} manage ${kept} again (${ANNOTATIONS.externalId})`;
    const ready = resource.status?.conditions?.find((c) => c.type === 'Ready');
    if (ready?.reason !== 'ReferenceReplaced') {
      this.options.events.record(resource, 'Warning', 'ReferenceReplaced', message);
    }
    return this.wait(draft, new Waiting('ReferenceReplaced', message), true);
  }

  private async create(
    resource: R,
    external: ExternalClient<R, S>,
    secrets: ResolvedSecrets,
    draft: StatusDraft<R>,
  ): Promise<Requeue> {
    const { kind, events } = this.options;
    await external.prepareCreate?.(resource);
    // A password that could not be stored would be lost: refuse someone else's Secret before creating.
    const existing = kind.connectionSecret ? await this.readConnectionSecret(resource) : undefined;
    // The intent goes on the object before the call, in the same write as the finalizer: after a crash
    // that loses the answer, `findCreated` matches only what was created after it.
    resource = await this.writeMetadata(resource, draft, {
      [ANNOTATIONS.createPending]: this.now().toISOString(),
    });
    draft.changingCloud = true;
    const creation = await external.create(resource);
    // The id goes to status at once: every later step, and every restart, works from it.
    draft.status.id = creation.externalId;
    this.recordSecretVersions(draft, secrets, true);
    draft.setCondition({ type: 'Synced', status: 'True', reason: 'ReconcileSuccess' });
    draft.setCondition({
      type: 'Ready',
      status: 'False',
      reason: 'Creating',
      message: `${kind.kind} is being created`,
    });
    // Status and connection Secret at once: neither waits for the other, and a write that fails is retried
    // from what the other kept (the id in status; a lost password is recovered by the next reconcile).
    const created = kind.connectionSecret ? creation.connectionDetails : undefined;
    const details = created && { ...created, ...this.derivedValues(resource, created) };
    await allSettledOrThrow([
      this.flushStatus(draft),
      details ? this.writeSecretValues(resource, details, existing) : undefined,
    ]);
    events.record(resource, 'Normal', 'Created', `created ${kind.kind} ${creation.externalId}`);
    draft.waiting = true;
    return { requeueAfterMs: this.nextPoll(resource) };
  }

  /** Adds the finalizer when missing and sets (or, with null, removes) annotations, in one guarded write. */
  private async writeMetadata(
    resource: R,
    draft: StatusDraft<R>,
    annotations: Record<string, string | null>,
  ): Promise<R> {
    const finalizers = resource.metadata.finalizers ?? [];
    const updated = await this.options.writer.patchMetadata(this.options.kind, resource, {
      ...(finalizers.includes(FINALIZER) ? {} : { finalizers: [...finalizers, FINALIZER] }),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    });
    draft.rebase(updated);
    return updated;
  }

  private async connect(
    resource: R,
    priority: Priority,
    references: ResolvedReferences,
    secrets: ResolvedSecrets,
  ): Promise<ExternalClient<R, S>> {
    const cloud = await this.options.cloudFor(resource, priority);
    const claimedBy = (id: string) => {
      const owner = this.options.cache
        .list()
        .find((peer) => peer.metadata.uid !== resource.metadata.uid && peer.status?.id === id);
      return owner && objectKey(owner);
    };
    const context: ConnectContext<Cloud> = { cloud, references, secrets, claimedBy };
    return this.options.kind.connect(resource, context);
  }

  /** `status`: the freshest known, this process's last write when the cache does not show it yet. */
  private resolveSecrets(resource: R, status: ManagedStatus): ResolvedSecrets {
    const uses = this.options.kind.secretReferences?.(resource) ?? [];
    if (uses.length > 0 && !this.options.secrets) {
      throw new Error(`${this.options.kind.kind} references Secrets but the reconciler has no Secret cache`);
    }
    const { secretDigests: digests, secretVersions: versions } = status;
    const key = uses.length > 0 ? this.options.secretDigestKey?.(resource) : undefined;
    return resolveSecrets(resource, uses, this.options.secrets ?? NO_SECRETS, { digests, versions }, key);
  }

  /**
   * Status keeps keyed digests of the Secret values the cloud has (never the values), to notice a rotation;
   * the resourceVersion-only record of earlier versions goes once digests replace it. `created`: the create
   * call sent every value.
   */
  private recordSecretVersions(draft: StatusDraft<R>, secrets: ResolvedSecrets, created = false): void {
    delete draft.status.secretVersions;
    if (!secrets.digests) return void delete draft.status.secretDigests;
    draft.status.secretDigests = secrets.digests;
    for (const { field, why } of created ? [] : secrets.rebaselined) {
      const key = objectKey(draft.resource);
      this.logger.info({ key, field, why }, 'Secret values taken as what the cloud has; nothing sent');
    }
  }

  /**
   * Reports a wait in Ready (the reconcile itself worked). Waiting on the cloud polls with the growing
   * interval; waiting on another object (`eventDriven`) is woken by that object's change, so it only
   * requeues after the sync interval as a safety net and leaves the poll interval where it was.
   */
  private wait(draft: StatusDraft<R>, waiting: Waiting, eventDriven = false): Requeue {
    draft.setCondition({ type: 'Synced', status: 'True', reason: 'ReconcileSuccess' });
    draft.setCondition({ type: 'Ready', status: 'False', reason: waiting.reason, message: waiting.message });
    if (eventDriven) return { requeueAfterMs: this.syncInterval(draft.resource) };
    draft.waiting = true;
    return { requeueAfterMs: this.nextPoll(draft.resource) };
  }

  private async converge(
    resource: R,
    external: ExternalClient<R, S>,
    id: string,
    observation: Existing<S>,
    secrets: ResolvedSecrets,
    draft: StatusDraft<R>,
  ): Promise<Requeue> {
    const { events } = this.options;
    const differences = observation.differences;
    if (observation.failed) {
      return this.reportCloudFailure(
        resource,
        observation.failed,
        observation.reason ?? 'CloudFailed',
        draft,
      );
    }
    draft.setCondition({ type: 'Synced', status: 'True', reason: 'ReconcileSuccess' });
    if (differences.length > 0) {
      const listed = differences.join(', ');
      if (resource.metadata.annotations?.[ANNOTATIONS.drift] === 'report') {
        const message = `differs from the cloud in: ${listed}`;
        draft.setCondition({ type: 'Drifted', status: 'True', reason: 'DriftDetected', message });
        draft.setCondition({ type: 'Ready', status: 'False', reason: 'Drifted', message });
        return { requeueAfterMs: this.syncInterval(resource) };
      }
      draft.changingCloud = true;
      await external.update(resource, id, observation);
      this.recordSecretVersions(draft, secrets);
      events.record(resource, 'Normal', 'Updated', `updated ${listed}`);
      draft.setCondition({
        type: 'Ready',
        status: 'False',
        reason: 'Updating',
        message: `applying ${listed}`,
      });
      draft.waiting = true;
      return { requeueAfterMs: this.nextPoll(resource) };
    }
    draft.removeCondition('Drifted');
    this.recordSecretVersions(draft, secrets);
    if (!observation.available) {
      const message = observation.waitingFor ?? 'waiting for the cloud';
      const reason = observation.reason ?? 'Unavailable';
      draft.setCondition({ type: 'Ready', status: 'False', reason, message });
      draft.waiting = true;
      return { requeueAfterMs: this.nextPoll(resource) };
    }
    draft.setCondition({ type: 'Ready', status: 'True', reason: 'Available' });
    return { requeueAfterMs: this.syncInterval(resource) };
  }

  /** The cloud says the resource failed: not Ready, and one Warning when it happens, not per poll. */
  private reportCloudFailure(resource: R, failure: string, reason: string, draft: StatusDraft<R>): Requeue {
    const ready = resource.status?.conditions?.find((c) => c.type === 'Ready');
    if (ready?.reason !== reason) this.options.events.record(resource, 'Warning', reason, failure);
    draft.removeCondition('Drifted');
    draft.setCondition({ type: 'Ready', status: 'False', reason, message: failure });
    draft.waiting = true;
    return { requeueAfterMs: this.nextPoll(resource) };
  }

  private async finalize(resource: R, draft: StatusDraft<R>): Promise<Requeue | void> {
    const { kind, events } = this.options;
    if (!resource.metadata.finalizers?.includes(FINALIZER)) return;
    const policy = resource.spec.deletionPolicy ?? kind.defaultDeletionPolicy;
    let id = resource.status?.id;
    const holder = id === undefined ? undefined : this.otherHolderOf(resource, id);
    if (holder) {
      // Another object manages it: deleting this one must not take the other's cloud resource with it.
      events.record(resource, 'Normal', 'Orphaned', `left ${kind.kind} ${id} to ${holder}, which manages it`);
      return this.removeFinalizer(resource, draft);
    }
    if (policy === 'Delete') {
      const dependants = this.options.dependantsOf?.(resource) ?? [];
      if (dependants.length > 0) {
        // Deleting the cloud resource first would break them (or the cloud refuses): they go first.
        const message = `waiting for ${dependants.join(', ')} to be deleted first`;
        return this.wait(draft, new Waiting('WaitingForDependants', message), true);
      }
      const references = resolveReferencesForDelete(resource, kind.references ?? [], this.lookup);
      const owner = this.exclusiveOwner(resource, references);
      if (owner) {
        // One cloud object per referenced object, and another object manages it now: not this one's to delete.
        const message = `left the ${kind.exclusiveOn}'s ${kind.kind} in the cloud: ${owner} manages it`;
        events.record(resource, 'Normal', 'Orphaned', message);
        return this.removeFinalizer(resource, draft);
      }
      const missing = Object.values(references).filter((resolved) => resolved.length === 0);
      if (missing.length > 0 && !id && !createIntentOf(resource)) {
        // Never created: no reference was ever resolved, so nothing can exist in the cloud.
        return this.removeFinalizer(resource, draft);
      }
      const external = await this.connect(resource, 'user', references, EMPTY_SECRETS);
      // A create that crashed before recording its id must not leak when the resource is deleted.
      id ??= await external.findCreated(resource, createIntentOf(resource));
      if (id && (await external.delete(resource, id)) === 'pending') {
        draft.setCondition({ type: 'Ready', status: 'False', reason: 'Deleting', message: `deleting ${id}` });
        draft.waiting = true;
        return { requeueAfterMs: this.nextPoll(resource) };
      }
      if (id) events.record(resource, 'Normal', 'Deleted', `deleted ${kind.kind} ${id}`);
    } else if (id) {
      events.record(
        resource,
        'Normal',
        'Orphaned',
        `left ${kind.kind} ${id} in the cloud (deletionPolicy Orphan)`,
      );
    }
    return this.removeFinalizer(resource, draft);
  }

  private async removeFinalizer(resource: R, draft: StatusDraft<R>): Promise<void> {
    const finalizers = resource.metadata.finalizers ?? [];
    await this.options.writer.setFinalizers(
      this.options.kind,
      resource,
      finalizers.filter((f) => f !== FINALIZER),
    );
    draft.discard();
  }

  private readonly lookup: ObjectLookup = (kind, namespace, name) =>
    this.options.lookup?.(kind, namespace, name);

  /**
   * Keeps the connection Secret complete: follows the cloud's hosts, and gets new secret values (a password
   * reset) when the user asks with the reset annotation, or when sluice knew them and a live read confirms
   * the Secret lost them. An adopted resource's values were never known to sluice: resetting them unasked
   * would break every client using them, so they stay unknown (`status.unknownConnectionKeys`) until asked.
   */
  private async syncConnectionSecret(
    resource: R,
    external: ExternalClient<R, S>,
    id: string,
    observation: Existing<S>,
    draft: StatusDraft<R>,
  ) {
    const secret = this.options.kind.connectionSecret;
    if (!secret) return;
    let current = await this.readConnectionSecret(resource);
    const values = { ...observation.connectionDetails };
    const lacking = (from: ConnectionSecret | undefined) =>
      secret.requiredKeys.filter((key) => !from?.data[key] && !values[key]);
    const resetAsked = this.resetAsked(resource);
    const adopted = resource.metadata.annotations?.[ANNOTATIONS.externalId] !== undefined;
    let missing = lacking(current);
    if (missing.length > 0 && resetAsked === undefined && !adopted && this.options.connectionSecrets) {
      // A cache that lags (or has not synced) must not cost a password: only the apiserver's word counts.
      const live = await this.options.writer.readConnectionSecret(resource, secret.name(resource));
      current = live && { data: live };
      missing = lacking(current);
    }
    const recover = external.recoverConnectionDetails?.bind(external);
    if (recover && (resetAsked !== undefined || (missing.length > 0 && !adopted))) {
      Object.assign(values, await recover(resource, id));
      const [reason, message] =
        resetAsked === undefined
          ? [
              'ConnectionDetailsRecovered',
              `restored ${missing.join(', ')} in Secret ${secret.name(resource)}`,
            ]
          : [
              'PasswordReset',
              `reset as asked by ${ANNOTATIONS.resetPassword}, into Secret ${secret.name(resource)}`,
            ];
      this.options.events.record(resource, 'Normal', reason, message);
    }
    Object.assign(values, this.derivedValues(resource, { ...current?.data, ...values }));
    if (Object.entries(values).some(([key, value]) => current?.data[key] !== value)) {
      await this.writeSecretValues(resource, values, current);
    }
    // Recorded only once the new values are stored: a failed write asks again.
    if (resetAsked !== undefined && recover) draft.status.passwordReset = resetAsked;
    const unknown = lacking(current);
    if (unknown.length > 0) draft.status.unknownConnectionKeys = unknown;
    else delete draft.status.unknownConnectionKeys;
  }

  /** The reset annotation's value when it is one not acted on yet. */
  private resetAsked(resource: R): string | undefined {
    const asked = resource.metadata.annotations?.[ANNOTATIONS.resetPassword];
    if (asked !== undefined && asked.length > MAX_RESET_VALUE_LENGTH) {
      const message = `annotation ${ANNOTATIONS.resetPassword} is longer than ${MAX_RESET_VALUE_LENGTH} characters`;
      throw new ReconcileError('InvalidAnnotation', message, 60_000);
    }
    return asked !== undefined && asked !== resource.status?.passwordReset ? asked : undefined;
  }

  /** A Ready resource whose secret values are unknown says so in Ready, and how to get them. */
  private noteUnknownConnectionKeys(resource: R, draft: StatusDraft<R>): void {
    const unknown = draft.status.unknownConnectionKeys;
    const ready = draft.status.conditions?.find((c) => c.type === 'Ready');
    if (!Array.isArray(unknown) || ready?.status !== 'True') return;
    const name = this.options.kind.connectionSecret!.name(resource);
    draft.setCondition({
      type: 'Ready',
      status: 'True',
      reason: ready.reason,
      message:
        `Secret ${name} has no ${unknown.join(', ')}: adopted without a reset, so unknown to sluice; ` +
        `set the annotation ${ANNOTATIONS.resetPassword} to a new value to reset it`,
    });
  }

  /** The kind's keys computed from the connection details (a template), rendered from `details`. */
  private derivedValues(resource: R, details: Record<string, string>): Record<string, string> {
    return this.options.kind.connectionSecret?.derive?.(resource, details) ?? {};
  }

  /** Writes into the connection Secret as last read (`current`); a stale read costs a retry, not a loss. */
  private async writeSecretValues(
    resource: R,
    values: Record<string, string>,
    current: ConnectionSecret | undefined,
  ): Promise<void> {
    const name = this.options.kind.connectionSecret!.name(resource);
    const exists = current !== undefined;
    await this.options.writer.writeConnectionSecret(resource, name, values, exists, current?.resourceVersion);
  }

  /**
   * The connection Secret (from the cache when there is one); a Secret this resource does not control is
   * a `SecretConflict`. From the apiserver, the version is not known and the writer reads it again.
   */
  private async readConnectionSecret(resource: R): Promise<ConnectionSecret | undefined> {
    const name = this.options.kind.connectionSecret!.name(resource);
    const cache = this.options.connectionSecrets;
    if (!cache) {
      const data = await this.options.writer.readConnectionSecret(resource, name);
      return data && { data };
    }
    const secret = cache.get(resource.metadata.namespace, name);
    if (secret) assertControlledBy({ metadata: { name, ownerReferences: secret.ownerReferences } }, resource);
    return secret;
  }

  /** Writes status only when it changed, so a no-op reconcile makes no write and moves no timestamp. */
  private async flushStatus(draft: StatusDraft<R>): Promise<void> {
    const next = draft.result();
    if (this.statuses.upToDate(draft.resource, next)) return;
    // Patched from what the server holds: our last write, when the cache has not shown it yet.
    const ahead = this.statuses.ahead(draft.resource);
    const from = ahead ? { ...draft.resource, status: ahead } : draft.resource;
    const updated = await this.options.writer.patchStatus(this.options.kind, from, next);
    this.statuses.wrote(draft.resource, next, updated, draft.readVersions);
    // The watch may have delivered the write before the response did.
    this.observe(objectKey(draft.resource));
    draft.rebase(updated);
  }

  /**
   * How much longer a new object (no condition reported yet) waits before it reports a referenced object
   * that is not there: up to `REFERENCE_ARRIVAL_GRACE_MS` from its creation.
   */
  private arrivalGraceLeft(resource: R): number {
    if (resource.status?.conditions?.length) return 0;
    const created = Date.parse(resource.metadata.creationTimestamp ?? '');
    if (Number.isNaN(created)) return 0;
    const left = created + REFERENCE_ARRIVAL_GRACE_MS - this.now().getTime();
    // A clock behind the apiserver's must not stretch the grace.
    return Math.min(Math.max(0, left), REFERENCE_ARRIVAL_GRACE_MS);
  }

  private nextPoll(resource: R): number {
    return this.polls.when(objectKey(resource));
  }

  private syncInterval(resource: R): number {
    const text = resource.metadata.annotations?.[ANNOTATIONS.syncInterval];
    if (text === undefined) return this.options.syncIntervalMs;
    try {
      return parseDurationMs(text, `annotation ${ANNOTATIONS.syncInterval}`, DURATION_BOUNDS.syncInterval);
    } catch (error) {
      const fallback = `using ${formatDuration(this.options.syncIntervalMs)}`;
      this.options.events.record(
        resource,
        'Warning',
        'InvalidAnnotation',
        `${messageOf(error)}; ${fallback}`,
      );
      return this.options.syncIntervalMs;
    }
  }
}

/** Waits for every write to end, then throws the first failure: none is left running unobserved. */
async function allSettledOrThrow(writes: readonly (Promise<unknown> | undefined)[]): Promise<void> {
  const results = await Promise.allSettled(writes);
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
}

/** The status being built during one reconcile, compared with what was read before it is written. */
class StatusDraft<R extends ManagedObject> {
  status: ManagedStatus;
  waiting = false;
  discarded = false;
  /** Set just before a call that changes the cloud to match the spec (create, update). */
  changingCloud = false;
  /** The generation this reconcile read and acts on; writes may return a newer one, edited meanwhile. */
  private readonly generation: number | undefined;
  private observedGeneration: number | undefined;

  /** The version this reconcile read from the cache. */
  readonly readVersions: string[];
  /** The conditions as the server holds them: a transition is measured against these. */
  private stored: Condition[];

  /** `ahead`: our last written status, when the cache has not shown it yet: the status to build on. */
  constructor(
    public resource: R,
    private readonly now: () => Date,
    ahead?: ManagedStatus,
  ) {
    this.status = structuredClone(ahead ?? resource.status ?? {});
    this.stored = structuredClone(this.status.conditions ?? []);
    this.readVersions = resource.metadata.resourceVersion ? [resource.metadata.resourceVersion] : [];
    this.generation = resource.metadata.generation;
    this.observedGeneration = this.generation;
  }

  keepObservedGeneration(): void {
    this.observedGeneration = this.resource.status?.observedGeneration;
  }

  setCondition(condition: Omit<ConditionInput, 'observedGeneration'>): void {
    const next = { ...condition, observedGeneration: this.generation };
    // Against what is stored, not this draft: Synced set True before a call that then fails is no transition.
    const stored = this.stored.find((c) => c.type === condition.type);
    const [merged] = setCondition(stored ? [stored] : [], next, this.now);
    const others = (this.status.conditions ?? []).filter((c) => c.type !== condition.type);
    this.status.conditions = [...others, merged!];
  }

  /**
   * A failed reconcile: Synced=False with the cause, and Ready=False (`SyncFailed`) unless Ready already
   * describes this very generation and nothing was sent to change the cloud. So a spec edit or drift the
   * cloud would not take never leaves an earlier Ready=True standing, while a failed look at a resource
   * that matched this spec (a drift check's transient 500) or a failed poll of a wait keeps its Ready and
   * does not flap: the cloud was not found to differ, and Synced tells of the failure.
   */
  recordFailure(reason: string, message: string): void {
    this.setCondition({ type: 'Synced', status: 'False', reason, message });
    const ready = this.status.conditions?.find((c) => c.type === 'Ready');
    if (ready && ready.observedGeneration === this.generation && !this.changingCloud) return;
    this.setCondition({
      type: 'Ready',
      status: 'False',
      reason: 'SyncFailed',
      message: `the last attempt to make the cloud match the spec failed: ${message}`,
    });
  }

  removeCondition(type: 'Drifted'): void {
    if (this.status.conditions) this.status.conditions = removeCondition(this.status.conditions, type);
  }

  /**
   * Continues from the object the apiserver returned after a write (new resourceVersion). Its generation
   * is not taken over: a spec edited meanwhile has not been acted on.
   */
  rebase(updated: R): void {
    this.resource = updated;
    this.stored = structuredClone(updated.status?.conditions ?? []);
  }

  discard(): void {
    this.discarded = true;
  }

  result(): ManagedStatus {
    const result: ManagedStatus = { ...this.status, observedGeneration: this.observedGeneration };
    if (result.observedGeneration === undefined) delete result.observedGeneration;
    if (!result.conditions?.length) delete result.conditions;
    return sortConditions(result);
  }
}

const CONDITION_ORDER = ['Ready', 'Synced', 'Drifted'];
function sortConditions(status: ManagedStatus): ManagedStatus {
  if (status.conditions) {
    status.conditions = [...status.conditions].sort(
      (a: Condition, b: Condition) => CONDITION_ORDER.indexOf(a.type) - CONDITION_ORDER.indexOf(b.type),
    );
  }
  return status;
}
