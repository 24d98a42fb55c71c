import { z } from 'zod';
import { NonEmptyString } from './common.ts';

export const RPE_TYPES = ['VPC_ENDPOINT_SERVICE', 'VPC_RESOURCE', 'MSK_MULTI_VPC'] as const;
export const MSK_AUTHENTICATIONS = ['SASL_IAM', 'SASL_SCRAM'] as const;
export const RPE_STATUSES = [
  'Provisioning', 'PendingAcceptance', 'Ready', 'Rejected', 'Expired', 'Failed', 'Deleting',
] as const; // prettier-ignore

/** Fields each endpoint type needs: a VPC endpoint service, a shared VPC resource, or an MSK cluster. */
export const RPE_FIELDS_BY_TYPE = {
  VPC_ENDPOINT_SERVICE: ['vpcEndpointServiceName'],
  VPC_RESOURCE: ['vpcResourceConfigurationId', 'vpcResourceShareArn'],
  MSK_MULTI_VPC: ['mskClusterArn', 'mskAuthentication'],
} as const;

/** Create body (extension). */
export const ReversePrivateEndpointCreateRequest = z
  .strictObject({
    description: z.string().min(1).max(255),
    type: z.enum(RPE_TYPES),
    vpcEndpointServiceName: NonEmptyString.optional(),
    vpcResourceConfigurationId: NonEmptyString.optional(),
    vpcResourceShareArn: NonEmptyString.optional(),
    mskClusterArn: NonEmptyString.optional(),
    mskAuthentication: z.enum(MSK_AUTHENTICATIONS).optional(),
  })
  .superRefine((body, ctx) => {
    for (const field of RPE_FIELDS_BY_TYPE[body.type]) {
      if (body[field] === undefined) {
        ctx.addIssue({ code: 'custom', path: [field], message: `is required when type is ${body.type}` });
      }
    }
  });
export type ReversePrivateEndpointCreateRequest = z.infer<typeof ReversePrivateEndpointCreateRequest>;

export const ReversePrivateEndpoint = z.looseObject({
  id: z.string(),
  serviceId: z.string(),
  description: z.string().optional(),
  type: z.string(),
  vpcEndpointServiceName: z.string().optional(),
  vpcResourceConfigurationId: z.string().optional(),
  vpcResourceShareArn: z.string().optional(),
  mskClusterArn: z.string().optional(),
  mskAuthentication: z.string().optional(),
  endpointId: z.string().optional(),
  dnsNames: z.array(z.string()).optional(),
  privateDnsNames: z.array(z.string()).optional(),
  status: z.string(),
});
export type ReversePrivateEndpoint = z.infer<typeof ReversePrivateEndpoint>;
