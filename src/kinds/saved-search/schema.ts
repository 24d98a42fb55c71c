import { z } from 'zod';
import type { ManagedObject } from '../../managed/index.ts';
import { OBJECT_NAME_MAX, WHERE_LANGUAGES } from '../../cloud/schemas/clickstack.ts';
import { LocalObjectReference, managedSpecFields, managedStatusFields } from '../shared/common.ts';
import { fieldPolicySchema, policyFields } from '../shared/field-policy.ts';
import { withRules } from '../shared/meta.ts';

// The spec is the saved search body of the alerting API under the same names; its filters are not modelled.
// Its source is a Source object (sourceRef) or a cloud id (sourceId).

const SavedSearchFields = z.object({
  name: z.string().min(1).max(OBJECT_NAME_MAX).describe('The saved search name in the cloud.'),
  sourceRef: LocalObjectReference.optional().describe(
    'The Source (in this namespace) it searches: the search waits for it, and it is not deleted while the search names it. Exactly one of sourceRef and sourceId.',
  ),
  sourceId: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('The cloud id of a source sluice does not manage, instead of sourceRef.'),
  select: z.string().max(10_000).optional().describe('The columns shown (SQL select list); empty for all.'),
  where: z.string().max(10_000).optional().describe('The filter, in whereLanguage.'),
  whereLanguage: z
    .enum(WHERE_LANGUAGES)
    .optional()
    .describe(`The language of where: ${WHERE_LANGUAGES.join(' or ')} (the API's default: lucene).`),
  orderBy: z.string().max(1_000).optional().describe('The order of the results (SQL).'),
  tags: z
    .array(z.string().min(1).max(256).describe('A tag.'))
    .max(49)
    .optional()
    .describe('Tags shown in the alerting console.'),
  ...managedSpecFields('Delete'),
});

export const SAVED_SEARCH_POLICY = policyFields(SavedSearchFields, { fixed: [] });

export const SavedSearchSpec = withRules(
  SavedSearchFields.extend({
    fieldPolicy: fieldPolicySchema('SavedSearch', SAVED_SEARCH_POLICY),
  }).describe('The desired saved search.'),
  {
    rule: 'has(self.sourceId) != has(self.sourceRef)',
    message: 'exactly one of sourceId and sourceRef must be set',
    fieldPath: '.sourceRef',
  },
);
export type SavedSearchSpec = z.infer<typeof SavedSearchSpec>;

export const SavedSearchStatus = z
  .object({
    ...managedStatusFields,
    createdAt: z.string().max(64).optional().describe('When the cloud created it (ISO 8601).'),
    updatedAt: z.string().max(64).optional().describe('When the cloud last changed it (ISO 8601).'),
    sourceId: z.string().max(64).optional().describe('The cloud id of the source it searches.'),
  })
  .describe('What sluice last observed of the saved search.');

export interface SavedSearch extends ManagedObject {
  spec: SavedSearchSpec;
  status?: z.infer<typeof SavedSearchStatus>;
}
