import type { DriftedField, ManagedEntries, PolicyFields, READINESS_FIELDS } from './field-policy.ts';
import type { FieldChange } from './field-changes.ts';
import type { OwnedCandidate, Owner } from './cluster-owner.ts';
import type { PlainIdUse } from './id-access.ts';
import type { ConditionReason, KindReasons } from '../base/reasons.ts';
import type { DeletionPolicy, ManagedObject } from './managed-object.ts';
import type { Waiting } from './errors.ts';
import type { ReferenceDeclaration, ResolvedReferences } from './references.ts';
import type { ResolvedSecrets, SecretUse } from './secret-references.ts';

export {
  DELETION_POLICIES,
  MANAGEMENT_POLICIES,
  type DeletionPolicy,
  type ManagementPolicy,
  type ManagedObject,
  type ManagedStatus,
  type SecretDigest,
  type SecretDigests,
} from './managed-object.ts';

/** Values for the resource's connection Secret: every value is a string and may be a secret. */
export type ConnectionDetails = Record<string, string>;

/**
 * What the cloud says about a resource, compared with its spec: a kind's `Comparison`, its field policy applied
 * (`policedObservation`). `Plan` is the kind's plan: the calls that fix it.
 */
export type Observation<Plan = unknown> =
  | { exists: false }
  | {
      exists: true;
      /** The calls that turn what was observed into the spec, computed once and handed back to `update`. */
      plan: Plan;
      /** Names of the spec fields whose cloud value differs and that `update` corrects (empty when up to date). */
      differences: string[];
      /** The differences as old and new values, where the field policy knows them: `sluice plan` shows them. */
      changes?: FieldChange[];
      /** Fields that differ and are left as they are, as the field policy says. */
      drift?: DriftedField[];
      /** The entries sluice manages in the spec's additive lists, for status. */
      managedEntries?: ManagedEntries;
      /** True when the cloud resource is usable in the desired state (e.g. a service is running). */
      available: boolean;
      /** Why it is not available yet (shown in the Ready condition), e.g. `service is provisioning`. */
      waitingFor?: string;
      /** Set when the cloud reports the resource failed (e.g. a pipe in state Failed): says what it reports. */
      failed?: string;
      /** The Ready reason while not available (default `Unavailable`, or `CloudFailed` when failed). */
      reason?: ConditionReason;
      /** Status fields to write, as the cloud reports them. */
      status: Record<string, unknown>;
      /** Connection values that hold now: hosts and ports that follow the cloud, a password it has. */
      connectionDetails?: ConnectionDetails;
      /**
       * Connection values that hold only once `update` has succeeded (a password it sets): the connection
       * Secret gets them after the cloud accepted them, never before.
       */
      connectionDetailsAfterUpdate?: ConnectionDetails;
      /** In sync, but a step is due this much later (a rotated key's grace ending): looked at again by then. */
      dueInMs?: number;
    };

/** What the observation says of the cloud object found: the data, and what a kind's diff judges of a spec. */
type Found<Plan> = Extract<Observation<Plan>, { exists: true }>;

/**
 * What a kind's diff says of one spec against the cloud object observed: a pure function of the spec, so
 * the field policy can run it on the spec it enforces and on variants of it. It carries all the observation
 * says that depends on the spec (whether the object is usable depends on the state asked for).
 */
export type Judgement<Plan> = Pick<Found<Plan>, 'differences' | 'plan' | (typeof READINESS_FIELDS)[number]>;

/**
 * What a kind's `observe` found, before the object's field policy: the cloud object in the spec's own terms,
 * the kind's diff, and as data all the observation says whatever the spec. The reconciler applies the field
 * policy around the diff (`applyFieldPolicy`: fields left to the cloud take the cloud's value, the rest is
 * drift or a difference) and adds the data to the judgement of the spec it enforces (`policedObservation`).
 */
export interface Comparison<Spec, Plan> extends Pick<
  Found<Plan>,
  'status' | 'connectionDetails' | 'connectionDetailsAfterUpdate' | 'dueInMs'
> {
  exists: true;
  /** The cloud object in the spec's own terms: a field left to the cloud takes its value from here. */
  observed: Readonly<Record<string, unknown>>;
  /** The kind's diff of a spec against the cloud object: the one function the field policy calls. */
  diff(spec: Spec): Judgement<Plan>;
  /**
   * Differences no spec field holds (an owner note, a key rotation's step), listed after the policy's: the
   * field policy cannot leave them to the cloud.
   */
  unheldDifferences?: string[];
}

/** What a kind's `observe` finds: nothing, or a comparison the reconciler applies the field policy to. */
export type Observed<R extends ManagedObject, Plan> = { exists: false } | Comparison<R['spec'], Plan>;

/** A create that may have made a cloud object whose id never reached status. */
export interface LostCreate {
  /** Recorded on the object before the create call: the cloud dates what the call made at or after it. */
  intent: Date;
  /**
   * A list that started after this shows what the call made: the call had ended by then. A list that started
   * between the intent and the call's end may have been answered before the cloud made anything.
   */
  listedAfter: Date;
}

export interface Creation {
  externalId: string;
  /** Values only the create call returns (e.g. the initial password). */
  connectionDetails?: ConnectionDetails;
  /** Status fields only the create knows (e.g. the backup a service was restored from), kept from then on. */
  status?: Record<string, unknown>;
}

/**
 * What a kind implements for one reconcile — and all it implements. Everything else (finalizer, deletion
 * policy, pause, adoption, crash-safe create, conditions, Events, connection Secrets, requeues) is the
 * generic reconciler's. Its methods come in three roles, one per phase of a reconcile, so each phase is
 * handed only what it calls: `records` before anything is written (what the cloud records of this object),
 * `creation` before a create is sent, `client` to observe and change the cloud object. A kind may serve
 * them all from one object: what one phase learns is another's to use (a restore's backup, settled before
 * the create intent is written and sent in the create; the keys a create replaces, found by the look-up).
 */
export interface KindConnection<R extends ManagedObject, Plan = unknown> {
  client: ExternalClient<R, Plan>;
  records: CloudRecords<R>;
  /** Absent for a kind whose create needs nothing settled, made or said before it is sent. */
  creation?: CreatePreparation<R>;
  /**
   * What the object waits for before anything is looked up, created or changed, known from its references
   * when connecting (an Alert's tile its Dashboard has not made yet). Deleting waits for it only to look for
   * a lost create.
   */
  waiting?: Waiting;
}

/** The act phase's client: it reads the cloud object and changes it, and nothing else. */
export interface ExternalClient<R extends ManagedObject, Plan = unknown> {
  /**
   * What the cloud holds now, compared with the spec: the reconciler applies the field policy around the
   * comparison's diff (a kind that declares no policy fields still has `sluice.dev/drift: report` applied).
   */
  observe(resource: R, externalId: string): Promise<Observed<R, Plan>>;
  /**
   * `prepared`: what `CreatePreparation.prepareCreate` made, already in the connection Secret. Returns a
   * `Waiting` when the cloud answered that what the create needs is not ready (a service not running).
   */
  create(resource: R, prepared?: ConnectionDetails): Promise<Creation | Waiting>;
  /**
   * The minimal change for what `observe` found different. Returns the status fields the cloud's answers
   * changed (a state entered at once, `stopping`), so status shows the change under way, not the state before;
   * or a `Waiting` when the cloud answered that what the change needs is not ready (a service not running).
   */
  update(
    resource: R,
    externalId: string,
    observation: Extract<Observation<Plan>, { exists: true }>,
  ): Promise<Record<string, unknown> | void | Waiting>;
  /** Idempotent: answers `gone` once the cloud resource no longer exists (a 404 is success). */
  delete(resource: R, externalId: string): Promise<'gone' | 'pending'>;
  /** New secret connection values when the stored ones were lost (e.g. a password reset). */
  recoverConnectionDetails?(resource: R, externalId: string): Promise<ConnectionDetails>;
}

/**
 * What the cloud records of an object, read before anything is written or sent: the id a lost create made,
 * the objects a rebuilt cluster takes back, who owns an id to adopt or a plain id the spec names.
 */
export interface CloudRecords<R extends ManagedObject> {
  /**
   * Finds what a crashed or unanswered create left behind: by the marker `create` puts on the cloud resource
   * (a tag), or, for kinds without one, by matching what was created after `lost.intent`, from a list that
   * started after `lost.listedAfter`. Without `lost` (no create was ever sent) such a kind must find nothing:
   * a look-alike it did not create is never adopted.
   */
  findCreated(resource: R, lost: LostCreate | undefined): Promise<string | undefined>;
  /**
   * The cloud objects recorded for `owner` under any cluster name, from the shared lists (never a GET per
   * object): a rebuilt cluster takes back its own, and is refused another's (`judgeOwnership`).
   */
  findOwned?(resource: R, owner: Owner): Promise<OwnedCandidate[]>;
  /**
   * The owner the cloud records for the object `externalId` (for a child: its service's), undefined when it
   * records none: an id to adopt that another cluster recorded is refused, as one another object holds.
   */
  recordedOwner?(resource: R, externalId: string): Promise<Owner | undefined>;
  /**
   * The owner the cloud records for what a spec field's plain id names (a `serviceId`'s service, a
   * `backupId`'s service), undefined when it records none: read before the id may reach anything.
   */
  plainIdOwner?(resource: R, use: PlainIdUse): Promise<Owner | undefined>;
}

/** What a create needs settled, made or said before it is sent. */
export interface CreatePreparation<R extends ManagedObject> {
  /**
   * Makes sure a create can go ahead (e.g. its service runs: an idle one is woken); returns a `Waiting`
   * while it cannot yet, and throws a `ReconcileError` when only a change of the spec helps.
   */
  ensureCreatable?(resource: R): Promise<Waiting | void>;
  /**
   * Connection values the client makes itself for the create (a key's secret, made here and sent only as a
   * hash): written into the connection Secret before the create is sent, so a create never makes what only
   * a lost answer knew. `current` is the Secret as it is: values an earlier attempt wrote are used again, so
   * a create retried after a crash makes the same thing.
   */
  prepareCreate?(resource: R, current: Readonly<Record<string, string>> | undefined): ConnectionDetails;
  /**
   * Status fields the create will record that are settled before it is sent (the backup a restore uses,
   * after `ensureCreatable`): kept on the object with the create intent, so a create whose answer is lost
   * records them too once its cloud resource is found.
   */
  createStatus?(resource: R): Record<string, unknown> | undefined;
  /**
   * What a create does besides making the object, in words, when it does more (a key that replaces the
   * keys a rebuilt cluster lost the secrets of): what `sluice plan` says of the create.
   */
  createEffects?(resource: R): Promise<string | undefined>;
}

/** Everything one reconcile of a resource resolved before the kind's client runs. */
export interface ConnectContext<Cloud> {
  cloud: Cloud;
  /** The referenced objects' cloud ids (and objects), by the declaration's name. */
  references: ResolvedReferences;
  /** The values of the Secrets the spec references, and which of them rotated. */
  secrets: ResolvedSecrets;
  /**
   * The `namespace/name` of another object of the same kind whose status already holds this cloud id, as
   * the operator's cache sees it: for `findCreated` of a kind without tags, which must not adopt what
   * another object manages.
   */
  claimedBy(id: string): string | undefined;
  /** Who this object is recorded as in the cloud: what `create` records, and what `observe` keeps. */
  owner: Owner;
  /**
   * The connection Secret's values as the operator's cache holds them (what every client of the Secret
   * reads), for a kind that keeps there what only it knows (a key made for a rotation); undefined without one.
   */
  connectionSecret(): Readonly<Record<string, string>> | undefined;
}

/**
 * One cloud read of a drift check, on the API whose budget pays for it. With `list`, the read is a shared
 * list (one call serves every object of the key naming the same list); without, a GET of the object alone.
 */
export interface DriftRead<Api extends string = string> {
  /** The API by the name the operator gives its budget (`DriftPlannerOptions.budgets`): the runtime only carries it. */
  api: Api;
  list?: string;
}

/** A kind as the runtime knows it. */
export interface ManagedKind<R extends ManagedObject, Cloud, Plan = unknown> {
  kind: string;
  group: string;
  version: string;
  plural: string;
  defaultDeletionPolicy: DeletionPolicy;
  /**
   * The reasons only this kind writes and what common ones mean for it, in the terms of the common table:
   * a Ready=False reason of its own that a person must end makes its objects Stalled.
   */
  reasons?: KindReasons;
  /** Where connection details go, and which keys must be present (else `recoverConnectionDetails`). */
  connectionSecret?: {
    name(resource: R): string;
    requiredKeys: readonly string[];
    /** Further keys computed from the details about to be written (all of them, kept and new). */
    derive?(resource: R, details: ConnectionDetails): ConnectionDetails;
    /**
     * The annotation whose every new value asks once for new secret values (`recoverConnectionDetails`, a
     * password reset): the kind names it. Without one, values are recovered only when known to be lost.
     */
    resetAnnotation?: string;
    /**
     * The Secret signs others in (a key's credentials): every object using it (as its `credentialsRef`, the
     * namespace default, or a referenced Secret) is a dependant, so a `Delete` waits until they are gone.
     */
    usersAreDependants?: boolean;
  };
  /** The fields a field policy may name: what the reconciler applies `spec.fieldPolicy` with. */
  policyFields?: PolicyFields;
  /** Other sluice objects this kind depends on; resolved (or waited for) before the client runs. */
  references?: readonly ReferenceDeclaration<R>[];
  /**
   * The name of a single reference whose cloud object can have only one of this kind (one query endpoint
   * per service): the oldest object claiming it owns it; the others wait with reason `Conflict`.
   */
  exclusiveOn?: string;
  /**
   * The status fields `CreatePreparation.createStatus` settles before a create: the only ones read back from
   * `sluice.dev/create-status` when a lost create is found (none when unset). The annotation is anyone's to
   * write who may edit the object, so each must be a record for users only, never what a later step acts on.
   */
  createStatusFields?: readonly string[];
  /**
   * The kind makes credentials (an ApiKey: a key written into its connection Secret). Its objects sign in
   * only with the credentials they state (spec.credentialsRef, else the operator's), never the namespace's
   * default, and never with a key an object of the kind makes: `identityKeys` are the connection Secret's
   * keys that name the key made (the current one and a rotation's next).
   */
  makesCredentials?: { identityKeys: readonly string[] };
  /** The Secrets a resource's spec references (`…SecretRef`), read from the operator's cache. */
  secretReferences?(resource: R): SecretUse[];
  /**
   * The cloud ids the spec names by value (`serviceId`, `backupId`) or reaches through a reference that
   * may lead out of the namespace (a restore's source): each is checked against its owner record and the
   * grants before any call (the `sluice.dev/external-id` annotation is every kind's, checked the same way).
   */
  plainIds?(resource: R, references: ResolvedReferences): PlainIdUse[];
  /** What a drift check of the resource reads from the cloud: what the operator plans each key's quota by. */
  driftReads?(resource: R): readonly DriftRead[];
  connect(resource: R, context: ConnectContext<Cloud>): KindConnection<R, Plan>;
}
