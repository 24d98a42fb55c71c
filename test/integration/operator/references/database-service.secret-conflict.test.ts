import { CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { CREDENTIALS_SECRET, condition, isReady, useOperatorEnv } from '../support.ts';

const SERVICES = '/v1/organizations/:organizationId/services';

describe.skipIf(clusterSkipReason())('connection Secrets another resource or a person owns', () => {
  const env = useOperatorEnv('dbs-secret-conflict', { operator: { managementQuota: '50/1s' } });

  const conflicted = (name: string) =>
    env.waitFor(
      name,
      'Synced=False SecretConflict',
      (r) => condition(r, 'Synced')?.reason === 'SecretConflict',
    );

  it('a second DatabaseService naming the first one’s Secret gets SecretConflict; the first password stays', async () => {
    await env.apply('first', { name: 'first' });
    await env.waitFor('first', 'Ready', isReady);
    const before = await env.secret('first-connection');

    await env.apply('second', { name: 'second', connectionSecret: { name: 'first-connection' } });
    const second = await conflicted('second');

    expect(condition(second, 'Synced')).toMatchObject({ status: 'False' });
    expect(condition(second, 'Synced')!.message).toContain('Secret first-connection');
    expect(await env.secret('first-connection')).toEqual(before);
    // Refused before creating: no service whose password could not be stored.
    const posts = (await env.calls()).filter((c) => c.method === 'POST' && c.route === SERVICES);
    expect(posts).toHaveLength(1);
    const events = await env.core.listNamespacedEvent({
      namespace: env.namespace,
      fieldSelector: 'involvedObject.name=second,reason=SecretConflict',
    });
    expect(events.items.map((e) => e.type)).toContain('Warning');
    expect(JSON.stringify(events.items)).not.toContain(before!.password);
  });

  it('does not write a password into a Secret of the namespace that sluice does not own', async () => {
    const core = env.kc.makeApiClient(CoreV1Api);
    const before = (await core.readNamespacedSecret({ name: CREDENTIALS_SECRET, namespace: env.namespace }))
      .data;

    await env.apply('hijack', { name: 'hijack', connectionSecret: { name: CREDENTIALS_SECRET } });
    await conflicted('hijack');

    const after = (await core.readNamespacedSecret({ name: CREDENTIALS_SECRET, namespace: env.namespace }))
      .data;
    expect(after).toEqual(before);
  });
});
