// The ReversePrivateEndpoint's mapping between spec and cloud, pure: the create body (`rpeCreateBody`), the
// differences (`rpeDifferences`), the status (`endpointStatusOf`, `rpeAvailability`) and the export mapping
// (`exportReversePrivateEndpoint`: the cloud object back to the spec that adopts it).
import { REASON, type ConditionReason } from '../../base/reasons.ts';
import { REVERSE_PRIVATE_ENDPOINT_REASON } from './reasons.ts';
import type { ReversePrivateEndpointSpec } from './schema.ts';
import type { ReversePrivateEndpointCreateBody } from '../../cloud/management-client.ts';
import { requestBody } from '../../cloud/request-body.ts';
import {
  ReversePrivateEndpointCreateRequest,
  RPE_FIELDS_BY_TYPE,
  type ReversePrivateEndpoint,
} from '../../cloud/schemas/reverse-private-endpoint.ts';
import type { Observation } from '../../managed/index.ts';

/** The fields that make an endpoint what it is: description, type and the fields of that type. */
function identityFields(spec: ReversePrivateEndpointSpec): (keyof ReversePrivateEndpointCreateBody)[] {
  return ['description', 'type', ...RPE_FIELDS_BY_TYPE[spec.type]];
}

/** The create body: exactly the identity fields of the spec. */
export function rpeCreateBody(spec: ReversePrivateEndpointSpec): ReversePrivateEndpointCreateBody {
  return requestBody(
    ReversePrivateEndpointCreateRequest,
    Object.fromEntries(identityFields(spec).map((field) => [field, spec[field]])),
  );
}

/** The identity fields whose cloud value differs from the spec (the API cannot change any of them). */
export function rpeDifferences(spec: ReversePrivateEndpointSpec, endpoint: ReversePrivateEndpoint): string[] {
  return identityFields(spec).filter((field) => spec[field] !== endpoint[field]);
}

/** What a dependant (a Pipe) and the endpoint's own status show of it. */
export function endpointStatusOf(endpoint: Partial<ReversePrivateEndpoint>) {
  return {
    ...(endpoint.status ? { status: endpoint.status } : {}),
    ...(endpoint.dnsNames ? { dnsNames: endpoint.dnsNames } : {}),
    ...(endpoint.privateDnsNames ? { privateDnsNames: endpoint.privateDnsNames } : {}),
  };
}

/** Statuses that end the endpoint: it will not become Ready without a new one. */
const FINAL_STATUSES = {
  Rejected: 'the connection was rejected on your side',
  Expired: 'the connection was not accepted in time and expired',
  Failed: 'the cloud reports the endpoint Failed',
} as const;

const isFinal = (status: string): status is keyof typeof FINAL_STATUSES =>
  Object.hasOwn(FINAL_STATUSES, status);

export type EndpointAvailability = Pick<
  Extract<Observation, { exists: true }>,
  'available' | 'waitingFor' | 'failed' | 'reason'
>;

/**
 * Ready only when the cloud says Ready. PendingAcceptance waits for the user, who must accept the connection
 * on their side (the endpoint id names it); Rejected, Expired and Failed are final and reported as such.
 * Each status is the reason it is reported under (one of the kind's, or the common `Deleting`).
 */
export function rpeAvailability(
  spec: ReversePrivateEndpointSpec,
  endpoint: ReversePrivateEndpoint,
): EndpointAvailability {
  const { status } = endpoint;
  if (status === 'Ready') return { available: true };
  if (isFinal(status)) {
    return {
      available: false,
      failed: `${FINAL_STATUSES[status]}; delete this ReversePrivateEndpoint and create it again`,
      reason: REVERSE_PRIVATE_ENDPOINT_REASON[status],
    };
  }
  if (status === 'PendingAcceptance') {
    const target = RPE_FIELDS_BY_TYPE[spec.type].map((field) => spec[field]).join(' / ');
    return {
      available: false,
      reason: REVERSE_PRIVATE_ENDPOINT_REASON.PendingAcceptance,
      waitingFor: `accept the connection from endpoint ${endpoint.endpointId ?? endpoint.id} on your side (${target})`,
    };
  }
  return { available: false, reason: waitingReason(status), waitingFor: `the endpoint is ${status}` };
}

/** The reason of a status on the way to Ready or gone: the kind's `Provisioning`, else `Deleting` or `Unavailable`. */
function waitingReason(status: string): ConditionReason {
  if (status === 'Provisioning') return REVERSE_PRIVATE_ENDPOINT_REASON.Provisioning;
  return status === 'Deleting' ? REASON.Deleting : REASON.Unavailable;
}

/** The spec that adopts an endpoint as it is (the caller adds the service): its identity fields. */
export function exportReversePrivateEndpoint(
  endpoint: ReversePrivateEndpoint,
): { spec: Record<string, unknown> } | { unexpressible: string } {
  if (endpoint.status === 'Deleting') return { unexpressible: 'the endpoint is being deleted' };
  if (!endpoint.description)
    return {
      unexpressible: 'the endpoint has no description, which a spec needs (crash-safe create finds it by it)',
    };
  const fields = RPE_FIELDS_BY_TYPE[endpoint.type as ReversePrivateEndpointSpec['type']];
  if (!fields) return { unexpressible: `the cloud reports an unknown type ${endpoint.type}` };
  const spec: Record<string, unknown> = { description: endpoint.description, type: endpoint.type };
  for (const field of fields) spec[field] = endpoint[field];
  return { spec };
}
