import type {
  ManagedReconciler,
  ClusterIdentity,
  ObjectLookup,
  ObjectNames,
  SecretReader,
  DigestKey,
  ManagedObject,
  ManagedStatus,
  FieldChange,
  Creation,
  CreateStep,
  Decision,
  ExecutorServices,
  ObservedTarget,
  Outcome,
} from '../managed/index.ts';
import { ReconcileExecutor, Waiting } from '../managed/index.ts';
import type { CloudConnection } from '../cloud-access/connection.ts';
import { dryReconciler } from '../composition/reconcilers.ts';
import type { SluiceKind } from '../kinds/shared/sluice-kind.ts';
import { objectKey } from '../kube/cache.ts';
import type { Priority } from '../base/priority.ts';
import { WriteRecorder, type RecordedWrite } from '../base/recorded-writes.ts';

/** What one reconcile would have done, had anything been sent. */
export interface DryReconcile {
  /** The cloud writes the kind's own code made, in order, none of them sent. */
  writes: readonly RecordedWrite[];
  /** The kind's create ran: `writes` start with its request (the calls that need its answer cannot follow). */
  created: boolean;
  /** What the create does besides making the object, when the kind says (`createEffects`). */
  createEffects?: string;
  /** The spec fields the kind's observe found different from the cloud. */
  differences: readonly string[];
  /** Those differences as the cloud's value and the spec's, where the kind knows them. */
  changes: readonly FieldChange[];
  /** The status the reconcile would have written (undefined when it wrote none). */
  status: ManagedStatus | undefined;
  /** What the reconcile threw after recording it in status (a failure the operator retries). */
  error?: unknown;
}

export interface DryRunOptions {
  /** Every object of this kind the operator would see: the claims on cloud ids are checked against them. */
  objects: ReadonlyMap<string, ManagedObject>;
  /** Finds referenced objects, as the operator's caches would once the input is applied. */
  lookup: ObjectLookup;
  /** The names a missing reference is compared with, as the operator's caches would hold them. */
  namesOf?: ObjectNames;
  secrets: SecretReader;
  secretDigestKey(resource: ManagedObject): DigestKey;
  /** Clients for the resource's credentials whose writes go to `writes`, never to the cloud. */
  cloudFor(resource: ManagedObject, priority: Priority, writes: WriteRecorder): Promise<CloudConnection>;
  /** The cluster name the operator records as owner. */
  cluster: ClusterIdentity;
}

/** Per object: what its reconcile recorded so far. */
interface Session {
  recorders: WriteRecorder[];
  created: boolean;
  createEffects?: string;
  differences: string[];
  changes: FieldChange[];
  status: ManagedStatus | undefined;
}

/**
 * The operator's own reconciler for one kind (the composition root's dry one), run so that nothing is written
 * anywhere: its cloud clients record their writes (`withWritesRecorded`), its Kubernetes writes stay in
 * memory, its Events go nowhere.
 * So what it records is by construction what the operator would send for the same objects and cloud: the
 * same flow (pause, preconditions, claims, adoption, Observe, drift mode), the kind's own diff and calls.
 */
export class DryRun {
  private readonly sessions = new Map<string, Session>();
  private readonly reconciler: ManagedReconciler<ManagedObject, CloudConnection, unknown>;

  constructor(kind: SluiceKind<ManagedObject>, options: DryRunOptions) {
    const session = (resource: Pick<ManagedObject, 'metadata'>) => {
      const found = this.sessions.get(objectKey(resource));
      if (!found) throw new Error(`no dry run in progress for ${objectKey(resource)}`);
      return found;
    };
    this.reconciler = dryReconciler({
      ...options,
      kind,
      onStatus: (resource, status) => {
        session(resource).status = status;
      },
      // Whatever the reconcile asks for, its clients record writes: an Observe object's recorder, or one here.
      cloudFor: (resource, { priority, writes }) => {
        const recorder = writes ?? new WriteRecorder();
        session(resource).recorders.push(recorder);
        return options.cloudFor(resource, priority, recorder);
      },
      executor: (draft, services) => new RecordingExecutor(draft, services, session(draft.resource)),
    });
  }

  /** Runs one reconcile of the object at `key` (one of `objects`). */
  async reconcile(key: string): Promise<DryReconcile> {
    const session: Session = {
      recorders: [],
      created: false,
      differences: [],
      changes: [],
      status: undefined,
    };
    this.sessions.set(key, session);
    let error: unknown;
    try {
      await this.reconciler.reconcile(key);
    } catch (thrown) {
      error = thrown;
    } finally {
      this.sessions.delete(key);
    }
    return {
      writes: session.recorders.flatMap((recorder) => recorder.writes),
      created: session.created,
      ...(session.createEffects === undefined ? {} : { createEffects: session.createEffects }),
      differences: session.differences,
      changes: session.changes,
      status: session.status,
      ...(error === undefined ? {} : { error }),
    };
  }
}

/**
 * The executor of a planned reconcile: it performs what the reconcile decided as the operator's does, with
 * the writers the plan gives (Kubernetes writes kept in memory, cloud writes recorded), and notes what the
 * plan shows: what the observation found different, and that the create ran and what it does besides. A
 * create's request is recorded, but its answer (the new id) exists only once the cloud made it: the effects
 * after the request cannot run on a recorded write, and are not needed to show it.
 */
class RecordingExecutor extends ReconcileExecutor<ManagedObject> {
  constructor(
    draft: ConstructorParameters<typeof ReconcileExecutor<ManagedObject>>[0],
    services: ExecutorServices<ManagedObject>,
    private readonly session: Session,
  ) {
    super(draft, services);
  }

  override perform<P>(decision: Decision, target: ObservedTarget<ManagedObject, P>): Promise<Outcome> {
    this.session.differences = [...target.observation.differences];
    this.session.changes = [...(target.observation.changes ?? [])];
    return super.perform(decision, target);
  }

  protected override async sendCreate(
    resource: ManagedObject,
    step: CreateStep<ManagedObject>,
  ): Promise<Creation | Waiting> {
    const { session } = this;
    const effects = await step.creation?.createEffects?.(resource);
    if (effects !== undefined) session.createEffects = effects;
    const recorded = () => session.recorders.reduce((sum, recorder) => sum + recorder.writes.length, 0);
    const before = recorded();
    try {
      const created = await step.client.create(resource, step.prepared);
      if (created instanceof Waiting) return created;
    } catch (error) {
      // Only a failure before the request is one the operator would meet too (a refused spec).
      if (recorded() === before) throw error;
    }
    session.created = true;
    return { externalId: `<id of ${resource.kind} ${objectKey(resource)}>` };
  }
}
