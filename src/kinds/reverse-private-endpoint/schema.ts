import { z } from 'zod';
import { NOT_READY_YET, type ReferenceList, type ManagedObject } from '../../managed/index.ts';
import {
  MSK_AUTHENTICATIONS,
  RPE_FIELDS_BY_TYPE,
  RPE_STATUSES,
  RPE_TYPES,
} from '../../cloud/schemas/reverse-private-endpoint.ts';
import { managedSpecFields } from '../shared/common.ts';
import { fieldPolicySchema, policyFields } from '../shared/field-policy.ts';
import { immutable, withRules, type CelRule } from '../shared/meta.ts';
import { serviceFields, serviceRules, serviceScopedStatusFields } from '../shared/service-scoped.ts';

// The spec is the endpoint creation body of the management API under the same names. The API has no update,
// so every cloud field is fixed at creation.

const REPLACE = 'cannot change after create; create a new ReversePrivateEndpoint';
const text = (description: string, max = 2048) => z.string().min(1).max(max).describe(description);

/** The type-specific fields: each is required with its type and refused with the others. */
const TYPE_FIELD_RULES: CelRule[] = Object.entries(RPE_FIELDS_BY_TYPE).flatMap(([type, fields]) =>
  fields.map((field) => ({
    rule: `has(self.${field}) == (self.type == '${type}')`,
    message: `${field} is required with type ${type} and allowed only with it`,
    fieldPath: `.${field}`,
  })),
);
const CLOUD_FIELDS = ['description', 'type', ...Object.values(RPE_FIELDS_BY_TYPE).flat()];

const ReversePrivateEndpointFields = z.object({
  ...serviceFields('whose pipes use the endpoint'),
  description: text('What the endpoint is for; sluice also finds a crashed create by it.', 255),
  type: z
    .enum(RPE_TYPES)
    .describe(
      'VPC_ENDPOINT_SERVICE (needs vpcEndpointServiceName), VPC_RESOURCE (needs vpcResourceConfigurationId and vpcResourceShareArn) or MSK_MULTI_VPC (needs mskClusterArn and mskAuthentication).',
    ),
  vpcEndpointServiceName: text('The VPC endpoint service to connect to (VPC_ENDPOINT_SERVICE).').optional(),
  vpcResourceConfigurationId: text('The VPC resource configuration id (VPC_RESOURCE).').optional(),
  vpcResourceShareArn: text('The ARN of the resource share (VPC_RESOURCE).').optional(),
  mskClusterArn: text('The ARN of the MSK cluster (MSK_MULTI_VPC).').optional(),
  mskAuthentication: z
    .enum(MSK_AUTHENTICATIONS)
    .optional()
    .describe('How pipes authenticate to the MSK cluster: SASL_IAM or SASL_SCRAM (MSK_MULTI_VPC).'),
  ...managedSpecFields('Delete'),
});

/** The fields a field policy may name, those the cloud fixes at creation and the shared lists. */
export const REVERSE_PRIVATE_ENDPOINT_POLICY = policyFields(ReversePrivateEndpointFields, {
  // The API changes none of its fields: a new endpoint is the only change.
  fixed: ['serviceRef', 'serviceId', ...CLOUD_FIELDS],
});

export const ReversePrivateEndpointSpec = withRules(
  ReversePrivateEndpointFields.extend({
    fieldPolicy: fieldPolicySchema('ReversePrivateEndpoint', REVERSE_PRIVATE_ENDPOINT_POLICY),
  }).describe('The desired reverse private endpoint.'),
  ...serviceRules(REPLACE),
  ...TYPE_FIELD_RULES,
  ...CLOUD_FIELDS.map((field) => immutable(field, REPLACE)),
);
export type ReversePrivateEndpointSpec = z.infer<typeof ReversePrivateEndpointSpec>;

const dnsNames = (description: string) =>
  z.array(z.string().max(253).describe('A DNS name.')).max(100).optional().describe(description);

export const ReversePrivateEndpointStatus = z
  .object({
    ...serviceScopedStatusFields('the endpoint belongs to'),
    status: z
      .string()
      .max(64)
      .optional()
      .describe(`The endpoint's status as the cloud reports it: ${RPE_STATUSES.join(', ')}.`),
    endpointId: z
      .string()
      .max(253)
      .optional()
      .describe('The cloud-side endpoint id, the connection to accept on your side.'),
    dnsNames: dnsNames('DNS names of the endpoint.'),
    privateDnsNames: dnsNames('Private DNS names of the endpoint.'),
  })
  .describe('What sluice last observed in the cloud.');
export type ReversePrivateEndpointStatus = z.infer<typeof ReversePrivateEndpointStatus>;

/** A ReversePrivateEndpoint object as the operator reads it. */
export interface ReversePrivateEndpoint extends ManagedObject {
  spec: ReversePrivateEndpointSpec;
  status?: ReversePrivateEndpointStatus;
}

/**
 * A list of ReversePrivateEndpoint objects another kind waits for (a Pipe's kafka source): each must be
 * Ready in the cloud before the dependant goes on.
 */
export function reversePrivateEndpointReferences<R extends ManagedObject>(
  name: string,
  objectNames: (resource: R) => string[],
): ReferenceList<R> {
  return {
    name,
    kind: 'ReversePrivateEndpoint',
    objectNames,
    notUsableBecause: (endpoint) => {
      const status = endpoint.status?.status;
      if (status === 'Ready') return undefined;
      // PendingAcceptance lasts until someone acts, and Rejected, Expired and Failed for good: worth naming.
      return typeof status === 'string' && status !== 'Provisioning' ? `is ${status}` : NOT_READY_YET;
    },
  };
}
