// The QueryEndpoint's mapping between spec and cloud, pure: the upsert body (`queryEndpointBody`), the
// differences (`diffQueryEndpoint`), the status (`queryEndpointStatus`) and the export mapping
// (`exportQueryEndpoint`: the cloud object back to the spec that adopts it).
import { isDeepStrictEqual } from 'node:util';
import type { QueryEndpointSpec } from './schema.ts';
import type { QueryEndpointBody } from '../../cloud/management-client.ts';
import { requestBody } from '../../cloud/request-body.ts';
import { QueryEndpointRequest, type QueryEndpoint } from '../../cloud/schemas/query-endpoint.ts';

/**
 * The spec with the ids of the ApiKey objects it names (`apiKeyRefs`, resolved by the reconciler) among
 * its `openApiKeys`: what the cloud is to hold.
 */
export function withReferencedKeys(spec: QueryEndpointSpec, keyIds: readonly string[]): QueryEndpointSpec {
  if (keyIds.length === 0) return spec;
  return { ...spec, openApiKeys: asSet([...(spec.openApiKeys ?? []), ...keyIds]) };
}

/** The upsert body: the whole configuration, since the cloud removes whatever a POST leaves out. */
export function queryEndpointBody(spec: QueryEndpointSpec): QueryEndpointBody {
  return requestBody(QueryEndpointRequest, spec);
}

/** A list compared as a set: order and repeats do not matter, absent is empty. */
const asSet = (items: readonly string[] | undefined) => [...new Set(items ?? [])].sort();
/** Origins compared as a set of trimmed entries, so `a.com, b.com` equals `b.com,a.com`. */
const origins = (value: string | undefined) =>
  asSet(
    (value ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter((origin) => origin !== ''),
  );

/** The spec fields whose cloud value differs; any of them is corrected by one upsert of the whole spec. */
export function diffQueryEndpoint(spec: QueryEndpointSpec, observed: QueryEndpoint): string[] {
  const differences: string[] = [];
  if (!isDeepStrictEqual(asSet(spec.roles), asSet(observed.roles))) differences.push('roles');
  if (!isDeepStrictEqual(asSet(spec.openApiKeys), asSet(observed.openApiKeys)))
    differences.push('openApiKeys');
  if (!isDeepStrictEqual(origins(spec.allowedOrigins), origins(observed.allowedOrigins))) {
    differences.push('allowedOrigins');
  }
  return differences;
}

/** The configuration as the cloud reports it, for status. */
export function queryEndpointStatus(observed: QueryEndpoint): Record<string, unknown> {
  return {
    roles: observed.roles ?? [],
    openApiKeys: observed.openApiKeys ?? [],
    ...(observed.allowedOrigins !== undefined ? { allowedOrigins: observed.allowedOrigins } : {}),
  };
}

/** The spec that adopts a service's query endpoint as it is (the caller adds the service). */
export function exportQueryEndpoint(
  observed: QueryEndpoint,
): { spec: Record<string, unknown> } | { unexpressible: string } {
  const roles = asSet(observed.roles);
  if (roles.length === 0) return { unexpressible: 'the endpoint has no role, and a spec needs at least one' };
  const keys = asSet(observed.openApiKeys);
  const allowed = origins(observed.allowedOrigins);
  return {
    spec: {
      roles,
      ...(keys.length > 0 ? { openApiKeys: keys } : {}),
      ...(allowed.length > 0 ? { allowedOrigins: allowed.join(',') } : {}),
    },
  };
}
