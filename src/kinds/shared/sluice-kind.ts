import type { KindExport } from './export-step.ts';
import type { KindSchema } from './kind-schema.ts';
import type { DriftRead, ManagedKind, ManagedObject } from '../../managed/index.ts';
import type { CloudApi, CloudConnection } from '../../cloud-access/connection.ts';

/**
 * One entry of the kind registry: the kind's schema (`src/kinds/<kind>/schema.ts`: names, zod schemas, printer
 * columns, deletion policy, references) spread into what the runtime needs besides (Secrets, the cloud
 * client, how `sluice export` reads and writes it), so a kind is declared once. `Plan` is the kind's plan: what
 * `observe` hands to `update`. Its drift reads name the cloud's APIs (`CloudApi`).
 */
export type SluiceKind<R extends ManagedObject, Plan = unknown> = KindSchema<R> &
  Omit<ManagedKind<R, CloudConnection, Plan>, 'driftReads'> & {
    driftReads?(resource: R): readonly DriftRead<CloudApi>[];
    /** How `sluice export` reads the kind's cloud objects and writes their manifests. */
    export: KindExport;
  };
