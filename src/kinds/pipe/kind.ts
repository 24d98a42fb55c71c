import { PIPE_POLICY, PipeSpec, PipeStatus, pipeSecretUses } from './schema.ts';
import {
  SERVICE_COLUMN,
  serviceIdNotAllowedReason,
  servicePlainIds,
  serviceListRead,
  serviceReference,
} from '../shared/service-scoped.ts';
import { reversePrivateEndpointReferences } from '../reverse-private-endpoint/schema.ts';
import { defineKind } from '../shared/descriptor.ts';
import type { Pipe } from './schema.ts';

/** The Pipe kind: everything sluice knows of it but its cloud client, which is loaded on first use. */
export const pipeKind = defineKind<Pipe>({
  // Its own reasons, and what the common ones mean for it; the kind's page lists them (npm run generate).
  reasons: {
    ServiceIdNotAllowed: serviceIdNotAllowedReason,
    WaitingForReference: {
      means: 'the service or a reverse private endpoint is not usable yet; the message names it',
    },
    CloudFailed: { means: 'the cloud reports the pipe `Failed` or `InternalError`' },
    CannotRotate: {
      condition: 'Synced=False',
      end: 'terminal',
      kstatus: 'Failed',
      argocd: 'Degraded',
      means: 'a connection string changed; the API cannot take it in place',
    },
    InvalidReference: { means: 'a referenced ReversePrivateEndpoint belongs to another service' },
    DeleteBlocked: {
      condition: 'Synced=False',
      end: 'retry',
      kstatus: 'InProgress',
      argocd: 'Progressing',
      means: "the pipe's service is stopped, so the cloud refuses the delete",
    },
    SecretMissing: { means: 'a `…SecretRef` Secret or key is missing' },
  },
  policyFields: PIPE_POLICY,
  kind: 'Pipe',
  plural: 'pipes',
  singular: 'pipe',
  shortNames: [],
  description: 'A data-ingestion pipe into a table of a cloud database service, managed by sluice.',
  spec: PipeSpec,
  status: PipeStatus,
  printerColumns: [
    SERVICE_COLUMN,
    { name: 'Source', type: 'string', jsonPath: '.status.source' },
    { name: 'State', type: 'string', jsonPath: '.status.state' },
  ],
  references: [
    serviceReference<Pipe>(),
    reversePrivateEndpointReferences<Pipe>(
      'reversePrivateEndpoints',
      (pipe) => pipe.spec.source.kafka?.reversePrivateEndpointRefs?.map((ref) => ref.name) ?? [],
    ),
  ],
  secretReferences: (resource) => pipeSecretUses(resource.spec),
  driftReads: (resource) => [serviceListRead(resource, 'pipes')],
  plainIds: (resource) => servicePlainIds(resource),
  exportStep: () => import('./export.ts').then((module) => module.pipeExport),
  controller: () => import('./controller.ts').then((module) => module.pipeController),
});
