import type { KindSchema } from '../api/kind-schema.ts';
import type { ManagedKind, ManagedObject } from '../managed/index.ts';
import type { CloudConnection } from './cloud-connection.ts';

/**
 * One entry of the kind registry: the kind's schema (`src/api/<kind>.ts`: names, zod schemas, printer
 * columns, deletion policy, references) spread into what the runtime needs besides (Secrets, the cloud
 * client), so a kind is declared once. `Plan` is the kind's plan: what `observe` hands to `update`.
 */
export type SluiceKind<R extends ManagedObject, Plan = unknown> = KindSchema<R> &
  ManagedKind<R, CloudConnection, Plan>;
