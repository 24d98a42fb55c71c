import {
  REVERSE_PRIVATE_ENDPOINT_POLICY,
  ReversePrivateEndpointSpec,
  ReversePrivateEndpointStatus,
} from './schema.ts';
import {
  SERVICE_COLUMN,
  serviceIdNotAllowedReason,
  servicePlainIds,
  serviceListRead,
  serviceReference,
} from '../shared/service-scoped.ts';
import { defineKind } from '../shared/descriptor.ts';
import type { ReversePrivateEndpoint } from './schema.ts';

/** The ReversePrivateEndpoint kind: everything sluice knows of it but its cloud client, which is loaded on first use. */
export const reversePrivateEndpointKind = defineKind<ReversePrivateEndpoint>({
  // Its own reasons, and what the common ones mean for it; the kind's page lists them (npm run generate).
  reasons: {
    ServiceIdNotAllowed: serviceIdNotAllowedReason,
    Provisioning: {
      condition: 'Ready=False',
      end: 'wait',
      kstatus: 'InProgress',
      argocd: 'Progressing',
      means: 'the cloud is setting the endpoint up',
    },
    PendingAcceptance: {
      condition: 'Ready=False',
      end: 'wait',
      kstatus: 'InProgress',
      argocd: 'Progressing',
      means: 'accept the connection on your side; the message names `endpointId`',
    },
    Rejected: {
      condition: 'Ready=False',
      end: 'terminal',
      kstatus: 'Failed',
      argocd: 'Degraded',
      means:
        'final: the connection was rejected on your side; delete the object and create it again (one Warning Event)',
    },
    Expired: {
      condition: 'Ready=False',
      end: 'terminal',
      kstatus: 'Failed',
      argocd: 'Degraded',
      means:
        'final: the connection was not accepted in time; delete the object and create it again (one Warning Event)',
    },
    Failed: {
      condition: 'Ready=False',
      end: 'terminal',
      kstatus: 'Failed',
      argocd: 'Degraded',
      means:
        'final: the cloud reports the endpoint failed; delete the object and create it again (one Warning Event)',
    },
    WaitingForDependants: { means: 'being deleted while Pipes still reference it' },
    CannotUpdate: {
      condition: 'Synced=False',
      end: 'terminal',
      kstatus: 'Failed',
      argocd: 'Degraded',
      means: 'an adopted endpoint differs from the spec; the message names the fields',
    },
    AmbiguousAdoption: {
      means: 'several endpoints match after a crash; pick one with `sluice.dev/external-id`',
    },
  },
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
