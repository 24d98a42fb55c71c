import { objectKey } from '../kube/cache.ts';
import { ANNOTATIONS, createIntentOf, FINALIZER } from './annotations.ts';
import { otherObjectAsSeenBy, type ObjectClaims } from './claims.ts';
import { actingOwner, type ClusterIdentity } from './cluster-owner.ts';
import type { CreateAttempts } from './create-attempts.ts';
import type { CredentialsChecks } from './credentials-checks.ts';
import { objectSecretOf, type CredentialsRead } from './credentials-read.ts';
import { Waiting } from './errors.ts';
import type { ObjectRead } from './object-read.ts';
import { Raced } from './object-writes.ts';
import type { ReconcileExecutor } from './executor.ts';
import { NO_SECRETS, type KindConnector } from './kind-connector.ts';
import { isObserveOnly } from './observe-only.ts';
import type { Ended, Outcomes } from './outcomes.ts';
import type { PlainIdGate } from './plain-ids.ts';
import { resolveReferencesForDelete, type ObjectLookup, type ResolvedReferences } from './references.ts';
import type { SecretReader } from './secret-references.ts';
import type { CloudRecords, ManagedKind, ManagedObject } from './types.ts';
import { REASON } from '../base/reasons.ts';

export interface DeletionOptions<R extends ManagedObject, P> {
  kind: ManagedKind<R, unknown, P>;
  /** Objects that reference this one and still exist (`Pipe orders`): a Delete waits for them. */
  dependantsOf?(resource: R): string[];
  claims: ObjectClaims<R>;
  outcomes: Outcomes<R>;
  creates: CreateAttempts;
  lookup: ObjectLookup;
  /** The operator's cluster name and the names its administrator lets it act for. */
  cluster: ClusterIdentity;
  /** Reads the credentials the resource's cloud calls sign in with: once, for the check and the connection. */
  readCredentials?(resource: R): CredentialsRead;
  /**
   * Why the resource's credentials may not reach its cloud object (another organization than the one it
   * lives in): its deletion waits, since a 404 there would not mean the object is gone.
   */
  credentialsChecks: Pick<CredentialsChecks<R>, 'refusal'>;
  /** The kind's client and records for a resource being deleted; the executor holds its credentials first. */
  connector: Pick<KindConnector<R, unknown, P>, 'connect'>;
  /** Who may reach what a plain id names; none: every plain id is taken as given. */
  plainIds: PlainIdGate<R> | undefined;
  /** Which Secret the resource signs in with, looked for here when no credentials were read. */
  secrets: SecretReader;
}

/**
 * What happens when a resource with sluice's finalizer is deleted: its deletion policy, applied only to a
 * cloud object it owns, after its dependants are gone; then the finalizer goes. What status says is returned,
 * or the race releasing the finalizer met (the object gone or changed meanwhile).
 */
export class Deletion<R extends ManagedObject, P> {
  /**
   * The uid whose finalizer this process released, per key, until the cache no longer holds the object: a
   * cache that still shows the finalizer is behind, and deleting again would only race the object's removal.
   */
  private readonly released = new Map<string, string>();

  constructor(private readonly options: DeletionOptions<R, P>) {}

  /** The object is gone from the cache. */
  forget(key: string): void {
    this.released.delete(key);
  }

  /**
   * Applies the deletion policy to the object the reconcile read; `act` performs its writes (the delete, the
   * finalizer's release, Events).
   */
  async finalize(read: ObjectRead<R>, act: ReconcileExecutor<R>): Promise<Ended | Raced> {
    const { kind } = this.options;
    const { object: resource, key } = read;
    const orphaned = (message: string) => act.event(resource, 'Normal', 'Orphaned', message);
    const removeFinalizer = () => this.removeFinalizer(resource, act);
    if (!resource.metadata.finalizers?.includes(FINALIZER)) return { outcome: { kind: 'idle' }, status: {} };
    if (this.released.get(key) === resource.metadata.uid) return RELEASED;
    const policy = resource.spec.deletionPolicy ?? kind.defaultDeletionPolicy;
    let id = resource.status?.id;
    const acting = actingOwner(resource, kind.kind, this.options.cluster);
    if (acting.problem) {
      // A cluster name this operator was not given is anyone's to write on their own object, with an intent
      // and the finalizer: nothing is read, stopped or deleted under it, or a lost-create look-up would find
      // that cluster's objects.
      if (id) {
        const message = `left ${kind.kind} ${id} in the cloud: ${ANNOTATIONS.ownerCluster} names a cluster this operator may not act for`;
        orphaned(message);
      }
      return removeFinalizer();
    }
    const holder = id === undefined ? undefined : this.options.claims.otherHolderOf(read, id);
    if (holder) {
      // Another object manages it: deleting this one must not take the other's cloud resource with it.
      const message = `left ${kind.kind} ${id} to ${otherObjectAsSeenBy(resource, kind.kind, holder)}, which manages it`;
      orphaned(message);
      return removeFinalizer();
    }
    if (isObserveOnly(resource)) {
      // Observe never writes to the cloud, a delete least of all: whatever the deletion policy, it stays.
      if (id) {
        const message = `left ${kind.kind} ${id} in the cloud (managementPolicy Observe)`;
        orphaned(message);
      }
    } else if (policy === 'Delete') {
      const dependants = this.options.dependantsOf?.(resource) ?? [];
      if (dependants.length > 0) {
        // Deleting the cloud resource first would break them (or the cloud refuses): they go first.
        const message = `waiting for ${dependants.join(', ')} to be deleted first`;
        return this.options.outcomes.waitForObject(new Waiting(REASON.WaitingForDependants, message));
      }
      const references = resolveReferencesForDelete(resource, kind.references ?? [], this.options.lookup);
      const owner = this.options.claims.exclusiveOwner(resource, references);
      if (owner) {
        // One cloud object per referenced object, and another object manages it now: not this one's to delete.
        const message = `left the ${kind.exclusiveOn}'s ${kind.kind} in the cloud: ${otherObjectAsSeenBy(resource, kind.kind, owner)} manages it`;
        orphaned(message);
        return removeFinalizer();
      }
      const missing = Object.values(references).filter((resolved) => resolved.length === 0);
      if (missing.length > 0 && !id && !createIntentOf(resource)) {
        // Never created: no reference was ever resolved, so nothing can exist in the cloud.
        return removeFinalizer();
      }
      const credentials = this.options.readCredentials?.(resource);
      const refused =
        id || createIntentOf(resource)
          ? this.options.credentialsChecks.refusal(resource, credentials)
          : undefined;
      if (refused) throw refused;
      const use = { priority: 'user', credentials } as const;
      const target = { resource, key, owner: acting.owner, references, secrets: NO_SECRETS };
      const connection = await this.options.connector.connect(target, act, use);
      const { client, records, waiting } = connection;
      // A create that crashed before recording its id must not leak when the resource is deleted; but an
      // intent is anyone's to write: the look-up goes only where the object's plain ids may reach.
      if (!id && !(await this.mayLookUp(resource, records, references, credentials)))
        return removeFinalizer();
      const lost = this.options.creates.lostCreate(resource);
      // A lost create is looked for as its create resolved the references: one still on its way is waited for.
      if (!id && lost && waiting) return this.options.outcomes.waitForCloud(waiting);
      id ??= await records.findCreated(resource, lost);
      if (id && (await act.deleteInCloud(client, resource, id)) === 'pending') {
        const deleting = {
          type: 'Ready',
          status: 'False',
          reason: REASON.Deleting,
          message: `deleting ${id}`,
        } as const;
        return { outcome: { kind: 'waitForCloud' }, status: { conditions: [deleting] } };
      }
      if (id) act.event(resource, 'Normal', 'Deleted', `deleted ${kind.kind} ${id}`);
    } else if (id) orphaned(`left ${kind.kind} ${id} in the cloud (deletionPolicy Orphan)`);
    return removeFinalizer();
  }

  /**
   * Whether an object that never recorded an id may look for a lost create: only where its plain ids may
   * reach, or a crafted intent would find (and delete) another namespace's object. They are judged as the
   * credentials the look-up signs in with (`credentials`, as read): those of a Secret of the object's own
   * namespace, or the operator's, as for its reconcile.
   */
  private async mayLookUp(
    resource: R,
    records: CloudRecords<R>,
    references: ResolvedReferences,
    credentials: CredentialsRead | undefined,
  ) {
    const { kind, plainIds, secrets } = this.options;
    const own = objectSecretOf(resource, credentials, secrets, Boolean(kind.makesCredentials));
    const refused = plainIds?.refusal(resource, records, references, false, own === undefined);
    return (await refused) === undefined;
  }

  private async removeFinalizer(resource: R, act: ReconcileExecutor<R>): Promise<Ended | Raced> {
    const released = await act.releaseFinalizer(resource);
    if (released instanceof Raced) return released;
    this.released.set(objectKey(resource), resource.metadata.uid);
    return RELEASED;
  }
}

/** The finalizer is released: the object is on its way out, and no status is written to it. */
const RELEASED: Ended = { outcome: { kind: 'idle' }, status: { discard: true } };
