import { databaseServiceKind } from './database-service/kind.ts';
import { pipeKind } from './pipe/kind.ts';
import { webhookKind } from './webhook/kind.ts';
import { sourceKind } from './source/kind.ts';
import { dashboardKind } from './dashboard/kind.ts';
import { savedSearchKind } from './saved-search/kind.ts';
import { alertKind } from './alert/kind.ts';
import { queryEndpointKind } from './query-endpoint/kind.ts';
import { reversePrivateEndpointKind } from './reverse-private-endpoint/kind.ts';
import { apiKeyKind } from './api-key/kind.ts';
import { cloudIdGrantSchema } from './cloud-id-grant/schema.ts';
import type { GrantSchema } from './shared/grant-schema.ts';
import type { KindDescriptor } from './shared/descriptor.ts';
import type { ManagedObject } from '../managed/index.ts';

/**
 * Every kind sluice serves, in order: one line per kind. `npm run generate` writes a CRD per entry (and the
 * chart's and kustomize base's RBAC rules, the Argo CD health checks and the docs' reason tables) from this
 * list without loading any controller; `sluice export` writes these kinds; the operator runs one controller
 * per entry (`loadKinds` in load.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of kinds with different object types
export const KINDS: readonly KindDescriptor<any>[] = [
  databaseServiceKind,
  pipeKind,
  webhookKind,
  sourceKind,
  dashboardKind,
  savedSearchKind,
  alertKind,
  queryEndpointKind,
  reversePrivateEndpointKind,
  apiKeyKind,
];

/**
 * The kinds sluice reads but does not manage: a CRD each (and the operator's rights to read them), written by
 * `npm run generate` beside the kinds'.
 */
export const GRANT_SCHEMAS: readonly GrantSchema[] = [cloudIdGrantSchema];

export function kindNamed(name: string): (typeof KINDS)[number] | undefined {
  return KINDS.find((kind) => kind.kind === name);
}

/**
 * Whether an object is of a kind that signs in only with the credentials it states (one that makes
 * credentials, as an ApiKey does): what the cloud clients resolve its credentials by.
 */
export function statesCredentials(
  kinds: readonly { kind: string; makesCredentials?: unknown }[],
): (resource: ManagedObject) => boolean {
  const stating = new Set(kinds.filter((kind) => kind.makesCredentials).map((kind) => kind.kind));
  return (resource) => resource.kind !== undefined && stating.has(resource.kind);
}
