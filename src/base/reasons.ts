/**
 * The condition reasons sluice writes, each with what it means for the object's Ready and Synced conditions,
 * for kstatus (Flux, kpt: read from the Reconciling and Stalled conditions sluice derives) and for Argo CD's
 * health check. One table: the reconciler, the progress conditions and the kinds' documentation read it,
 * so a reason's meaning is stated once. A kind's own reasons are in its `reasons.ts`, in these terms.
 */

/** How a reason ends: by itself (`wait`), by a retry (`retry`), or only when a person acts (`terminal`). */
export type ReasonEnd = 'none' | 'wait' | 'retry' | 'terminal';

export interface ReasonMeaning {
  /** The condition it is written in, with that condition's status. */
  condition: 'Ready=True' | 'Ready=False' | 'Synced=True' | 'Synced=False' | 'both False';
  end: ReasonEnd;
  /** kstatus's reading. */
  kstatus: 'Current' | 'InProgress' | 'Failed' | 'Terminating';
  /** Argo CD's health. */
  argocd: 'Healthy' | 'Progressing' | 'Degraded' | 'Suspended';
  /** What a user reads in the docs. */
  means: string;
}

const available = { condition: 'Ready=True', end: 'none', kstatus: 'Current', argocd: 'Healthy' } as const;
const waiting = {
  condition: 'Ready=False',
  end: 'wait',
  kstatus: 'InProgress',
  argocd: 'Progressing',
} as const;
/** Ready=False that no retry ends: Stalled, so kstatus Failed and Argo CD Degraded. */
const stuck = { condition: 'Ready=False', end: 'terminal', kstatus: 'Failed', argocd: 'Degraded' } as const;
/** Synced=False that fails the same way until a person acts. */
const refused = {
  condition: 'Synced=False',
  end: 'terminal',
  kstatus: 'Failed',
  argocd: 'Degraded',
} as const;
/** Synced=False that a retry may end. */
const retried = {
  condition: 'Synced=False',
  end: 'retry',
  kstatus: 'InProgress',
  argocd: 'Progressing',
} as const;

export const REASONS = {
  Available: {
    ...available,
    means:
      'the cloud matches the spec and is in the desired state (the message counts the fields a policy leaves)',
  },
  ObserveOnly: {
    ...available,
    means:
      '`managementPolicy: Observe`: with Ready=True the cloud matches the spec; with False (Argo CD Progressing) the message names the calls Full would send',
  },
  Creating: { ...waiting, means: 'a create was sent; sluice polls until the cloud is done' },
  Updating: { ...waiting, means: 'an update was sent; sluice polls until the cloud is done' },
  Unavailable: {
    ...waiting,
    means: 'the cloud object exists but is not in the desired state yet (the message says which state)',
  },
  WaitingForReference: {
    ...waiting,
    means: 'a referenced object is missing or not usable yet ([references](#references-between-objects))',
  },
  WaitingForCredentials: {
    ...waiting,
    means:
      'the credentials Secret spec.credentialsRef names is one another object of the namespace writes (an ApiKey), not written yet; the message names that object',
  },
  ReferenceReplaced: {
    ...waiting,
    means:
      'the referenced DatabaseService now manages another service ([references](#references-between-objects))',
  },
  WaitingForDependants: {
    ...waiting,
    means:
      '`deletionPolicy: Delete`, and objects that reference this one (or sign in with the Secret an ApiKey writes) still exist; the message names them',
  },
  Deleting: {
    ...waiting,
    kstatus: 'Terminating',
    means: 'the delete was sent; waiting for the cloud to finish',
  },
  ExternalMissing: {
    ...waiting,
    means: 'the cloud object was deleted outside sluice; it is created again (with a Warning Event)',
  },
  ReferenceNotFound: {
    ...refused,
    condition: 'both False',
    means: 'a referenced object has not existed for a minute (a typo?); one Warning Event',
  },
  AlreadyManaged: {
    ...stuck,
    means: 'another object of the kind holds this cloud id (one Warning Event naming it); nothing is sent',
  },
  Conflict: {
    ...stuck,
    means: 'another object of the kind already holds what there is one of; the message names it',
  },
  OwnedByAnotherCluster: {
    ...waiting,
    means:
      'its cloud object (or `external-id`) is recorded under another cluster ([why](../disaster-recovery.md))',
  },
  ExternalIdNotAllowed: {
    ...waiting,
    means:
      '`sluice.dev/external-id` names a cloud object of another namespace that grants this one no use of it, or one made outside sluice that the administrator does not allow this namespace ([grants](../security.md#one-namespace-and-another)); nothing is sent',
  },
  OwnerClusterNotAllowed: {
    ...waiting,
    means: '`sluice.dev/owner-cluster` names a cluster `--take-over-from` does not list; nothing is sent',
  },
  InvalidAnnotation: {
    ...refused,
    means:
      'an annotation (`sluice.dev/owner-cluster`, a connection template) is invalid, naming it; nothing is sent',
  },
  CloudFailed: {
    ...stuck,
    means: 'the cloud reports the object failed; one Warning Event, sluice does not repair it on its own',
  },
  NothingToObserve: {
    ...stuck,
    means: '`managementPolicy: Observe` without a cloud id to observe: Observe never creates',
  },
  Drifted: { ...stuck, means: '`sluice.dev/drift: report`: the cloud differs, and sluice only reports it' },
  SyncFailed: {
    ...waiting,
    means:
      'the last attempt to apply this generation failed (details, and whether it is retried, in `Synced`)',
  },
  ReconcileSuccess: {
    condition: 'Synced=True',
    end: 'none',
    kstatus: 'Current',
    argocd: 'Healthy',
    means: 'the last reconcile worked',
  },
  ReconcilePaused: {
    condition: 'Synced=False',
    end: 'none',
    kstatus: 'Current',
    argocd: 'Suspended',
    means: '`sluice.dev/paused: "true"`; `observedGeneration` keeps the generation last acted on',
  },
  CloudRequestRejected: {
    ...refused,
    means: 'the API refused a request (4xx), with its message; retried no sooner than 10 s',
  },
  CloudApiError: { ...retried, means: 'the API failed (5xx); retried with backoff' },
  ReconcileError: {
    ...retried,
    means: 'any other failure (network, apiserver), with its message; retried with backoff',
  },
  CredentialsMissing: {
    ...refused,
    means: 'the credentials Secret or one of its keys is missing, naming which',
  },
  SecretMissing: { ...refused, means: 'a Secret the spec references, or its key, is missing, naming both' },
  SecretTooLarge: {
    ...refused,
    means: 'a key the object uses takes its Secret past the 64 KiB the operator keeps of one, naming both',
  },
  SecretConflict: {
    ...refused,
    means: "the connection Secret's name belongs to a Secret this object does not control",
  },
  SecretNotWritable: {
    ...refused,
    means:
      'the connection Secret cannot be created now (namespace being deleted, admission): no password reset',
  },
  StatusRefused: {
    ...refused,
    means: 'the apiserver refused the status write even in its bounded form; the message says why',
  },
  ExternalNotFound: { ...refused, means: '`sluice.dev/external-id` names an id that does not exist' },
  AmbiguousAdoption: {
    ...refused,
    means: 'a crash-safe create found several candidates ([below](#crash-safe-create)), naming them',
  },
  InvalidReference: {
    ...refused,
    means:
      'a reference points at an object that cannot serve it (another service, a missing backup); nothing is sent',
  },
  OperatorCredentialsNotAllowed: {
    ...refused,
    means: 'the namespace may not use the operator-wide credentials ([security](../security.md))',
  },
  ApiHostNotAllowed: {
    ...refused,
    means: "the object's own credentials name an API host that is not allowed ([security](../security.md))",
  },
  OrganizationChanged: {
    ...refused,
    means:
      "the credentials are of another organization than the one `status.organizationId` pins the object's cloud id to: nothing is read, created or deleted there ([security](../security.md))",
  },
  CredentialsManagedKey: {
    ...refused,
    means:
      'spec.credentialsRef names a Secret holding a key an ApiKey makes: a kind that makes keys never signs in with one ([security](../security.md))',
  },
} as const satisfies Record<string, ReasonMeaning>;

export type Reason = keyof typeof REASONS;

declare const declared: unique symbol;

/**
 * A reason a kind declared in its reasons table, made only by `reasonNames`: a bare string is no reason, so a
 * kind that raises one it did not declare does not compile.
 */
export type DeclaredReason<Name extends string = string> = Name & { readonly [declared]: true };

/** A reason a condition, an Event or a failure may carry: one of the common table's, or one a kind declared. */
export type ConditionReason = Reason | DeclaredReason;

/** What a kind's own reason means, in the terms of the common table; `means` alone for a common reason. */
export type KindReasonMeaning = Partial<ReasonMeaning> & { means: string };

/** A kind's reasons table: its own reasons, and what common ones mean for it. */
export type KindReasons = Readonly<Record<string, KindReasonMeaning>>;

/** Each reason of a kind's table by name, as the kind raises it: `PIPE_REASON.CannotRotate`. */
export function reasonNames<const Table extends KindReasons>(
  table: Table,
): { readonly [Name in keyof Table & string]: DeclaredReason<Name> } {
  return Object.fromEntries(Object.keys(table).map((name) => [name, name])) as {
    readonly [Name in keyof Table & string]: DeclaredReason<Name>;
  };
}

/** Each reason by name, for code that writes one: `REASON.SecretMissing`. */
export const REASON = Object.fromEntries(Object.keys(REASONS).map((name) => [name, name])) as {
  readonly [R in Reason]: R;
};

/** Whether `reason` (any kind's) in Ready=False waits for a person: the kinds add theirs. */
export function needsAPerson(meaning: ReasonMeaning | undefined): boolean {
  return meaning?.end === 'terminal';
}
