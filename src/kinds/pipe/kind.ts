import { PIPE_POLICY, PipeSpec, PipeStatus, pipeSecretUses, type Pipe } from './schema.ts';
import {
  SERVICE_COLUMN,
  servicePlainIds,
  serviceListRead,
  serviceReference,
} from '../shared/service-scoped.ts';
import { reversePrivateEndpointReferences } from '../reverse-private-endpoint/schema.ts';
import { defineKind } from '../shared/descriptor.ts';
import { pipeReasons } from './reasons.ts';
import { pipeHealthCases } from './fixtures.ts';

/** The Pipe kind, as the registry lists it; its controller and export step are loaded on first use. */
export const pipeKind = defineKind<Pipe>({
  reasons: pipeReasons,
  healthCases: pipeHealthCases,
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
