import type { KindDescriptor } from './descriptor.ts';
import type {
  CloudRecords,
  Comparison,
  ConnectContext,
  CreatePreparation,
  ExternalClient,
  KindConnection,
  ManagedObject,
} from '../../managed/index.ts';
import type { CloudConnection } from '../../cloud-access/connection.ts';

/** What a kind's observe finds: nothing, or a comparison the reconciler applies the field policy to. */
export type Observed<R extends ManagedObject, Plan> = { exists: false } | Comparison<R['spec'], Plan>;

/** A kind's client: its observe compares the spec with the cloud, and the reconciler applies the field policy. */
export type KindClient<R extends ManagedObject, Plan> = Omit<ExternalClient<R, Plan>, 'observe'> & {
  observe(resource: R, externalId: string): Promise<Observed<R, Plan>>;
};

/** A kind's connection: its client, its records, and its create's preparation. */
export type KindRoles<R extends ManagedObject, Plan> = Omit<KindConnection<R, Plan>, 'client'> & {
  client: KindClient<R, Plan>;
};

/**
 * The connection of a kind whose one object per reconcile serves every role: each phase of the reconcile
 * still sees only its own, while what one phase learns (a restore's backup settled before the create, the
 * keys a create replaces found by the look-up) stays where the next one reads it.
 */
export function connectionOf<R extends ManagedObject, Plan>(
  object: KindClient<R, Plan> & CloudRecords<R> & CreatePreparation<R>,
): KindRoles<R, Plan> {
  return { client: object, records: object, creation: object };
}

/** A kind's controller (`src/kinds/<kind>/controller.ts`): connects what talks to the cloud for one object. */
export interface KindController<R extends ManagedObject, Plan = unknown> {
  connect(resource: R, context: ConnectContext<CloudConnection>): KindRoles<R, Plan>;
}

/**
 * A kind with its controller loaded (`loadKinds`): its descriptor's facts and its client, the `ManagedKind`
 * the operator and `sluice plan` run. `Plan` is the kind's plan: what `observe` hands to `update`.
 */
export type SluiceKind<R extends ManagedObject, Plan = unknown> = Omit<
  KindDescriptor<R>,
  'controller' | 'exportStep'
> &
  KindController<R, Plan>;
