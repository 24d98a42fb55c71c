import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { baseSpec, type SluiceObject, useOperatorEnv, isReadyWithId } from '../support.ts';

const QUERY_ENDPOINT = '/v1/organizations/:organizationId/services/:serviceId/serviceQueryEndpoint';

describe.skipIf(clusterSkipReason())('QueryEndpoint: the object that lost a service’s endpoint', () => {
  const env = useOperatorEnv('query-endpoint-conflict');
  const endpoints = () => env.of<SluiceObject>('QueryEndpoint');

  it('deleting a QueryEndpoint that lost the service to an older one leaves the winner’s endpoint in the cloud', async () => {
    // A service made outside sluice, taken under management later.
    const { service } = await env.cloud.createService({ name: 'legacy', ...baseSpec });

    // The elder names the DatabaseService that will adopt the service; it waits, claiming nothing yet.
    await endpoints().apply('elder', { serviceRef: { name: 'legacy' }, roles: ['sql_console_admin'] });
    // Meanwhile a newer one names the service by id: alone, it manages the service's endpoint.
    await endpoints().apply('newcomer', { serviceId: service.id, roles: ['sql_console_read_only'] });
    await endpoints().waitFor('newcomer', 'Ready', isReadyWithId);

    // The adoption makes the elder a claimant of the same service: as the oldest, it takes the endpoint over.
    await env.apply('legacy', { name: 'legacy' }, { 'sluice.dev/external-id': service.id });
    const elder = await endpoints().waitFor('elder', 'Ready', isReadyWithId);
    expect(env.emulator.store.queryEndpoints.get(service.id)).toMatchObject({ roles: ['sql_console_admin'] });

    await env.clearCalls();
    await endpoints().remove('newcomer');
    await endpoints().waitFor('newcomer', 'gone', (q) => q === undefined);

    const deletes = (await env.calls()).filter((c) => c.method === 'DELETE' && c.route === QUERY_ENDPOINT);
    expect(deletes).toEqual([]);
    expect(env.emulator.store.queryEndpoints.get(service.id)).toMatchObject({
      id: elder.status!.id,
      roles: ['sql_console_admin'],
    });
  });
});
