import { alertSchema } from './alert/schema.ts';
import { databaseServiceSchema } from './database-service/schema.ts';
import type { KindSchema } from '../api/kind-schema.ts';
import { pipeSchema } from './pipe/schema.ts';
import { queryEndpointSchema } from './query-endpoint/schema.ts';
import { reversePrivateEndpointSchema } from './reverse-private-endpoint/schema.ts';

/**
 * The schema of every kind sluice serves, in the order of the operator's registry (src/kinds/index.ts), which
 * holds their controllers: `npm run generate` writes a CRD per entry, and the chart's and kustomize base's
 * RBAC rules and Argo CD health checks from the same list, without loading any controller or cloud client.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of kinds with different object types
export const KIND_SCHEMAS: readonly KindSchema<any>[] = [
  databaseServiceSchema,
  pipeSchema,
  alertSchema,
  queryEndpointSchema,
  reversePrivateEndpointSchema,
];
