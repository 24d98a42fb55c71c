import { apiKeySchema } from './api-key/schema.ts';
import { alertSchema } from './alert/schema.ts';
import { databaseServiceSchema } from './database-service/schema.ts';
import { cloudIdGrantSchema } from './cloud-id-grant/schema.ts';
import type { GrantSchema } from './shared/grant-schema.ts';
import { webhookSchema } from './webhook/schema.ts';
import { dashboardSchema } from './dashboard/schema.ts';
import { savedSearchSchema } from './saved-search/schema.ts';
import { sourceSchema } from './source/schema.ts';
import type { KindSchema } from './shared/kind-schema.ts';
import { pipeSchema } from './pipe/schema.ts';
import { queryEndpointSchema } from './query-endpoint/schema.ts';
import { reversePrivateEndpointSchema } from './reverse-private-endpoint/schema.ts';

/**
 * Every kind sluice serves, in order: the list `npm run generate` writes a CRD per entry from (and the chart's
 * and kustomize base's RBAC rules and Argo CD health checks), without loading any controller or cloud client,
 * and the kinds `sluice export` writes. The operator's registry (index.ts) lists each kind's controller at the
 * same position; test/unit/kinds.test.ts fails when the two disagree.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of kinds with different object types
export const KIND_SCHEMAS: readonly KindSchema<any>[] = [
  databaseServiceSchema,
  pipeSchema,
  webhookSchema,
  sourceSchema,
  dashboardSchema,
  savedSearchSchema,
  alertSchema,
  queryEndpointSchema,
  reversePrivateEndpointSchema,
  apiKeySchema,
];

/**
 * The kinds sluice reads but does not manage: a CRD each (and the operator's rights to read them), written by
 * `npm run generate` beside the kinds'.
 */
export const GRANT_SCHEMAS: readonly GrantSchema[] = [cloudIdGrantSchema];
