// `sluice.dev/create-status` is written by sluice beside a create intent, but it is an annotation: anyone who
// can edit the object can write it. What it holds must never make sluice change or delete a cloud object
// this object did not create: here, another team's key named as an ApiKey's "previous key".
import { describe, expect, it } from 'vitest';
import { newKeyIdentity } from '../../../../src/cloud/api-key-hash.ts';
import { apiKeyCreateBody } from '../../../../src/kinds/api-key/mapping.ts';
import { KEYS, teamKey } from '../../../../tools/fixtures/api-key.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { isReadyWithId, useOperatorEnv, type SluiceObject } from '../support.ts';

const CREATE_PENDING = 'sluice.dev/create-pending';
const CREATE_STATUS = 'sluice.dev/create-status';

describe.skipIf(clusterSkipReason())('a create-status annotation written by a tenant', () => {
  const env = useOperatorEnv('create-status');

  it('a previousKeyId injected while a key’s create answer is lost is never deleted when the create is adopted', async () => {
    const keys = env.of<SluiceObject>('ApiKey');
    const { key: victim } = await env.cloud.createApiKey(
      apiKeyCreateBody(teamKey('other-team') as never, newKeyIdentity()),
    );
    // The key is made, its answer held 3 s and then lost: the create is found again by the next reconcile.
    await env.fault({
      method: 'POST',
      route: KEYS,
      phase: 'response',
      latencyMs: 3_000,
      drop: true,
      count: 1,
    });
    await keys.apply('tenant', teamKey('tenant'));
    await keys.waitFor('tenant', 'the create intent', (o) => !!o?.metadata.annotations?.[CREATE_PENDING]);
    const injected = { previousKeyId: victim.id, previousKeyDeleteAt: '2000-01-01T00:00:00Z' };
    await keys.annotate('tenant', { [CREATE_STATUS]: JSON.stringify(injected) });

    const adopted = await keys.waitFor('tenant', 'the lost create adopted', isReadyWithId, 30_000);
    await env.freshLook('ApiKey', 'tenant');
    expect(adopted.status?.id).not.toBe(victim.id);
    expect(env.emulator.store.apiKeys.has(victim.id)).toBe(true);
    expect((await env.calls()).filter((c) => c.method === 'DELETE')).toEqual([]);
    expect((await keys.get('tenant'))!.status).not.toHaveProperty('previousKeyId');
  });
});
