import {
  QUERY_ENDPOINT_POLICY,
  QueryEndpointSpec,
  QueryEndpointStatus,
  type QueryEndpoint,
} from './schema.ts';
import { SERVICE_COLUMN, servicePlainIds, serviceReference } from '../shared/service-scoped.ts';
import { apiKeyReferences } from '../api-key/schema.ts';
import { defineKind } from '../shared/descriptor.ts';
import { queryEndpointReasons } from './reasons.ts';

/** The QueryEndpoint kind, as the registry lists it; its controller and export step are loaded on first use. */
export const queryEndpointKind = defineKind<QueryEndpoint>({
  reasons: queryEndpointReasons,
  policyFields: QUERY_ENDPOINT_POLICY,
  kind: 'QueryEndpoint',
  plural: 'queryendpoints',
  singular: 'queryendpoint',
  shortNames: [],
  description:
    "The query endpoint of a cloud database service, managed by sluice: applying one takes over the service's query endpoint.",
  spec: QueryEndpointSpec,
  status: QueryEndpointStatus,
  printerColumns: [SERVICE_COLUMN, { name: 'Roles', type: 'string', jsonPath: '.spec.roles' }],
  references: [
    serviceReference<QueryEndpoint>(),
    apiKeyReferences<QueryEndpoint>(
      'apiKeys',
      (endpoint) => endpoint.spec.apiKeyRefs?.map((ref) => ref.name) ?? [],
    ),
  ],
  // A service has one query endpoint: a second QueryEndpoint for it waits (Conflict) instead of fighting.
  exclusiveOn: 'service',
  // The API has no list of query endpoints: each drift check is a GET of its own.
  driftReads: () => [{ api: 'management' }],
  plainIds: (resource) => servicePlainIds(resource),
  exportStep: () => import('./export.ts').then((module) => module.queryEndpointExport),
  controller: () => import('./controller.ts').then((module) => module.queryEndpointController),
});
