import { isDeepStrictEqual } from 'node:util';
import { objectKey } from '../kube/cache.ts';
import { removeCondition, setCondition, type Condition, type ConditionInput } from '../kube/conditions.ts';
import { KubeApiError } from '../kube/kube-http.ts';
import { RETRY_DELAYS } from '../base/retry-delays.ts';
import { ReconcileError } from './errors.ts';
import type { ResourceType } from '../kube/api-path.ts';
import { Raced, type ObjectWriter } from './object-writes.ts';
import {
  progressConditions,
  readyReasonsNeedingAPerson,
  storedSyncFailureNeedsAPerson,
} from './progress-conditions.ts';
import { boundedText, STATUS_BOUNDS } from './status-bounds.ts';
import { StatusExpectations } from './status-expectations.ts';
import type { StatusChange } from './status-changes.ts';
import type { ManagedObject, ManagedStatus } from './types.ts';
import { REASON, type KindReasons } from '../base/reasons.ts';

/** The status being built during one reconcile, compared with what was read before it is written. */
export class StatusDraft<R extends ManagedObject> {
  status: ManagedStatus;
  discarded = false;
  /** Set just before a call that changes the cloud to match the spec (create, update). */
  changingCloud = false;
  /**
   * Set while the reconcile reads what it needs before any cloud call (references, Secrets, credentials): a
   * `StatusChange` sets it, in order with the rest.
   */
  private beforeCloud = false;
  /** The generation this reconcile read and acts on; writes may return a newer one, edited meanwhile. */
  private readonly generation: number | undefined;
  private observedGeneration: number | undefined;

  /** The version this reconcile read from the cache. */
  readonly readVersions: string[];
  /** The status the draft began from, as the server holds it (`ahead`, else the cached object's). */
  readonly began: Readonly<ManagedStatus>;
  /** The conditions as the server holds them: a transition is measured against these. */
  private stored: Condition[];
  /** Whether the failure Synced=False reports needs a person to end it (see `progressConditions`). */
  private syncFailureNeedsAPerson: boolean;

  /**
   * `ahead`: our last written status, when the cache has not shown it yet: the status to build on.
   * `readyNeedsAPerson`: the Ready=False reasons of the kind that make the object Stalled.
   */
  constructor(
    public resource: R,
    private readonly now: () => Date,
    ahead?: ManagedStatus,
    private readonly readyNeedsAPerson: ReadonlySet<string> = readyReasonsNeedingAPerson(),
  ) {
    this.began = ahead ?? resource.status ?? {};
    this.status = structuredClone(this.began);
    this.stored = structuredClone(this.status.conditions ?? []);
    this.syncFailureNeedsAPerson = storedSyncFailureNeedsAPerson(this.stored);
    this.readVersions = resource.metadata.resourceVersion ? [resource.metadata.resourceVersion] : [];
    this.generation = resource.metadata.generation;
    this.observedGeneration = this.generation;
  }

  /**
   * Writes `changes` into the draft, one after another: what the steps of a reconcile found. Only the
   * executor calls it, so what a reconcile writes into status is read in one place.
   */
  apply(...changes: readonly StatusChange[]): void {
    for (const change of changes) {
      applyFields(this.status, change);
      for (const type of change.removed ?? []) this.removeCondition(type);
      for (const condition of change.conditions ?? []) this.setCondition(condition);
      if (change.failure) {
        const { reason, message, needsAPerson } = change.failure;
        this.recordFailure(reason, message, needsAPerson);
      }
      if (change.keepObservedGeneration) this.keepObservedGeneration();
      if (change.discard) this.discard();
      if (change.beforeCloud !== undefined) this.beforeCloud = change.beforeCloud;
    }
  }

  keepObservedGeneration(): void {
    this.observedGeneration = this.resource.status?.observedGeneration;
  }

  setCondition(condition: Omit<ConditionInput, 'observedGeneration'>): void {
    const message = condition.message && boundedText(condition.message, STATUS_BOUNDS.message);
    const next = { ...condition, ...(message ? { message } : {}), observedGeneration: this.generation };
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
      ready !== undefined &&
      ready.observedGeneration === this.generation &&
      ready.reason !== REASON.SyncFailed;
    if (describesThisSpec && !this.changingCloud) return;
    this.setCondition({
      type: 'Ready',
      status: 'False',
      reason: REASON.SyncFailed,
      message: this.beforeCloud
        ? `no cloud call was made: ${message}`
        : `the last attempt to make the cloud match the spec failed: ${message}`,
    });
  }

  removeCondition(type: 'Drifted' | 'Reconciling' | 'Stalled' | 'Granted'): void {
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
    const progress = progressConditions(
      conditions,
      this.generation,
      this.syncFailureNeedsAPerson,
      this.readyNeedsAPerson,
    );
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
    // A field an observation set to undefined is gone from the cloud's answer: the write removes it.
    for (const [key, value] of Object.entries(result)) if (value === undefined) delete result[key];
    if (!result.conditions?.length) delete result.conditions;
    return sortConditions(result);
  }
}

/** The fields of `change` written into `status` (its conditions are a draft's to set). */
export function applyFields(status: ManagedStatus, change: StatusChange): void {
  if (change.set) Object.assign(status, change.set);
  for (const field of change.unset ?? []) delete status[field];
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

/** Why the apiserver refused a status write (422), for the object's Synced condition and its Event. */
export const STATUS_REFUSED = REASON.StatusRefused;

/**
 * Starts drafts from the freshest status this process knows and writes them only when they changed, so a
 * no-op reconcile makes no write and moves no timestamp.
 */
export class StatusWriter<R extends ManagedObject> {
  private readonly expectations = new StatusExpectations();
  /** Per object, the last status the apiserver refused: not sent again, its fallback stands for it. */
  private readonly refused = new Map<string, { uid: string; status: ManagedStatus }>();
  /** The Ready=False reasons that make an object of the kind Stalled, its own among them. */
  private readonly readyNeedsAPerson: ReadonlySet<string>;

  constructor(
    private readonly kind: ResourceType & { reasons?: KindReasons },
    private readonly writer: ObjectWriter,
    private readonly now: () => Date,
  ) {
    this.readyNeedsAPerson = readyReasonsNeedingAPerson(kind.reasons);
  }

  /**
   * A draft built on what the server holds: our last write, when the cache has not shown it yet. `key`: the
   * object's.
   */
  draft(cached: R, key: string): StatusDraft<R> {
    const ahead = this.expectations.ahead(cached, key);
    return new StatusDraft(cached, this.now, ahead, this.readyNeedsAPerson);
  }

  /** The status the server holds for `object`: our last write when the cache lags behind it. */
  latest(object: R): ManagedStatus | undefined {
    return this.expectations.ahead(object) ?? object.status;
  }

  /** The cache changed for `key`: a status this process wrote may show there now. */
  observe(key: string, cached: R | undefined): void {
    this.expectations.observe(key, cached);
    if (cached?.metadata.uid !== this.refused.get(key)?.uid) this.refused.delete(key);
  }

  /**
   * Writes the draft's status. One the apiserver refuses (422: a bound or rule it enforces, an admission
   * policy) is reported to `refused` once, with the reason to report, and not sent again; the status it
   * holds is kept, with this generation observed and Synced saying why, so the object goes on recording
   * later generations. Returns the race a write met (the object removed or changed meanwhile), when it met
   * one.
   */
  async flush(
    draft: StatusDraft<R>,
    refused: (resource: R, message: string) => void,
  ): Promise<Raced | undefined> {
    let next = draft.result();
    const key = objectKey(draft.resource);
    const lastRefused = this.refused.get(key);
    if (lastRefused?.uid === draft.resource.metadata.uid && isDeepStrictEqual(lastRefused.status, next)) {
      next = this.fallback(draft, next, undefined);
    }
    if (this.expectations.upToDate(draft.resource, next)) return undefined;
    // Patched from what the server holds: our last write, when the cache has not shown it yet.
    const ahead = this.expectations.ahead(draft.resource);
    const from = ahead ? { ...draft.resource, status: ahead } : draft.resource;
    let updated: R | Raced;
    try {
      updated = await this.writer.patchStatus(this.kind, from, next);
    } catch (error) {
      if (!(error instanceof KubeApiError && error.statusCode === 422)) throw error;
      this.refused.set(key, { uid: draft.resource.metadata.uid, status: next });
      const fallback = this.fallback(draft, next, error.message);
      refused(draft.resource, fallbackMessage(fallback));
      updated = await this.writer.patchStatus(this.kind, from, fallback).catch((again: unknown) => {
        if (!(again instanceof KubeApiError && again.statusCode === 422)) throw again;
        throw ReconcileError.terminal(STATUS_REFUSED, fallbackMessage(fallback), RETRY_DELAYS.userAction);
      });
      next = fallback;
    }
    if (updated instanceof Raced) return updated;
    this.expectations.wrote(draft.resource, next, updated, draft.readVersions);
    draft.rebase(updated);
    return undefined;
  }

  /**
   * What is written in place of a refused status: the status the server holds, this generation observed,
   * and Synced=False saying the write was refused (`refusal`: the apiserver's words; kept from the first
   * fallback when the same status is refused again).
   */
  private fallback(
    draft: StatusDraft<R>,
    refused: ManagedStatus,
    refusal: string | undefined,
  ): ManagedStatus {
    const held = structuredClone(this.latest(draft.resource) ?? {});
    const said = held.conditions?.find((c) => c.type === 'Synced' && c.reason === STATUS_REFUSED)?.message;
    const message =
      refusal === undefined && said !== undefined
        ? said
        : boundedText(
            `the apiserver refused the status write: ${refusal ?? 'unknown'}; status shows what it last accepted`,
            REFUSAL_MESSAGE_MAX,
          );
    const synced = { type: 'Synced', status: 'False', reason: STATUS_REFUSED, message } as const;
    const observedGeneration = refused.observedGeneration;
    held.conditions = setCondition(held.conditions ?? [], { ...synced, observedGeneration }, this.now);
    return sortConditions({ ...held, ...(observedGeneration === undefined ? {} : { observedGeneration }) });
  }
}

/** The apiserver's words are kept short: they may quote what was refused. */
const REFUSAL_MESSAGE_MAX = 2_048;
const fallbackMessage = (status: ManagedStatus) =>
  status.conditions?.find((c) => c.type === 'Synced')?.message ?? STATUS_REFUSED;
