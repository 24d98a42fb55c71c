import type { KindDescriptor } from './descriptor.ts';
import type {
  CloudRecords,
  ConnectContext,
  CreatePreparation,
  ExternalClient,
  KindConnection,
  ManagedObject,
} from '../../managed/index.ts';
import type { CloudConnection } from '../../cloud-access/connection.ts';

/**
 * The connection of a kind whose one object per reconcile serves every role: each phase of the reconcile
 * still sees only its own, while what one phase learns (a restore's backup settled before the create, the
 * keys a create replaces found by the look-up) stays where the next one reads it.
 */
export function connectionOf<R extends ManagedObject, Plan>(
  object: ExternalClient<R, Plan> & CloudRecords<R> & CreatePreparation<R>,
): KindConnection<R, Plan> {
  return { client: object, records: object, creation: object };
}

/** A kind's controller (`src/kinds/<kind>/controller.ts`): connects what talks to the cloud for one object. */
export interface KindController<R extends ManagedObject, Plan = unknown> {
  connect(resource: R, context: ConnectContext<CloudConnection>): KindConnection<R, Plan>;
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
