import { removeCondition, setCondition, type Condition, type ConditionInput } from '../conditions.ts';
import type { ResourceType } from '../api-path.ts';
import type { KubeWriter } from './kube-writer.ts';
import { progressConditions, storedSyncFailureNeedsAPerson } from './progress-conditions.ts';
import { StatusExpectations } from './status-expectations.ts';
import type { ManagedObject, ManagedStatus } from './types.ts';

/** The status being built during one reconcile, compared with what was read before it is written. */
export class StatusDraft<R extends ManagedObject> {
  status: ManagedStatus;
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
  /** Whether the failure Synced=False reports needs a person to end it (see `progressConditions`). */
  private syncFailureNeedsAPerson: boolean;

  /** `ahead`: our last written status, when the cache has not shown it yet: the status to build on. */
  constructor(
    public resource: R,
    private readonly now: () => Date,
    ahead?: ManagedStatus,
  ) {
    this.status = structuredClone(ahead ?? resource.status ?? {});
    this.stored = structuredClone(this.status.conditions ?? []);
    this.syncFailureNeedsAPerson = storedSyncFailureNeedsAPerson(this.stored);
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

  condition(type: string): Condition | undefined {
    return this.status.conditions?.find((c) => c.type === type);
  }

  /**
   * A failed reconcile: Synced=False with the cause, and Ready=False (`SyncFailed`) unless Ready already
   * describes this very generation and nothing was sent to change the cloud. So a spec edit or drift the
   * cloud would not take never leaves an earlier Ready=True standing, while a failed look at a resource
   * that matched this spec (a drift check's transient 500) or a failed poll of a wait keeps its Ready and
   * does not flap: the cloud was not found to differ, and Synced tells of the failure. A Ready that reports
   * an earlier failure (`SyncFailed`) follows the current one, so Ready and Synced never say different things.
   * `needsAPerson`: it fails the same way until someone acts (the resource is then Stalled).
   */
  recordFailure(reason: string, message: string, needsAPerson = false): void {
    this.setCondition({ type: 'Synced', status: 'False', reason, message });
    this.syncFailureNeedsAPerson = needsAPerson;
    const ready = this.condition('Ready');
    const describesThisSpec =
      ready !== undefined && ready.observedGeneration === this.generation && ready.reason !== 'SyncFailed';
    if (describesThisSpec && !this.changingCloud) return;
    this.setCondition({
      type: 'Ready',
      status: 'False',
      reason: 'SyncFailed',
      message: `the last attempt to make the cloud match the spec failed: ${message}`,
    });
  }

  removeCondition(type: 'Drifted' | 'Reconciling' | 'Stalled'): void {
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

  /** Reconciling and Stalled follow from Ready and Synced as they stand when the status is written. */
  private deriveProgressConditions(): void {
    const conditions = this.status.conditions ?? [];
    const progress = progressConditions(conditions, this.generation, this.syncFailureNeedsAPerson);
    this.removeCondition('Reconciling');
    this.removeCondition('Stalled');
    for (const condition of progress) this.setCondition(condition);
  }

  discard(): void {
    this.discarded = true;
  }

  result(): ManagedStatus {
    this.deriveProgressConditions();
    const result: ManagedStatus = { ...this.status, observedGeneration: this.observedGeneration };
    if (result.observedGeneration === undefined) delete result.observedGeneration;
    if (!result.conditions?.length) delete result.conditions;
    return sortConditions(result);
  }
}

const CONDITION_ORDER = ['Ready', 'Synced', 'Drifted', 'Reconciling', 'Stalled'];
function sortConditions(status: ManagedStatus): ManagedStatus {
  if (status.conditions) {
    status.conditions = [...status.conditions].sort(
      (a: Condition, b: Condition) => CONDITION_ORDER.indexOf(a.type) - CONDITION_ORDER.indexOf(b.type),
    );
  }
  return status;
}

/**
 * Starts drafts from the freshest status this process knows and writes them only when they changed, so a
 * no-op reconcile makes no write and moves no timestamp.
 */
export class StatusWriter<R extends ManagedObject> {
  private readonly expectations = new StatusExpectations();

  constructor(
    private readonly kind: ResourceType,
    private readonly writer: KubeWriter,
    private readonly now: () => Date,
  ) {}

  /** A draft built on what the server holds: our last write, when the cache has not shown it yet. */
  draft(cached: R): StatusDraft<R> {
    return new StatusDraft(cached, this.now, this.expectations.ahead(cached));
  }

  /** The status the server holds for `object`: our last write when the cache lags behind it. */
  latest(object: R): ManagedStatus | undefined {
    return this.expectations.ahead(object) ?? object.status;
  }

  /** The cache changed for `key`: a status this process wrote may show there now. */
  observe(key: string, cached: R | undefined): void {
    this.expectations.observe(key, cached);
  }

  async flush(draft: StatusDraft<R>): Promise<void> {
    const next = draft.result();
    if (this.expectations.upToDate(draft.resource, next)) return;
    // Patched from what the server holds: our last write, when the cache has not shown it yet.
    const ahead = this.expectations.ahead(draft.resource);
    const from = ahead ? { ...draft.resource, status: ahead } : draft.resource;
    const updated = await this.writer.patchStatus(this.kind, from, next);
    this.expectations.wrote(draft.resource, next, updated, draft.readVersions);
    draft.rebase(updated);
  }
}
