import type { KindExport } from './export-step.ts';
import type { KindSchema } from './kind-schema.ts';
import type {
  Comparison,
  ConnectContext,
  DriftRead,
  ExternalClient,
  ManagedKind,
  ManagedObject,
} from '../../managed/index.ts';
import type { CloudApi, CloudConnection } from '../../cloud-access/connection.ts';

/**
 * One entry of the kind registry: the kind's schema (`src/kinds/<kind>/schema.ts`: names, zod schemas, printer
 * columns, deletion policy, references) spread into what the runtime needs besides (Secrets, the cloud
 * client, how `sluice export` reads and writes it), so a kind is declared once. `Plan` is the kind's plan: what
 * `observe` hands to `update`. Its drift reads name the cloud's APIs (`CloudApi`).
 */
export type SluiceKind<R extends ManagedObject, Plan = unknown> = KindSchema<R> &
  Omit<ManagedKind<R, CloudConnection, Plan>, 'driftReads' | 'connect' | 'policyFields'> & {
    driftReads?(resource: R): readonly DriftRead<CloudApi>[];
    /** How `sluice export` reads the kind's cloud objects and writes their manifests. */
    export: KindExport;
    connect(resource: R, context: ConnectContext<CloudConnection>): KindClient<R, Plan>;
  };

/** What a kind's observe finds: nothing, or a comparison the reconciler applies the field policy to. */
export type Observed<R extends ManagedObject, Plan> = { exists: false } | Comparison<R['spec'], Plan>;

/** A kind's client: its observe compares the spec with the cloud, and the reconciler applies the field policy. */
export type KindClient<R extends ManagedObject, Plan> = Omit<ExternalClient<R, Plan>, 'observe'> & {
  observe(resource: R, externalId: string): Promise<Observed<R, Plan>>;
};
