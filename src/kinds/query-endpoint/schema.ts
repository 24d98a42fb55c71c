import { z } from 'zod';
import type { ManagedObject } from '../../managed/index.ts';
import { QUERY_ENDPOINT_ROLES } from '../../cloud/schemas/query-endpoint.ts';
import { LocalObjectReference, managedSpecFields } from '../shared/common.ts';
import { fieldPolicySchema, policyFields } from '../shared/field-policy.ts';
import { withRules } from '../shared/meta.ts';
import { serviceFields, serviceRules, serviceScopedStatusFields } from '../shared/service-scoped.ts';

// The spec is the body of the query endpoint upsert (operation 9) under the same names, plus the service.

const REPLACE = 'cannot change after create; create a new QueryEndpoint';
const MAX_ORIGINS_LENGTH = 4096;

/** One origin: a host name (a leading `*.` allowed), with an optional http(s) scheme and port. */
const LABEL = '[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?';
const ORIGIN = `(https?://)?([*][.])?${LABEL}([.]${LABEL})*(:[0-9]{1,5})?`;
/** CEL's RE2 syntax, written without backslashes so it needs no escaping in a CEL string. */
export const ALLOWED_ORIGINS_PATTERN = `^${ORIGIN}( *, *${ORIGIN})*$`;

const roles = (description: string) =>
  z
    .array(z.enum(QUERY_ENDPOINT_ROLES).describe('A role.'))
    .max(QUERY_ENDPOINT_ROLES.length)
    .describe(description);
const keyIds = (description: string) =>
  z.array(z.string().min(1).max(255).describe('An API key id.')).max(100).describe(description);

const QueryEndpointFields = z.object({
  ...serviceFields('whose query endpoint this is'),
  roles: roles(`Roles the endpoint's queries run with: ${QUERY_ENDPOINT_ROLES.join(', ')}; at least one.`)
    .min(1)
    .meta({ 'x-kubernetes-list-type': 'set' }),
  openApiKeys: keyIds('Ids of the API keys allowed to call the endpoint.')
    .meta({ 'x-kubernetes-list-type': 'set' })
    .optional(),
  apiKeyRefs: z
    .array(LocalObjectReference.describe('An ApiKey in this namespace.'))
    .max(100)
    .optional()
    .describe(
      'ApiKey objects (in this namespace) allowed to call the endpoint, besides openApiKeys; the endpoint waits until each has its key.',
    ),
  allowedOrigins: withRules(
    z
      .string()
      .max(MAX_ORIGINS_LENGTH)
      .describe(
        'Comma-separated domains browsers may call the endpoint from, e.g. app.example.com,https://*.example.org:8443.',
      ),
    {
      rule: `self.matches('${ALLOWED_ORIGINS_PATTERN}')`,
      message:
        'allowedOrigins must be a comma-separated list of domains (each a host name, optionally with *., http(s):// and :port)',
    },
  ).optional(),
  ...managedSpecFields('Delete'),
});

/** The fields a field policy may name, those the cloud fixes at creation and the shared lists. */
export const QUERY_ENDPOINT_POLICY = policyFields(QueryEndpointFields, {
  fixed: ['serviceRef', 'serviceId'],
});

export const QueryEndpointSpec = withRules(
  QueryEndpointFields.extend({
    fieldPolicy: fieldPolicySchema('QueryEndpoint', QUERY_ENDPOINT_POLICY),
  }).describe(
    "The desired query endpoint of a service: applying it replaces the service's whole configuration.",
  ),
  ...serviceRules(REPLACE),
);
export type QueryEndpointSpec = z.infer<typeof QueryEndpointSpec>;

export const QueryEndpointStatus = z
  .object({
    ...serviceScopedStatusFields('the endpoint belongs to'),
    roles: z
      .array(z.string().max(64).describe('A role.'))
      .max(16)
      .optional()
      .describe('The roles as the cloud reports them.'),
    openApiKeys: keyIds('The API key ids as the cloud reports them.').optional(),
    allowedOrigins: z
      .string()
      .max(MAX_ORIGINS_LENGTH)
      .optional()
      .describe('The allowed origins as the cloud reports them.'),
  })
  .describe('What sluice last observed in the cloud.');
export type QueryEndpointStatus = z.infer<typeof QueryEndpointStatus>;

/** A QueryEndpoint object as the operator reads it. */
export interface QueryEndpoint extends ManagedObject {
  spec: QueryEndpointSpec;
  status?: QueryEndpointStatus;
}
