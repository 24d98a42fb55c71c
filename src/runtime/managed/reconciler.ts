import { isDeepStrictEqual } from 'node:util';
import { pino, type Logger } from 'pino';
import type { Condition } from '../../api/common.ts';
import { objectKey, type ReadonlyCache } from '../cache.ts';
import { removeCondition, setCondition, type ConditionInput } from '../conditions.ts';
import { parseDurationMs } from '../duration.ts';
import { ExponentialFailureRateLimiter } from '../rate-limiter.ts';
import type { Requeue } from '../workers.ts';
import { ANNOTATIONS, FINALIZER } from './annotations.ts';
import { messageOf, ReconcileError, reasonOf, retryFloorOf } from './errors.ts';
import type { EventRecorder } from './events.ts';
import type { KubeWriter } from './kube-writer.ts';
import type { ExternalClient, ManagedKind, ManagedObject, ManagedStatus, Observation } from './types.ts';

export type CallPriority = 'user' | 'poll';

export interface ManagedReconcilerOptions<R extends ManagedObject, Cloud, S> {
  kind: ManagedKind<R, Cloud, S>;
  cache: ReadonlyCache<R>;
  writer: KubeWriter;
  events: EventRecorder;
  /** Resolves the cloud clients for a resource (its own credentials Secret or the operator's). */
  cloudFor(resource: R, priority: CallPriority): Promise<Cloud>;
  /** Drift-check interval for resources that are in sync (`--sync-interval`). */
  syncIntervalMs: number;
  /** First wait while the cloud is still moving; doubles up to `maxPollIntervalMs` to spare the quota. */
  pollIntervalMs: number;
  maxPollIntervalMs?: number;
  logger?: Logger;
  now?: () => Date;
}

type Existing<S> = Extract<Observation<S>, { exists: true }>;

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

  constructor(private readonly options: ManagedReconcilerOptions<R, Cloud, S>) {
    this.logger = options.logger ?? pino({ enabled: false });
    this.now = options.now ?? (() => new Date());
    this.polls = new ExponentialFailureRateLimiter(
      options.pollIntervalMs,
      options.maxPollIntervalMs ?? 30_000,
    );
  }

  /** The worker entry point: reconciles one `namespace/name` key. Throws to ask for a backoff retry. */
  readonly reconcile = async (key: string): Promise<Requeue | void> => {
    const cached = this.options.cache.get(key);
    if (!cached) {
      this.polls.forget(key);
      return;
    }
    const draft = new StatusDraft(cached, this.now);
    try {
      const next = await this.reconcileObject(cached, draft);
      if (!draft.discarded) await this.flushStatus(draft);
      if (!next?.requeueAfterMs || !draft.waiting) this.polls.forget(key);
      return next;
    } catch (error) {
      draft.setCondition({
        type: 'Synced',
        status: 'False',
        reason: reasonOf(error),
        message: messageOf(error),
      });
      await this.flushStatus(draft).catch((statusError: unknown) =>
        this.logger.warn({ key, err: messageOf(statusError) }, 'could not record the failure in status'),
      );
      this.options.events.record(draft.resource, 'Warning', reasonOf(error), messageOf(error));
      this.logger.info({ key, reason: reasonOf(error), err: messageOf(error) }, 'reconcile failed');
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

    const priority: CallPriority =
      resource.metadata.generation !== resource.status?.observedGeneration ? 'user' : 'poll';
    const external = kind.connect(resource, await this.options.cloudFor(resource, priority));
    if (!resource.metadata.finalizers?.includes(FINALIZER)) {
      const updated = await this.options.writer.setFinalizers(kind, resource, [
        ...(resource.metadata.finalizers ?? []),
        FINALIZER,
      ]);
      draft.rebase(updated);
      resource = updated;
    }

    let id = resource.status?.id;
    const adopting = !id && annotations[ANNOTATIONS.externalId] !== undefined;
    if (!id) id = annotations[ANNOTATIONS.externalId];
    if (!id) {
      // Crash-safe create: a create whose id never reached status left a marker in the cloud; find it first.
      id = await external.findCreated(resource);
      if (id) {
        events.record(
          resource,
          'Normal',
          'Adopted',
          `adopted ${kind.kind} ${id}, created earlier for this resource`,
        );
      } else {
        return this.create(resource, external, draft);
      }
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
      delete draft.status.id;
      draft.setCondition({
        type: 'Ready',
        status: 'False',
        reason: 'ExternalMissing',
        message: `${id} is gone`,
      });
      return { requeue: true };
    }
    Object.assign(draft.status, observation.status);
    await this.syncConnectionSecret(resource, external, id, observation);
    return this.converge(resource, external, id, observation, draft);
  }

  private async create(resource: R, external: ExternalClient<R, S>, draft: StatusDraft<R>): Promise<Requeue> {
    const { kind, events } = this.options;
    const creation = await external.create(resource);
    // The id goes to status at once: every later step, and every restart, works from it.
    draft.status.id = creation.externalId;
    draft.setCondition({ type: 'Synced', status: 'True', reason: 'ReconcileSuccess' });
    draft.setCondition({
      type: 'Ready',
      status: 'False',
      reason: 'Creating',
      message: `${kind.kind} is being created`,
    });
    await this.flushStatus(draft);
    if (kind.connectionSecret && creation.connectionDetails) {
      await this.writeSecretValues(resource, creation.connectionDetails);
    }
    events.record(resource, 'Normal', 'Created', `created ${kind.kind} ${creation.externalId}`);
    draft.waiting = true;
    return { requeueAfterMs: this.nextPoll(resource) };
  }

  private async converge(
    resource: R,
    external: ExternalClient<R, S>,
    id: string,
    observation: Existing<S>,
    draft: StatusDraft<R>,
  ): Promise<Requeue> {
    const { events } = this.options;
    const differences = observation.differences;
    draft.setCondition({ type: 'Synced', status: 'True', reason: 'ReconcileSuccess' });
    if (differences.length > 0) {
      const listed = differences.join(', ');
      if (resource.metadata.annotations?.[ANNOTATIONS.drift] === 'report') {
        const message = `differs from the cloud in: ${listed}`;
        draft.setCondition({ type: 'Drifted', status: 'True', reason: 'DriftDetected', message });
        draft.setCondition({ type: 'Ready', status: 'False', reason: 'Drifted', message });
        return { requeueAfterMs: this.syncInterval(resource) };
      }
      await external.update(resource, id, observation);
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
    if (!observation.available) {
      const message = observation.waitingFor ?? 'waiting for the cloud';
      draft.setCondition({ type: 'Ready', status: 'False', reason: 'Unavailable', message });
      draft.waiting = true;
      return { requeueAfterMs: this.nextPoll(resource) };
    }
    draft.setCondition({ type: 'Ready', status: 'True', reason: 'Available' });
    return { requeueAfterMs: this.syncInterval(resource) };
  }

  private async finalize(resource: R, draft: StatusDraft<R>): Promise<Requeue | void> {
    const { kind, events, writer } = this.options;
    const finalizers = resource.metadata.finalizers ?? [];
    if (!finalizers.includes(FINALIZER)) return;
    const policy = resource.spec.deletionPolicy ?? kind.defaultDeletionPolicy;
    let id = resource.status?.id;
    if (policy === 'Delete') {
      const external = kind.connect(resource, await this.options.cloudFor(resource, 'user'));
      // A create that crashed before recording its id must not leak when the resource is deleted.
      id ??= await external.findCreated(resource);
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
    await writer.setFinalizers(
      kind,
      resource,
      finalizers.filter((f) => f !== FINALIZER),
    );
    draft.discard();
  }

  /** Keeps the connection Secret complete: follows the cloud's hosts and recovers lost secret values. */
  private async syncConnectionSecret(
    resource: R,
    external: ExternalClient<R, S>,
    id: string,
    observation: Existing<S>,
  ) {
    const secret = this.options.kind.connectionSecret;
    if (!secret) return;
    const current = await this.options.writer.getSecretData(
      resource.metadata.namespace,
      secret.name(resource),
    );
    const values = { ...observation.connectionDetails };
    const missing = secret.requiredKeys.filter((key) => !current?.[key] && !values[key]);
    if (missing.length > 0 && external.recoverConnectionDetails) {
      Object.assign(values, await external.recoverConnectionDetails(resource, id));
      this.options.events.record(
        resource,
        'Normal',
        'ConnectionDetailsRecovered',
        `restored ${missing.join(', ')} in Secret ${secret.name(resource)}`,
      );
    }
    if (Object.entries(values).some(([key, value]) => current?.[key] !== value)) {
      await this.options.writer.writeConnectionSecret(
        resource,
        secret.name(resource),
        values,
        current !== undefined,
      );
    }
  }

  private async writeSecretValues(resource: R, values: Record<string, string>): Promise<void> {
    const name = this.options.kind.connectionSecret!.name(resource);
    const current = await this.options.writer.getSecretData(resource.metadata.namespace, name);
    await this.options.writer.writeConnectionSecret(resource, name, values, current !== undefined);
  }

  /** Writes status only when it changed, so a no-op reconcile makes no write and moves no timestamp. */
  private async flushStatus(draft: StatusDraft<R>): Promise<void> {
    const next = draft.result();
    if (isDeepStrictEqual(next, draft.resource.status ?? {})) return;
    const updated = await this.options.writer.patchStatus(this.options.kind, draft.resource, next);
    draft.rebase(updated);
  }

  private nextPoll(resource: R): number {
    return this.polls.when(objectKey(resource));
  }

  private syncInterval(resource: R): number {
    const text = resource.metadata.annotations?.[ANNOTATIONS.syncInterval];
    if (text === undefined) return this.options.syncIntervalMs;
    try {
      return parseDurationMs(text, `annotation ${ANNOTATIONS.syncInterval}`);
    } catch (error) {
      this.options.events.record(resource, 'Warning', 'InvalidAnnotation', messageOf(error));
      return this.options.syncIntervalMs;
    }
  }
}

/** The status being built during one reconcile, compared with what was read before it is written. */
class StatusDraft<R extends ManagedObject> {
  status: ManagedStatus;
  waiting = false;
  discarded = false;
  private observedGeneration: number | undefined;

  constructor(
    public resource: R,
    private readonly now: () => Date,
  ) {
    this.status = structuredClone(resource.status ?? {});
    this.observedGeneration = resource.metadata.generation;
  }

  keepObservedGeneration(): void {
    this.observedGeneration = this.resource.status?.observedGeneration;
  }

  setCondition(condition: Omit<ConditionInput, 'observedGeneration'>): void {
    const next = { ...condition, observedGeneration: this.resource.metadata.generation };
    this.status.conditions = setCondition(this.status.conditions ?? [], next, this.now);
  }

  removeCondition(type: 'Drifted'): void {
    if (this.status.conditions) this.status.conditions = removeCondition(this.status.conditions, type);
  }

  /** Continues from the object the apiserver returned after a write (new resourceVersion). */
  rebase(updated: R): void {
    if (this.observedGeneration === this.resource.metadata.generation) {
      this.observedGeneration = updated.metadata.generation;
    }
    this.resource = updated;
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
