import { beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { expectRefused, serviceScopedAdmissionTests, useAdmission } from './admission.ts';
import { RPE_SPECS } from '../../../../tools/fixtures/rpe.ts';

const REPLACE = 'cannot change after create; create a new ReversePrivateEndpoint';
type Spec = Record<string, unknown>;
const withField = (spec: Spec, field: string, value: unknown): Spec => {
  const { [field]: _old, ...rest } = spec;
  return value === undefined ? rest : { ...rest, [field]: value };
};
const { vpcEndpointService, vpcResource, msk } = RPE_SPECS;

describe.skipIf(clusterSkipReason())(
  'ReversePrivateEndpoint admission (CRD schema and CEL rules on the real apiserver)',
  () => {
    const api = useAdmission('ReversePrivateEndpoint', 'rpe');

    serviceScopedAdmissionTests(api, msk, REPLACE);

    it.each(Object.entries(RPE_SPECS))(
      'accepts a %s endpoint with the fields of its type',
      async (_type, spec) => {
        expect(await api.admit(spec)).toBe('accepted');
      },
    );

    it.each([
      ['VPC_ENDPOINT_SERVICE', vpcEndpointService, 'vpcEndpointServiceName'],
      ['VPC_RESOURCE', vpcResource, 'vpcResourceConfigurationId'],
      ['VPC_RESOURCE', vpcResource, 'vpcResourceShareArn'],
      ['MSK_MULTI_VPC', msk, 'mskClusterArn'],
      ['MSK_MULTI_VPC', msk, 'mskAuthentication'],
    ])('refuses type %s without %s, naming it', async (type, spec, field) => {
      await expectRefused(
        api.admit(withField(spec, field, undefined)),
        `spec.${field}`,
        `${field} is required with type ${type} and allowed only with it`,
      );
    });

    it.each([
      [msk, 'vpcEndpointServiceName', 'com.amazonaws.vpce.us-east-1.vpce-svc-0123'],
      [vpcEndpointService, 'mskClusterArn', 'arn:aws:kafka:us-east-1:123456789012:cluster/orders/abc'],
      [vpcEndpointService, 'vpcResourceShareArn', 'arn:aws:ram:us-east-1:123456789012:resource-share/abc'],
    ])('refuses a field of another type (%#: %s), naming it', async (spec, field, value) => {
      await expectRefused(api.admit(withField(spec, field, value)), `spec.${field}`, 'allowed only with it');
    });

    it.each([
      ['an unknown type', withField(msk, 'type', 'PRIVATE_LINK'), ['spec.type', 'Unsupported value']],
      [
        'an unknown MSK authentication',
        withField(msk, 'mskAuthentication', 'PLAIN'),
        ['spec.mskAuthentication', 'Unsupported value'],
      ],
      ['no description', withField(msk, 'description', undefined), ['spec.description']],
      [
        'a description over 255 characters',
        withField(msk, 'description', 'x'.repeat(256)),
        ['spec.description'],
      ],
    ])('refuses %s, naming the field', async (_what, spec, messages) => {
      await expectRefused(api.admit(spec), ...messages);
    });

    describe('after create', () => {
      beforeAll(async () => {
        await api.create('vpce', vpcEndpointService);
        await api.create('resource', vpcResource);
        await api.create('msk', msk);
      });

      it.each([
        ['vpce', 'description', 'other'],
        ['vpce', 'vpcEndpointServiceName', 'com.amazonaws.vpce.us-east-1.vpce-svc-9999'],
        ['resource', 'vpcResourceConfigurationId', 'rcfg-9999'],
        ['resource', 'vpcResourceShareArn', 'arn:aws:ram:us-east-1:123456789012:resource-share/other'],
        ['msk', 'mskClusterArn', 'arn:aws:kafka:us-east-1:123456789012:cluster/other/def'],
        ['msk', 'mskAuthentication', 'SASL_IAM'],
      ])('%s: refuses to change %s, naming it', async (name, field, value) => {
        await expectRefused(api.patch(name, { [field]: value }), `spec.${field}`, `${field} ${REPLACE}`);
      });

      it('refuses to change the type, naming it', async () => {
        const toMsk = {
          type: 'MSK_MULTI_VPC',
          vpcEndpointServiceName: null,
          mskClusterArn: msk.mskClusterArn,
          mskAuthentication: 'SASL_IAM',
        };
        await expectRefused(api.patch('vpce', toMsk), `type ${REPLACE}`);
      });
    });
  },
);
