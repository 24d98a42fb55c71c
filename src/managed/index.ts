/**
 * The kind contract: what a kind, a command (plan, export) and the operator's wiring may use of the managed
 * reconciler. The rest of this folder is the reconciler's own business; `npm run lint` refuses an import of it
 * from outside src/managed and the controller engine (src/runtime).
 */

// The object every kind is, and what a kind declares and implements.
export { DELETION_POLICIES, MANAGEMENT_POLICIES } from './types.ts';
export type {
  CloudRecords,
  Comparison,
  ConnectContext,
  ConnectionDetails,
  CreatePreparation,
  Creation,
  DeletionPolicy,
  DriftRead,
  ExternalClient,
  Judgement,
  KindConnection,
  LostCreate,
  ManagedKind,
  ManagedObject,
  ManagedStatus,
  Observation,
  Observed,
} from './types.ts';

// The annotations and the finalizer sluice reads and writes on every object.
export { ANNOTATIONS, FINALIZER, OPERATOR_ANNOTATIONS, externalIdOf } from './annotations.ts';

// What a kind throws (a failure, reported in Synced with its reason) or returns (a wait, reported in Ready).
export { ReconcileError, Waiting, messageOf } from './errors.ts';

// Which credentials Secret an object uses: its own, else its namespace's default.
export { NAMESPACE_CREDENTIALS, OPERATOR_CREDENTIALS, credentialsSecretNameOf } from './managed-object.ts';

// References to other sluice objects.
export { NOT_READY_YET, onlyReference, referencedNames } from './references.ts';
export type {
  ObjectLookup,
  ObjectNames,
  ReferenceDeclaration,
  ReferenceList,
  ResolvedReference,
} from './references.ts';

// Secrets a spec references, and the key their status digests are made with.
export type { SecretReader, SecretSnapshot, SecretUse, SecretWriteListener } from './secret-references.ts';
export { MAX_KEPT_SECRET_BYTES, oversizedSecret } from './secret-references.ts';
export { deriveDigestKey, type DigestKey } from './secret-digests.ts';

// Who owns which field after create, and the status bounds the CRDs state.
export {
  MAX_DRIFT_ENTRIES,
  MAX_MANAGED_ENTRIES,
  MAX_OBSERVED_LENGTH,
  type FieldPolicy,
  type PolicyFields,
} from './field-policy.ts';
export { fieldChanges, type FieldChange } from './field-changes.ts';
export { STATUS_BOUNDS, recordedAnnotation } from './status-bounds.ts';
export { SENSITIVE } from './drift-status.ts';
export { progressConditions, readyReasonsNeedingAPerson } from './progress-conditions.ts';

// The cluster recorded as owner on every cloud object sluice creates.
export {
  CLUSTER_NAME,
  MAX_CLUSTER_NAME,
  ownerRecord,
  parseOwnerRecord,
  type ClusterIdentity,
  type OwnedCandidate,
  type Owner,
} from './cluster-owner.ts';

// Cloud ids named by value, and who may reach what they name.
export type { PlainIdUse } from './id-access.ts';

// Objects sluice only observes: what Full would send.
export { bodyLeaves, describePendingChange, isObserveOnly, type PendingChange } from './observe-only.ts';

// The reconciler and what it writes with, for the composition root (src/composition) that builds it, live or dry.
export { ManagedReconciler } from './reconciler.ts';
export { OWNED_BY_ANOTHER_CLUSTER } from './cloud-target.ts';
export type { CloudUse, KindObjects, ReconcilerServices } from './reconciler-options.ts';
export type { CredentialsRead } from './credentials-read.ts';
export {
  ReconcileExecutor,
  type CreateStep,
  type ExecutorFactory,
  type ExecutorServices,
  type ObservedTarget,
} from './executor.ts';
export type { Decision } from './decide.ts';
export type { Outcome } from './outcomes.ts';
export { ALREADY_MANAGED } from './preconditions.ts';
export { REFERENCE_NOT_FOUND } from './outcomes.ts';
export { EventRecorder } from './events.ts';
export { HttpKubeWriter, assertControlledBy, type KubeWriter } from './kube-writer.ts';
