/** ReversePrivateEndpoint specs of each type, for the operator tests. */
export const RPE_SPECS = {
  vpcEndpointService: {
    serviceRef: { name: 'analytics' },
    description: 'kafka brokers behind a VPC endpoint service',
    type: 'VPC_ENDPOINT_SERVICE',
    vpcEndpointServiceName: 'com.amazonaws.vpce.us-east-1.vpce-svc-0123456789abcdef0',
  },
  vpcResource: {
    serviceRef: { name: 'analytics' },
    description: 'a shared VPC resource',
    type: 'VPC_RESOURCE',
    vpcResourceConfigurationId: 'rcfg-0123456789abcdef0',
    vpcResourceShareArn: 'arn:aws:ram:us-east-1:123456789012:resource-share/0123',
  },
  msk: {
    serviceRef: { name: 'analytics' },
    description: 'orders MSK cluster',
    type: 'MSK_MULTI_VPC',
    mskClusterArn: 'arn:aws:kafka:us-east-1:123456789012:cluster/orders/0123',
    mskAuthentication: 'SASL_SCRAM',
  },
};

/** An endpoint spec of `type` (vpcEndpointService, vpcResource, msk) in `service`, with changes. */
export const rpeSpec = (
  type: keyof typeof RPE_SPECS,
  service: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({ ...RPE_SPECS[type], serviceRef: { name: service }, ...extra });
