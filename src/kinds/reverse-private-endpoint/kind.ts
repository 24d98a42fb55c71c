import {
  REVERSE_PRIVATE_ENDPOINT_POLICY,
  ReversePrivateEndpointSpec,
  ReversePrivateEndpointStatus,
  type ReversePrivateEndpoint,
} from './schema.ts';
import {
  SERVICE_COLUMN,
  servicePlainIds,
  serviceListRead,
  serviceReference,
} from '../shared/service-scoped.ts';
import { defineKind } from '../shared/descriptor.ts';
import { reversePrivateEndpointReasons } from './reasons.ts';
import { reversePrivateEndpointHealthCases } from './fixtures.ts';

/** The ReversePrivateEndpoint kind, as the registry lists it; its controller and export step are loaded on first use. */
export const reversePrivateEndpointKind = defineKind<ReversePrivateEndpoint>({
  reasons: reversePrivateEndpointReasons,
  healthCases: reversePrivateEndpointHealthCases,
  policyFields: REVERSE_PRIVATE_ENDPOINT_POLICY,
  kind: 'ReversePrivateEndpoint',
  plural: 'reverseprivateendpoints',
  singular: 'reverseprivateendpoint',
  shortNames: ['rpe'],
  description:
    'A reverse private endpoint through which the pipes of a cloud database service reach a private source, managed by sluice.',
  spec: ReversePrivateEndpointSpec,
  status: ReversePrivateEndpointStatus,
  printerColumns: [
    SERVICE_COLUMN,
    { name: 'Type', type: 'string', jsonPath: '.spec.type' },
    { name: 'Status', type: 'string', jsonPath: '.status.status' },
  ],
  references: [serviceReference<ReversePrivateEndpoint>()],
  driftReads: (resource) => [serviceListRead(resource, 'reversePrivateEndpoints')],
  plainIds: (resource) => servicePlainIds(resource),
  exportStep: () => import('./export.ts').then((module) => module.reversePrivateEndpointExport),
  controller: () => import('./controller.ts').then((module) => module.reversePrivateEndpointController),
});
