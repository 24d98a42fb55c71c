import { OPERATOR_CREDENTIALS } from './managed-object.ts';
import { yieldIfBusy } from '../base/slices.ts';
import { CallChain } from '../base/call-chain.ts';
import { pino, type Logger } from 'pino';
import type { Priority } from '../base/priority.ts';
import { RETRY_DELAYS } from '../base/retry-delays.ts';
import { WriteRecorder } from '../base/recorded-writes.ts';
import type { Requeue } from '../base/requeue.ts';
import { ANNOTATIONS, createIntentOf, externalIdOf, FINALIZER, spentIntent } from './annotations.ts';
import type { ManagedReconcilerOptions } from './reconciler-options.ts';
import { objectSecretOf, type CredentialsRead } from './credentials-read.ts';
import { ObjectClaims } from './claims.ts';
import { ConnectionPublisher } from './connection-publisher.ts';
import { CreateAttempts } from './create-attempts.ts';
import { actingOwner, type ClusterIdentity, type Owner } from './cluster-owner.ts';
import { decideTarget, type TargetFacts, type TargetRead } from './cloud-target.ts';
import { ReconcileError, Waiting } from './errors.ts';
import { Deletion } from './deletion.ts';
import { CredentialsChecks, ORGANIZATION_FIELD } from './credentials-checks.ts';
import type { ObjectRead } from './object-read.ts';
import { objectWrites, Raced } from './object-writes.ts';
import { isObserveOnly, nothingToObserve } from './observe-only.ts';
import { Outcomes, readyReasonOf, type Ended, type Outcome } from './outcomes.ts';
import { Pacing } from './pacing.ts';
import { KindConnector } from './kind-connector.ts';
import { CacheFollowers } from './cache-followers.ts';
import { millisecondsOf, wallNow } from '../clock.ts';
import { Preconditions } from './preconditions.ts';
import { PlainIdGate } from './plain-ids.ts';
import { NO_OBJECTS, type ResolvedReferences } from './references.ts';
import { resolveSecrets, type ResolvedSecrets } from './secret-references.ts';
import { recordedAnnotation } from './status-bounds.ts';
import type { StatusChange } from './status-changes.ts';
import { StatusWriter } from './status-draft.ts';
import type {
  CloudRecords,
  CreatePreparation,
  ExternalClient,
  KindConnection,
  ManagedObject,
  ManagedStatus,
} from './types.ts';
import { policedObservation } from './policed-observation.ts';
import { decideObserved } from './decide.ts';
import { ReconcileExecutor, type ExecutorServices } from './executor.ts';
import { REASON } from '../base/reasons.ts';

export type { ManagedReconcilerOptions } from './reconciler-options.ts';

export { ALREADY_MANAGED } from './preconditions.ts';

/**
 * The generic managed reconciler: one instance per kind, knowing nothing of the kind beyond `ManagedKind`.
 * A reconcile reads its object once (`ObjectRead`, which every part takes as data), then reads, decides
 * and acts: what the cluster says (`readCluster`: credentials, the preconditions `decidePreconditions`
 * decides on, Secrets), what the cloud records (`findCloudObject`: the object to act on, found or
 * to create, as `decideTarget` decides from the reads it asks for), then the cloud object observed and
 * decided on (`decideObserved`, a function of what was read). Every write it makes (status, the object's
 * metadata, the hold on its credentials Secret, the create and the update, Events) is one executor's
 * (`ReconcileExecutor`), which `sluice plan` swaps for one that records. Status drafts, the connection
 * Secret, who may act on an id, connecting and when to look again each live in their own module; nothing
 * it builds calls back into it; the kind's client only observes, creates, updates and deletes.
 */
export class ManagedReconciler<R extends ManagedObject, Cloud, P = unknown> {
  private readonly logger: Logger;
  private readonly now: () => Date;
  private readonly statuses: StatusWriter<R>;
  private readonly claims: ObjectClaims<R>;
  private readonly connections: ConnectionPublisher<R> | undefined;
  private readonly pacing: Pacing;
  private readonly outcomes: Outcomes<R>;
  private readonly deletion: Deletion<R, P>;
  private readonly preconditions: Preconditions<R>;
  private readonly creates: CreateAttempts;
  private readonly plainIds: PlainIdGate<R> | undefined;
  private readonly credentialsChecks: CredentialsChecks<R>;
  private readonly connector: KindConnector<R, Cloud, P>;
  /** What each reconcile's executor performs its effects with. */
  private readonly executorServices: ExecutorServices<R>;
  /** The operator's cluster name and the names its administrator lets it act for. */
  private readonly cluster: ClusterIdentity;
  private readonly followers: CacheFollowers<R>;

  constructor(private readonly options: ManagedReconcilerOptions<R, Cloud, P>) {
    const { kind, cache, events, holdCredentials } = options;
    // The writes to the object itself, each returning the race it met with the object's removal or edit.
    const writer = objectWrites(options.writer);
    const lookup = options.lookup ?? NO_OBJECTS;
    const cluster = options.cluster ?? { name: 'default', explicit: true };
    this.cluster = cluster;
    this.logger = options.logger ?? pino({ enabled: false });
    this.now = options.now ?? wallNow;
    this.statuses = new StatusWriter(kind, writer, this.now);
    this.claims = new ObjectClaims({ kind, cache, lookup, statuses: this.statuses });
    this.connections =
      kind.connectionSecret &&
      new ConnectionPublisher({
        connectionSecret: kind.connectionSecret,
        writer: options.writer,
        secrets: options.secrets,
        ...(options.secretWrites ? { secretWrites: options.secretWrites } : {}),
        now: this.now,
      });
    this.pacing = new Pacing({ ...options, now: this.now });
    this.plainIds = options.idAccess && new PlainIdGate({ kind, access: options.idAccess });
    // A test's clock stands for both clocks; otherwise time passed is measured on the monotonic one.
    this.creates = new CreateAttempts(this.now, options.now && millisecondsOf(options.now));
    this.outcomes = new Outcomes({
      kind,
      pacing: this.pacing,
      logger: this.logger,
      signal: options.signal,
    });
    this.credentialsChecks = new CredentialsChecks(options);
    this.connector = new KindConnector({
      kind,
      cloudFor: options.cloudFor,
      pacing: this.pacing,
      claims: this.claims,
      connections: this.connections,
    });
    this.followers = new CacheFollowers<R>(cache, [this.statuses, this.claims, this.creates]);
    this.deletion = new Deletion({
      ...options,
      lookup,
      cluster,
      credentialsChecks: this.credentialsChecks,
      claims: this.claims,
      outcomes: this.outcomes,
      creates: this.creates,
      connector: this.connector,
      plainIds: this.plainIds,
    });
    this.executorServices = {
      kind,
      writer,
      statuses: this.statuses,
      events,
      ...(holdCredentials ? { holdCredentials } : {}),
      outcomes: this.outcomes,
      connections: this.connections,
      logger: this.logger,
      followers: this.followers,
      creates: this.creates,
      credentialsChecks: this.credentialsChecks,
    };
    this.preconditions = new Preconditions({
      kind,
      lookup,
      ...(options.namesOf ? { namesOf: options.namesOf } : {}),
      claims: this.claims,
      pacing: this.pacing,
      outcomes: this.outcomes,
    });
  }

  /** The cache changed for `key` (a watch event, not a cloud read): our own status write may show there now. */
  onCacheChange(key: string): void {
    this.followers.changed(key);
  }

  /** The keys of this kind's objects that manage cloud object `id`. */
  holdersOf(id: string): string[] {
    return this.claims.keysHolding(id);
  }

  /**
   * The keys of this kind's objects whose status holds `id`: what they made or were let adopt. An annotation
   * alone is anyone's to write, and must not make another namespace's id look held.
   */
  recordedHoldersOf(id: string): string[] {
    return this.claims.keysHolding(id).filter((key) => {
      const object = this.options.cache.get(key);
      return object !== undefined && this.statuses.latest(object)?.id === id;
    });
  }

  /** The worker entry point: reconciles one `namespace/name` key. Throws to ask for a backoff retry. */
  readonly reconcile = async (key: string): Promise<Requeue | void> => {
    const cached = this.options.cache.get(key);
    if (!cached) {
      this.outcomes.forget(key);
      this.creates.forget(key);
      this.connections?.forget(key);
      this.deletion.forget(key);
      this.onCacheChange(key);
      return;
    }
    const draft = this.statuses.draft(cached, key);
    // What the reconcile read of its object, once: every part it runs takes this as data. The claims need no
    // look here: they follow every cache change, our own status writes, and each grant and release.
    const read: ObjectRead<R> = {
      key,
      object: cached,
      latest: draft.began,
      externalId: externalIdOf(cached),
    };
    const act =
      this.options.executor?.(draft, this.executorServices) ??
      new ReconcileExecutor(draft, this.executorServices);
    const lookedAt = this.now().getTime();
    let outcome: Outcome;
    // The reconcile's cloud calls: once it ends, the turn a read kept for its write goes back (quota.ts).
    const chain = new CallChain();
    try {
      const ended = await this.reconcileObject(read, act, chain).finally(() => chain.end());
      if (ended instanceof Raced) return this.raced(key, ended);
      outcome = ended;
      await yieldIfBusy();
      const written = act.discarded ? undefined : await act.flush();
      if (written) return this.raced(key, written);
    } catch (error) {
      const write = (change: StatusChange) => {
        act.apply(change);
        return act.flush();
      };
      const warn = (reason: string, message: string) => act.event(act.resource, 'Warning', reason, message);
      outcome = await this.outcomes.failed(key, error, { write, warn }, lookedAt);
    }
    return this.outcomes.next(act.resource, outcome, (event) => act.note(act.resource, event));
  };

  /** A race with the object's own removal or edit, not a failure: nothing to report; an edit is looked at. */
  private raced(key: string, raced: Raced): Requeue | void {
    if (raced.race === 'gone') {
      this.logger.debug({ key }, raced.message);
      return;
    }
    this.logger.debug({ key }, `${raced.message}; looking again`);
    return { requeue: true };
  }

  /**
   * The reconcile in order: what the cluster says (no cloud call), what the cloud records (the look-ups that
   * find or create the cloud object), then the cloud object observed, decided on and acted on. How it ends,
   * or the race one of its writes to the object met.
   */
  private async reconcileObject(
    read: ObjectRead<R>,
    act: ReconcileExecutor<R>,
    chain: CallChain,
  ): Promise<Outcome | Raced> {
    const { object: resource, key } = read;
    const annotations = resource.metadata.annotations ?? {};
    if (annotations[ANNOTATIONS.paused] === 'true') {
      // The spec was not acted on: observedGeneration must keep saying which generation was.
      const message = `reconciling is paused by the ${ANNOTATIONS.paused} annotation`;
      const paused = { type: 'Synced', status: 'False', reason: REASON.ReconcilePaused, message } as const;
      const status = { keepObservedGeneration: true, conditions: [paused] } as const;
      return act.end({ outcome: { kind: 'idle' }, status });
    }
    if (resource.metadata.deletionTimestamp) {
      const finalized = await this.deletion.finalize(read, act);
      return finalized instanceof Raced ? finalized : act.end(finalized);
    }
    // What the reading parts find for status (`act.found`) goes into the draft together, and stands when a
    // check throws; so does whether a failure met meanwhile came before any cloud call.
    act.found.push({ beforeCloud: true });
    const cluster = this.readCluster(read, act);
    if ('outcome' in cluster) return act.end(cluster);
    // No id yet: a create, which goes behind its namespace's changes to objects that exist (quota.ts).
    const priority: Priority = !cluster.id
      ? 'create'
      : resource.metadata.generation !== resource.status?.observedGeneration
        ? 'user'
        : 'poll';
    const { references, secrets, owner, writes, credentials } = cluster;
    const connection = await this.connector.connect({ resource, key, owner, references, secrets }, act, {
      priority,
      credentials,
      chain,
      ...(writes ? { writes } : {}),
    });
    act.found.push({ beforeCloud: false });
    const target = await this.findCloudObject(read, cluster, connection, act);
    if (!('id' in target)) return target;
    return this.observeAndConverge(read, target, cluster, connection, act);
  }

  /**
   * What the cluster says of the object, before any cloud call: whose name and credentials it acts under,
   * whether its references and claim on a cloud id hold, and the values of the Secrets it reads; the
   * credentials its cloud calls sign in with are read here, once, for every check and call. What status
   * gets of it goes to `found` (the executor's); returned is how the reconcile ends already, or what the
   * cloud part reads on.
   */
  private readCluster(read: ObjectRead<R>, act: ReconcileExecutor<R>): ClusterRead | Ended {
    const { object: resource } = read;
    const { found } = act;
    const { kind } = this.options;
    const annotations = resource.metadata.annotations ?? {};
    const requestedAt = annotations[ANNOTATIONS.reconcileRequestedAt];
    // An object sluice only observes writes nothing: its writes are recorded, to show what Full would send.
    const writes = isObserveOnly(resource) ? new WriteRecorder() : undefined;
    found.push({
      ...(requestedAt !== undefined
        ? { set: { lastHandledReconcileAt: recordedAnnotation(requestedAt) } }
        : {}),
      ...(writes ? {} : { unset: ['pendingChanges'] }),
    });
    // Acting under another cluster's name is the administrator's to allow, never one namespace's.
    const { owner, problem: foreignName } = actingOwner(resource, kind.kind, this.cluster);
    if (foreignName) return this.outcomes.waitForObject(new Waiting(foreignName.reason, foreignName.message));
    // The credentials its cloud calls sign in with, read once for every check and call that needs them.
    const credentials = this.options.readCredentials?.(resource);
    const { secrets: secretReader } = this.options;
    const stated = Boolean(kind.makesCredentials);
    const credentialsSecret = objectSecretOf(resource, credentials, secretReader, stated);
    found.push({ set: { credentials: credentialsSecret ?? OPERATOR_CREDENTIALS } });
    const cleared = this.preconditions.check(read);
    found.push(cleared.status);
    if ('outcome' in cleared) return { ...cleared, status: {} };
    const { references, adopting, id } = cleared;
    if (id) this.creates.settled(read.key);
    if (!id && writes) return this.outcomes.waitForObject(nothingToObserve(kind.kind));
    // What cannot work is refused before anything is written, here or in the cloud.
    const refused =
      this.options.policyRefusal?.(resource) ?? this.credentialsChecks.refusal(resource, credentials);
    if (refused) throw refused;
    const unwritten = this.credentialsNotWrittenYet(resource);
    // The Secret's arrival wakes the object; once written, the key's making shows in no Secret: look again.
    if (unwritten)
      return unwritten.written
        ? this.outcomes.waitForCloud(unwritten.waiting)
        : this.outcomes.waitForObject(unwritten.waiting);
    // No status change is in the draft yet: what it began from is what the digests are compared with.
    const secrets = this.resolveSecrets(resource, read.latest, credentials);
    return { references, adopting, id, owner, credentialsSecret, credentials, secrets, writes };
  }

  /**
   * What the cloud records decides which cloud object the reconcile acts on (`decideTarget`, a function of
   * what was read, which asks for each cloud read it needs in turn). The object as its metadata write left
   * it, and the id; or how the reconcile ends.
   */
  private async findCloudObject(
    read: ObjectRead<R>,
    cluster: ClusterRead,
    connection: KindConnection<R, P>,
    act: ReconcileExecutor<R>,
  ): Promise<CloudTarget<R> | Outcome | Raced> {
    const { kind } = this.options;
    let resource = read.object;
    const { references, adopting, id, credentialsSecret } = cluster;
    act.found.push(credentialsSecret ? { set: { credentialsSecret } } : { unset: ['credentialsSecret'] });
    let facts: TargetFacts = {
      kind: kind.kind,
      resource,
      cluster: this.cluster,
      id,
      adopting,
      namesPlainIds: this.plainIds?.names(resource, references, read.externalId) ?? false,
      waiting: connection.waiting,
      lookUpDue: !id && this.creates.shouldLookUp(resource),
      createStatusFields: kind.createStatusFields ?? [],
    };
    let decision = decideTarget(facts);
    while ('read' in decision) {
      facts = {
        ...facts,
        ...(await this.readForTarget(decision.read, resource, cluster, connection.records)),
      };
      decision = decideTarget(facts);
    }
    act.found.push(...decision.found);
    if ('fail' in decision) throw decision.fail;
    if ('wait' in decision) {
      const { wait, on } = decision;
      return act.end(on === 'object' ? this.outcomes.waitForObject(wait) : this.outcomes.waitForCloud(wait));
    }
    if ('create' in decision) {
      this.creates.lookedUpAndFoundNothing(resource);
      return this.create(resource, connection.client, connection.creation, cluster, act);
    }
    const target = decision.id;
    if (decision.adopted) act.event(resource, 'Normal', 'Adopted', decision.adopted);
    act.found.push({ set: { id: target } });
    // An intent the create could not remove (or an older version left): spent, as the id is in status. One
    // this process removed already is only still in a cache that lags that write, and the version the
    // removal made precedes this reconcile's status write as surely as the one read.
    const removal = this.creates.removalAhead(resource, read.key);
    if (removal !== undefined) act.alsoRead(removal);
    const intentSpent =
      resource.metadata.annotations?.[ANNOTATIONS.createPending] !== undefined &&
      resource.status?.id === target &&
      removal === undefined;
    if (!resource.metadata.finalizers?.includes(FINALIZER) || intentSpent) {
      const written = await act.writeMetadata(resource, intentSpent ? spentIntent(resource) : {});
      if (written instanceof Raced) return written;
      resource = written;
    }
    // Status says the object was found, not made: as it was read, or taken back just now (the one decision
    // here that says so).
    const adopted =
      read.latest.adopted === true || decision.found.some((change) => change.set?.adopted === true);
    return { resource, id: target, adopted };
  }

  /** The cloud read `decideTarget` asked for, as the fact it adds. */
  private async readForTarget(
    read: TargetRead,
    resource: R,
    { references, adopting, id, owner, credentialsSecret }: ClusterRead,
    records: CloudRecords<R>,
  ): Promise<Partial<TargetFacts>> {
    switch (read) {
      case 'recordedOwner':
        return { recordedOwner: { owner: id ? await records.recordedOwner?.(resource, id) : undefined } };
      case 'idAccess': {
        const attached = id !== undefined && !adopting;
        const operatorCredentials = credentialsSecret === undefined;
        const refused = await this.plainIds?.judge(
          resource,
          records,
          references,
          attached,
          operatorCredentials,
        );
        return { idAccess: { refused } };
      }
      case 'lostCreate':
        return { lostCreate: { id: await records.findCreated(resource, this.creates.lostCreate(resource)) } };
      case 'ownership': {
        const candidates = (await records.findOwned?.(resource, owner)) ?? [];
        const claimedBy = new Map<string, string>();
        for (const { id: candidate } of candidates) {
          const holder = this.claims.recordedBy(resource, candidate);
          if (holder) claimedBy.set(candidate, holder);
        }
        return { ownership: { candidates, claimedBy } };
      }
    }
  }

  /**
   * The cloud object read, its field policy applied: gone, or decided on (`decideObserved`, a function of
   * what was read) and acted on by the executor.
   */
  private async observeAndConverge(
    read: ObjectRead<R>,
    { resource, id, adopted }: CloudTarget<R>,
    { adopting, secrets, writes, credentials }: ClusterRead,
    { client }: KindConnection<R, P>,
    act: ReconcileExecutor<R>,
  ): Promise<Outcome | Raced> {
    const { kind } = this.options;
    const observed = await client.observe(resource, id);
    // Every object reading one shared list continues when it arrives: take turns with the rest of the loop.
    await yieldIfBusy();
    const observation = policedObservation(resource, kind.policyFields, observed);
    if (!observation.exists) {
      if (adopting) {
        throw ReconcileError.terminal(
          REASON.ExternalNotFound,
          `no ${kind.kind} with id ${id} exists to adopt`,
          RETRY_DELAYS.userAction,
        );
      }
      return this.reportExternalMissing(resource, id, act);
    }
    // What the observation and the connection Secret's sync find for status goes to the executor with the
    // decision, ahead of its effects (or with the failure, should one come first).
    act.found.push({ set: { ...observation.status, ...this.credentialsChecks.pinned(id, credentials) } });
    const synced = { resource, key: read.key, client, id, observation, adopted };
    const withheld = await this.connections?.sync(synced, act);
    const decision = decideObserved({
      kind: kind.kind,
      spec: resource.spec,
      observation,
      // Of status the decision reads only the drift recorded, which nothing before it here changes.
      status: read.latest,
      readyReasonBefore: readyReasonOf(resource),
      observeOnly: writes !== undefined,
      withheld,
      now: this.now(),
    });
    const next = await act.perform(decision, { resource, client, id, observation, secrets, writes });
    if (this.connections) act.apply(this.connections.unknownKeysNoted(resource, act.status));
    return next;
  }

  /** What a create needs read and made before anything is written; the executor sends it. */
  private async create(
    resource: R,
    client: ExternalClient<R, P>,
    creation: CreatePreparation<R> | undefined,
    { secrets, credentials }: ClusterRead,
    act: ReconcileExecutor<R>,
  ): Promise<Outcome | Raced> {
    const notYet = await creation?.ensureCreatable?.(resource);
    if (notYet) return act.end(this.outcomes.waitForCloud(notYet));
    // A password that could not be stored would be lost: refuse someone else's Secret before creating, and
    // create nothing while the Secret could not be written (admission, quota, a namespace being deleted).
    const existing = this.connections?.current(resource);
    await this.connections?.assertWritable(resource, existing);
    // (`sluice plan` writes no Secret: it plans the create with values made for the plan alone.)
    const prepared = creation?.prepareCreate?.(resource, existing?.data);
    // What the create will record and is settled already: a lost answer loses none of it.
    const known = creation?.createStatus?.(resource);
    return act.create(resource, {
      client,
      creation,
      secrets,
      credentials,
      existing,
      prepared,
      createStatus: known ? JSON.stringify(known) : undefined,
      intentAt: this.now(),
    });
  }

  /** The cloud object is gone: say so, forget the id (and the intent it was for), and create anew. */
  private async reportExternalMissing(
    resource: R,
    id: string,
    act: ReconcileExecutor<R>,
  ): Promise<Outcome | Raced> {
    const { kind } = this.options;
    act.event(
      resource,
      'Warning',
      REASON.ExternalMissing,
      `${kind.kind} ${id} no longer exists in the cloud`,
    );
    // The intent was for the object that is gone: what was created since is not ours to adopt.
    if (createIntentOf(resource)) {
      const spent = await act.writeMetadata(resource, spentIntent(resource));
      if (spent instanceof Raced) return spent;
    }
    this.claims.release(resource);
    const gone = {
      type: 'Ready',
      status: 'False',
      reason: REASON.ExternalMissing,
      message: `${id} is gone`,
    } as const;
    return act.end({
      outcome: { kind: 'recreate' },
      status: { unset: ['id', ORGANIZATION_FIELD, 'adopted'], conditions: [gone] },
    });
  }

  /**
   * The Secrets the spec references: their values, which of them rotated, and their digests. `status`: the
   * freshest known, this process's last write when the cache does not show it yet.
   */
  private resolveSecrets(
    resource: R,
    status: Readonly<ManagedStatus>,
    credentials: CredentialsRead | undefined,
  ): ResolvedSecrets {
    const uses = this.options.kind.secretReferences?.(resource) ?? [];
    const { secretDigests: digests, secretVersions: versions } = status;
    const key = uses.length > 0 ? this.options.secretDigestKey?.(resource, credentials) : undefined;
    return resolveSecrets(resource, uses, this.options.secrets, { digests, versions }, key);
  }

  /**
   * Another sluice object of the namespace writes the object's own credentials Secret (an ApiKey making the
   * key) and has not written it yet, or has written it but not made the key it holds yet (the Secret comes
   * first): the normal moment before the credentials work, a wait, not a failure (no 401, no Warning).
   */
  private credentialsNotWrittenYet(resource: R): { waiting: Waiting; written: boolean } | undefined {
    const { namespace } = resource.metadata;
    const name = resource.spec.credentialsRef?.name;
    if (!name) return undefined;
    const written = this.options.secrets.get(namespace, name) !== undefined;
    const { writer, made } = this.options.secretWriterOf?.(namespace, name) ?? {};
    if (!writer || (written && made)) return undefined;
    const message = written
      ? `waiting for ${writer} to make the key the Secret ${name} holds, which spec.credentialsRef names`
      : `waiting for ${writer} to write the Secret ${name} that spec.credentialsRef names`;
    return { waiting: new Waiting(REASON.WaitingForCredentials, message), written };
  }
}

/** The cloud object a reconcile acts on (`findCloudObject`), and the object as its metadata write left it. */
interface CloudTarget<R extends ManagedObject> {
  resource: R;
  id: string;
  /** Status says it was found, not made (`status.adopted`): its secret values were never known here. */
  adopted: boolean;
}

/** What the cluster says of an object before any cloud call (`readCluster`), when it lets the reconcile go on. */
interface ClusterRead {
  references: ResolvedReferences;
  /** The id was named by the user (`sluice.dev/external-id`), not recorded by a create. */
  adopting: boolean;
  id: string | undefined;
  /** Whom it acts for (`actingOwner`). */
  owner: Owner;
  /** The object's own credentials Secret, when it signs in with one. */
  credentialsSecret: string | undefined;
  /** The credentials its cloud calls sign in with, as read (`readCredentials`). */
  credentials: CredentialsRead | undefined;
  secrets: ResolvedSecrets;
  writes: WriteRecorder | undefined;
}
