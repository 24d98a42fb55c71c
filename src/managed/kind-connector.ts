import type { ObjectClaims } from './claims.ts';
import type { Owner } from './cluster-owner.ts';
import type { ConnectionPublisher } from './connection-publisher.ts';
import type { ReconcileExecutor } from './executor.ts';
import type { Pacing } from './pacing.ts';
import type { CloudUse, ManagedReconcilerOptions } from './reconciler-options.ts';
import type { ResolvedReferences } from './references.ts';
import type { ResolvedSecrets } from './secret-references.ts';
import type { ConnectContext, KindConnection, ManagedObject } from './types.ts';

/** Deleting needs no credentials of the resource itself (a DELETE sends none). */
export const NO_SECRETS: ResolvedSecrets = {
  values: () => undefined,
  rotated: new Set(),
  digests: undefined,
  rebaselined: [],
};

export interface KindConnectorOptions<R extends ManagedObject, Cloud, P> extends Pick<
  ManagedReconcilerOptions<R, Cloud, P>,
  'kind' | 'cloudFor'
> {
  pacing: Pacing;
  claims: ObjectClaims<R>;
  connections: ConnectionPublisher<R> | undefined;
}

/** What one reconcile (or deletion) connects for: its object as read, whom it acts for, what it resolved. */
export interface ConnectTarget<R extends ManagedObject> {
  resource: R;
  /** The object's `namespace/name`. */
  key: string;
  owner: Owner;
  references: ResolvedReferences;
  secrets: ResolvedSecrets;
}

/**
 * The kind's client and records for one reconcile (or deletion), on the cloud as its `CloudUse` says: the
 * credentials the reconcile read, which the executor holds first, and the snapshot age the object's sync
 * interval allows, whose invalid annotation's Warning the executor records.
 */
export class KindConnector<R extends ManagedObject, Cloud, P> {
  constructor(private readonly options: KindConnectorOptions<R, Cloud, P>) {}

  async connect(
    target: ConnectTarget<R>,
    act: ReconcileExecutor<R>,
    use: Omit<CloudUse, 'freshnessMs'>,
  ): Promise<KindConnection<R, P>> {
    const { kind, pacing, claims, connections } = this.options;
    const { resource, key, owner, references, secrets } = target;
    const freshness = pacing.freshness(resource, key);
    if (freshness.warning) act.note(resource, freshness.warning);
    await act.holdCredentials(resource, use.credentials);
    const cloud = await this.options.cloudFor(resource, { ...use, freshnessMs: freshness.ms });
    const context: ConnectContext<Cloud> = {
      cloud,
      references,
      secrets,
      claimedBy: (id) => claims.recordedBy(resource, id),
      owner,
      connectionSecret: () => connections?.current(resource)?.data,
    };
    return kind.connect(resource, context);
  }
}
