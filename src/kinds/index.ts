import { apiKeyKind } from './api-key/controller.ts';
import { alertKind } from './alert/controller.ts';
import { databaseServiceKind } from './database-service/controller.ts';
import { pipeKind } from './pipe/controller.ts';
import { queryEndpointKind } from './query-endpoint/controller.ts';
import { reversePrivateEndpointKind } from './reverse-private-endpoint/controller.ts';
import { webhookKind } from './webhook/controller.ts';
import { dashboardKind } from './dashboard/controller.ts';
import { savedSearchKind } from './saved-search/controller.ts';
import { sourceKind } from './source/controller.ts';
import type { SluiceKind } from './shared/sluice-kind.ts';
import type { ManagedObject } from '../managed/index.ts';

/**
 * Every kind sluice serves, with its controller: the operator runs one per entry. The same kinds in the same
 * order as KIND_SCHEMAS (schemas.ts): the generator reads that list alone, so it loads no controller.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of kinds with different object types
export const KINDS: readonly SluiceKind<any, any>[] = [
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
