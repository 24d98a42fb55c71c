import { alertKind } from './controllers/alert.ts';
import { databaseServiceKind } from './controllers/database-service.ts';
import { pipeKind } from './controllers/pipe.ts';
import { queryEndpointKind } from './controllers/query-endpoint.ts';
import { reversePrivateEndpointKind } from './controllers/reverse-private-endpoint.ts';
import type { SluiceKind } from './controllers/sluice-kind.ts';
import type { ManagedObject } from './runtime/managed/types.ts';

/**
 * Every kind sluice serves, once: `npm run generate` writes a CRD per entry, the operator runs a controller
 * per entry, and the RBAC rules grant exactly these resources.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of kinds with different object types
export const KINDS: readonly SluiceKind<any, any>[] = [
  databaseServiceKind,
  pipeKind,
  alertKind,
  queryEndpointKind,
  reversePrivateEndpointKind,
];

export type AnyKind = SluiceKind<ManagedObject, unknown>;

export function kindNamed(name: string): (typeof KINDS)[number] | undefined {
  return KINDS.find((kind) => kind.kind === name);
}
