import { alertKind } from './controllers/alert.ts';
import { databaseServiceKind } from './controllers/database-service.ts';
import { pipeKind } from './controllers/pipe.ts';
import { queryEndpointKind } from './controllers/query-endpoint.ts';
import { reversePrivateEndpointKind } from './controllers/reverse-private-endpoint.ts';
import type { SluiceKind } from './controllers/sluice-kind.ts';

/**
 * Every kind sluice serves, with its controller: the operator runs one per entry. Each is its schema in
 * KIND_SCHEMAS (src/api/kinds.ts, what `npm run generate` reads) with the same kinds in the same order.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of kinds with different object types
export const KINDS: readonly SluiceKind<any, any>[] = [
  databaseServiceKind,
  pipeKind,
  alertKind,
  queryEndpointKind,
  reversePrivateEndpointKind,
];

export function kindNamed(name: string): (typeof KINDS)[number] | undefined {
  return KINDS.find((kind) => kind.kind === name);
}
