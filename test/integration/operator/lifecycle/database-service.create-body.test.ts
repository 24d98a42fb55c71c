import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { isReady, useOperatorEnv } from '../support.ts';

const SERVICES = '/v1/organizations/:organizationId/services';

describe.skipIf(clusterSkipReason())('DatabaseService create body: the cloud contract’s fields only', () => {
  const env = useOperatorEnv('dbs-body');

  it('creates a service whose spec says managementPolicy Full explicitly, with one POST carrying none of sluice’s fields', async () => {
    await env.apply('explicit-full', {
      name: 'explicit full',
      managementPolicy: 'Full',
      deletionPolicy: 'Delete',
      state: 'Running',
      connectionSecret: { name: 'explicit-full-db' },
    });
    const ready = await env.waitFor('explicit-full', 'Ready', isReady);

    const creates = (await env.calls()).filter((c) => c.method === 'POST' && c.route === SERVICES);
    expect(creates).toHaveLength(1);
    expect(creates[0]!.status).toBeLessThan(300);
    expect(Object.keys(creates[0]!.body as object).sort()).toEqual(['name', 'provider', 'region', 'tags']);
    expect(ready.status!.id).toBeDefined();
    expect((await env.secret('explicit-full-db'))?.password).toBeTruthy();
  });
});
