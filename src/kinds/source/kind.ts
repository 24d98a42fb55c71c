import { SOURCE_POLICY, SourceSpec, SourceStatus, type Source } from './schema.ts';
import { defineKind } from '../shared/descriptor.ts';
import { sourceReasons } from './reasons.ts';

/** The Source kind, as the registry lists it; its controller and export step are loaded on first use. */
export const sourceKind = defineKind<Source>({
  policyFields: SOURCE_POLICY,
  kind: 'Source',
  plural: 'sources',
  singular: 'source',
  shortNames: [],
  description:
    'A source of the alerting API (a table of logs, traces, metrics or sessions), managed by sluice.',
  spec: SourceSpec,
  status: SourceStatus,
  printerColumns: [
    { name: 'Kind', type: 'string', jsonPath: '.spec.kind' },
    { name: 'Table', type: 'string', jsonPath: '.spec.from.tableName' },
  ],
  reasons: sourceReasons,
  driftReads: () => [{ api: 'alerting', list: 'sources' }],
  exportStep: () => import('./export.ts').then((module) => module.sourceExport),
  controller: () => import('./controller.ts').then((module) => module.sourceController),
});
