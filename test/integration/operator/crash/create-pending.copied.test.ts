// `sluice.dev/create-pending` is sluice's record of a create it sent for this very object. Copied onto
// another object (a restore, `kubectl get -o yaml | kubectl apply`), it must not make that object adopt an
// unmanaged look-alike, which its default deletionPolicy Delete would then delete.
import { beforeAll, describe, expect, it } from 'vitest';
import { rpeCreateBody } from '../../../../src/kinds/reverse-private-endpoint/mapping.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { rpeSpec } from '../../../../tools/fixtures/rpe.ts';
import { isReady, type SluiceObject, useOperatorEnv } from '../support.ts';

describe.skipIf(clusterSkipReason())('a create-pending annotation copied onto a new object', () => {
  const env = useOperatorEnv('copied-intent', { operator: { managementQuota: '100/1s' } });
  let serviceId: string;

  beforeAll(async () => {
    await env.apply('analytics', { name: 'analytics' });
    serviceId = (await env.waitFor('analytics', 'service Ready', isReady, 30_000)).status!.id!;
  });

  it('a ReversePrivateEndpoint created with an older copied intent creates its own endpoint, never adopting the look-alike', async () => {
    const spec = rpeSpec('vpcEndpointService', 'analytics', { description: 'restored' });
    const lookAlike = await env.cloud.createReversePrivateEndpoint(serviceId, rpeCreateBody(spec as never));
    const copiedIntent = new Date(Date.now() - 3_600_000).toISOString();

    const endpoints = env.of<SluiceObject>('ReversePrivateEndpoint');
    await endpoints.apply('restored', spec, { 'sluice.dev/create-pending': copiedIntent });
    const created = await endpoints.waitFor('restored', 'an id', (e) => e?.status?.id !== undefined);
    expect(created.status!.id).not.toBe(lookAlike.id);
    expect(env.emulator.store.findRpe(lookAlike.id)).toBeDefined();
  });
});
