import type { Logger } from 'pino';
import type { WriteRecorder } from '../base/recorded-writes.ts';
import { objectKey } from '../kube/cache.ts';
import type { ResourceType } from '../kube/api-path.ts';
import { FINALIZER } from './annotations.ts';
import type { ConnectionPublisher } from './connection-publisher.ts';
import type { Decision, Effect } from './decide.ts';
import { Waiting } from './errors.ts';
import type { EventRecorder } from './events.ts';
import { Raced, type ObjectWriter } from './object-writes.ts';
import { recordPendingChanges } from './observe-only.ts';
import type { Ended, Outcome, Outcomes } from './outcomes.ts';
import type { ResolvedSecrets } from './secret-references.ts';
import type { StatusChange } from './status-changes.ts';
import type { StatusDraft, StatusWriter } from './status-draft.ts';
import type { ExternalClient, ManagedObject, Observation } from './types.ts';

/** What every reconcile's executor is given alike: the writers of the object, its Events and Secret. */
export interface ExecutorServices<R extends ManagedObject> {
  kind: ResourceType;
  writer: ObjectWriter;
  statuses: StatusWriter<R>;
  events: EventRecorder;
  outcomes: Outcomes<R>;
  connections: ConnectionPublisher<R> | undefined;
  logger: Logger;
  /** Told once this process's own status write is known: the caches it keeps follow it. */
  written(key: string): void;
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
  constructor(
    readonly draft: StatusDraft<R>,
    private readonly services: ExecutorServices<R>,
  ) {}

  /** What status gets, written into the draft in order. */
  apply(...changes: readonly StatusChange[]): void {
    this.draft.apply(...changes);
  }

  /** How the reconcile ends: its status into the draft, its outcome returned. */
  end(ended: Ended): Outcome {
    this.draft.apply(ended.status);
    return ended.outcome;
  }

  /** Performs a decision on an observed cloud object; ends early on a `Waiting` answer to its update. */
  async perform<P>(decision: Decision, target: ObservedTarget<R, P>): Promise<Outcome> {
    for (const effect of decision.effects) {
      const waiting = await this.performOne(effect, target);
      if (waiting) return this.end(this.services.outcomes.waitForCloud(waiting));
    }
    return decision.outcome;
  }

  private async performOne<P>(effect: Effect, target: ObservedTarget<R, P>): Promise<Waiting | undefined> {
    const { resource, client, id, observation, secrets } = target;
    if ('status' in effect) this.draft.apply(effect.status);
    else if ('event' in effect) {
      const { type, reason, message } = effect.event;
      this.services.events.record(resource, type, reason, message);
    } else if ('update' in effect) {
      this.draft.changingCloud = true;
      // What the cloud's answers changed (a state entered at once), if anything.
      const answered = (await client.update(resource, id, observation)) ?? {};
      if (answered instanceof Waiting) return answered;
      this.draft.apply({ set: answered });
    } else if ('secretsRecorded' in effect) this.draft.apply(this.secretsRecorded(secrets));
    else if ('publishAccepted' in effect) {
      const { connections } = this.services;
      if (!connections) return undefined;
      await connections.publish(resource, effect.publishAccepted, connections.current(resource));
      this.draft.apply(connections.stored(resource, effect.publishAccepted));
    } else {
      const { writes } = target;
      if (!writes) throw new Error('a recorded update needs the recorder of its writes');
      const { notes } = effect.recordPendingChanges;
      this.draft.apply(await recordPendingChanges(resource, client, id, observation, writes, notes));
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
    const raced = await this.services.statuses.flush(this.draft);
    if (!raced) this.services.written(objectKey(this.draft.resource));
    return raced;
  }
}
