import type { KindSchema } from '../api/crd.ts';
import type { ManagedKind, ManagedObject } from '../runtime/managed/types.ts';
import type { CloudConnection } from '../operator/cloud-connection.ts';

/**
 * One entry of the kind registry: what the CRD generator needs (names, zod schemas, printer columns) and what
 * the runtime needs (references, Secrets, the cloud client) in a single object, so a kind is declared once.
 */
export type SluiceKind<R extends ManagedObject, S = unknown> = KindSchema &
  ManagedKind<R, CloudConnection, S>;
