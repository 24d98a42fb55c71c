import { describe, expect, it } from 'vitest';
import type { ReversePrivateEndpointSpec } from '../../../../src/kinds/reverse-private-endpoint/schema.ts';
import type { ReversePrivateEndpoint } from '../../../../src/cloud/schemas/reverse-private-endpoint.ts';
import {
  endpointStatusOf,
  rpeAvailability,
  rpeCreateBody,
  rpeDifferences,
} from '../../../../src/kinds/reverse-private-endpoint/mapping.ts';

const msk: ReversePrivateEndpointSpec = {
  serviceRef: { name: 'analytics' },
  description: 'orders cluster',
  type: 'MSK_MULTI_VPC',
  mskClusterArn: 'arn:aws:kafka:us-east-1:123456789012:cluster/orders/abc',
  mskAuthentication: 'SASL_SCRAM',
  deletionPolicy: 'Delete',
  credentialsRef: { name: 'other-org' },
};
const vpce: ReversePrivateEndpointSpec = {
  serviceId: '5f0c8e4a-1b2c-4d3e-8f90-123456789abc',
  description: 'brokers',
  type: 'VPC_ENDPOINT_SERVICE',
  vpcEndpointServiceName: 'com.amazonaws.vpce.us-east-1.vpce-svc-0123',
  deletionPolicy: 'Delete',
};
/** The endpoint as the cloud reports it for `msk`. */
const cloud = (extra: Partial<ReversePrivateEndpoint> = {}): ReversePrivateEndpoint => ({
  id: 'rpe-1',
  serviceId: 'service-1',
  description: msk.description,
  type: msk.type,
  mskClusterArn: msk.mskClusterArn,
  mskAuthentication: msk.mskAuthentication,
  endpointId: 'vpce-0abc',
  dnsNames: ['vpce-0abc.vpce.example.com'],
  privateDnsNames: ['b-1.orders.kafka.example.com'],
  status: 'Ready',
  ...extra,
});

describe('rpeCreateBody', () => {
  it('carries the description, the type and exactly the fields of that type', () => {
    expect(rpeCreateBody(msk)).toEqual({
      description: 'orders cluster',
      type: 'MSK_MULTI_VPC',
      mskClusterArn: msk.mskClusterArn,
      mskAuthentication: 'SASL_SCRAM',
    });
    expect(rpeCreateBody(vpce)).toEqual({
      description: 'brokers',
      type: 'VPC_ENDPOINT_SERVICE',
      vpcEndpointServiceName: vpce.vpcEndpointServiceName,
    });
  });
});

describe('rpeDifferences', () => {
  it('finds none when the cloud endpoint is the spec', () => {
    expect(rpeDifferences(msk, cloud())).toEqual([]);
  });

  it('names each identity field that differs', () => {
    expect(rpeDifferences(msk, cloud({ description: 'other', mskAuthentication: 'SASL_IAM' }))).toEqual([
      'description',
      'mskAuthentication',
    ]);
    expect(rpeDifferences(vpce, cloud())).toEqual(['description', 'type', 'vpcEndpointServiceName']);
  });
});

describe('rpeAvailability', () => {
  it('is available only when the cloud says Ready', () => {
    expect(rpeAvailability(msk, cloud())).toEqual({ available: true });
    expect(rpeAvailability(msk, cloud({ status: 'Provisioning' }))).toEqual({
      available: false,
      reason: 'Provisioning',
      waitingFor: 'the endpoint is Provisioning',
    });
  });

  it('waits for the user to accept the connection while PendingAcceptance, naming the endpoint and its target', () => {
    expect(rpeAvailability(vpce, cloud({ status: 'PendingAcceptance', endpointId: 'vpce-0abc' }))).toEqual({
      available: false,
      reason: 'PendingAcceptance',
      waitingFor: `accept the connection from endpoint vpce-0abc on your side (${vpce.vpcEndpointServiceName})`,
    });
  });

  it.each(['Rejected', 'Expired', 'Failed'])('reports %s as a failure with that reason', (status) => {
    const availability = rpeAvailability(msk, cloud({ status }));
    expect(availability).toMatchObject({ available: false, reason: status });
    expect(availability.failed).toContain('delete this ReversePrivateEndpoint and create it again');
  });
});

describe('endpointStatusOf', () => {
  it('shows status and DNS names, and leaves out what the cloud does not report', () => {
    expect(endpointStatusOf(cloud())).toEqual({
      status: 'Ready',
      dnsNames: ['vpce-0abc.vpce.example.com'],
      privateDnsNames: ['b-1.orders.kafka.example.com'],
    });
    expect(endpointStatusOf({ status: 'Provisioning' })).toEqual({ status: 'Provisioning' });
  });
});
