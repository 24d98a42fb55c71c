import type { KindDescriptor } from './descriptor.ts';
import type { Comparison, ConnectContext, ExternalClient, ManagedObject } from '../../managed/index.ts';
import type { CloudConnection } from '../../cloud-access/connection.ts';

/** What a kind's observe finds: nothing, or a comparison the reconciler applies the field policy to. */
export type Observed<R extends ManagedObject, Plan> = { exists: false } | Comparison<R['spec'], Plan>;

/** A kind's client: its observe compares the spec with the cloud, and the reconciler applies the field policy. */
export type KindClient<R extends ManagedObject, Plan> = Omit<ExternalClient<R, Plan>, 'observe'> & {
  observe(resource: R, externalId: string): Promise<Observed<R, Plan>>;
};

/** A kind's controller (`src/kinds/<kind>/controller.ts`): the client that talks to the cloud for one object. */
export interface KindController<R extends ManagedObject, Plan = unknown> {
  connect(resource: R, context: ConnectContext<CloudConnection>): KindClient<R, Plan>;
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
