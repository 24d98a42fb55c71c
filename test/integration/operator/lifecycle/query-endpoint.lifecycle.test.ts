import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { condition, isReady, writes, type SluiceObject, useOperatorEnv } from '../support.ts';
import { until } from '../../../support/wait.ts';

const QUERY_ENDPOINT = '/v1/organizations/:organizationId/services/:serviceId/serviceQueryEndpoint';
const readyAt = (generation: number) => (q: SluiceObject | undefined) =>
  isReady(q) && q?.status?.id !== undefined && q.status.observedGeneration === generation;
const endpointSpec = (service: string, extra: Record<string, unknown> = {}) => ({
  serviceRef: { name: service },
  roles: ['sql_console_read_only'],
  openApiKeys: ['key-1'],
  allowedOrigins: 'app.example.com',
  ...extra,
});
const summary = (calls: { method: string; route: string }[]) => calls.map((c) => `${c.method} ${c.route}`);

describe.skipIf(clusterSkipReason())('QueryEndpoint on a real apiserver against the emulator', () => {
  const env = useOperatorEnv('query-endpoint', { operator: { managementQuota: '100/1s' } });
  const endpoints = () => env.of<SluiceObject>('QueryEndpoint');
  /** The query endpoint the emulator holds for a service, as the cloud has it. */
  const inCloud = (serviceId: string) => env.emulator.store.queryEndpoints.get(serviceId);
  const readyService = async (name: string) => {
    await env.apply(name, { name });
    return (await env.waitFor(name, `${name} Ready`, isReady)).status!.id!;
  };

  it('creates the query endpoint with one POST and reports the configuration the cloud has', async () => {
    const serviceId = await readyService('analytics');
    await env.clearCalls();
    await endpoints().apply('console', endpointSpec('analytics'));
    const endpoint = await endpoints().waitFor('console', 'Ready', readyAt(1));

    expect(endpoint.status).toMatchObject({
      id: inCloud(serviceId)!.id,
      serviceId,
      roles: ['sql_console_read_only'],
      openApiKeys: ['key-1'],
      allowedOrigins: 'app.example.com',
    });
    expect(condition(endpoint, 'Synced')).toMatchObject({ status: 'True' });
    expect(inCloud(serviceId)).toMatchObject({
      roles: ['sql_console_read_only'],
      openApiKeys: ['key-1'],
      allowedOrigins: 'app.example.com',
    });
    expect(summary(writes(await env.calls()))).toEqual([`POST ${QUERY_ENDPOINT}`]);
  });

  it('applies an edit as exactly one POST of the whole configuration, keeping the id', async () => {
    const before = await endpoints().waitFor('console', 'Ready', readyAt(1));
    await env.clearCalls();
    await endpoints().patchSpec('console', {
      roles: ['sql_console_read_only', 'sql_console_admin'],
      allowedOrigins: 'app.example.com,admin.example.com',
    });
    const after = await endpoints().waitFor('console', 'edit Ready', readyAt(2));

    const changes = writes(await env.calls());
    expect(summary(changes)).toEqual([`POST ${QUERY_ENDPOINT}`]);
    expect(changes[0]!.body).toEqual({
      roles: ['sql_console_read_only', 'sql_console_admin'],
      openApiKeys: ['key-1'],
      allowedOrigins: 'app.example.com,admin.example.com',
    });
    expect(after.status!.id).toBe(before.status!.id);
    expect(after.status!.roles).toEqual(['sql_console_read_only', 'sql_console_admin']);
  });

  it('corrects an out-of-band change with one POST within the sync interval', async () => {
    const { serviceId } = (await endpoints().get('console'))!.status as { serviceId: string };
    await endpoints().annotate('console', { 'sluice.dev/sync-interval': '1s' });
    await env.cloud.upsertQueryEndpoint(serviceId, { roles: ['sql_console_admin'], openApiKeys: ['stolen'] });
    await env.clearCalls();

    await until(
      'the key corrected in the cloud',
      () => inCloud(serviceId)?.openApiKeys?.[0] === 'key-1',
      5_000,
    );
    expect(inCloud(serviceId)).toMatchObject({
      roles: ['sql_console_read_only', 'sql_console_admin'],
      openApiKeys: ['key-1'],
      allowedOrigins: 'app.example.com,admin.example.com',
    });
    // Looked at the cloud again since: the corrected endpoint needs no second POST.
    await env.freshLook('QueryEndpoint', 'console');
    expect(summary(writes(await env.calls()))).toEqual([`POST ${QUERY_ENDPOINT}`]);
    expect(isReady(await endpoints().get('console'))).toBe(true);
  });

  it("takes over a query endpoint the service already has: the same id, the spec's configuration", async () => {
    const serviceId = await readyService('existing');
    const foreign = await env.cloud.upsertQueryEndpoint(serviceId, {
      roles: ['sql_console_admin'],
      allowedOrigins: 'old.example.com',
    });
    await endpoints().apply('taken', endpointSpec('existing'));
    const endpoint = await endpoints().waitFor('taken', 'Ready', readyAt(1));
    expect(endpoint.status!.id).toBe(foreign.id);
    expect(inCloud(serviceId)).toEqual({
      id: foreign.id,
      serviceId,
      roles: ['sql_console_read_only'],
      openApiKeys: ['key-1'],
      allowedOrigins: 'app.example.com',
    });
  });

  it('sends the configuration again when the query endpoint was deleted out of band', async () => {
    const { serviceId } = (await endpoints().get('taken'))!.status as { serviceId: string };
    await endpoints().annotate('taken', { 'sluice.dev/sync-interval': '1s' });
    await env.cloud.deleteQueryEndpoint(serviceId);
    await env.clearCalls();

    await until('the query endpoint sent again', () => inCloud(serviceId) !== undefined, 10_000);
    expect(inCloud(serviceId)).toMatchObject({ roles: ['sql_console_read_only'], openApiKeys: ['key-1'] });
    const endpoint = await endpoints().waitFor('taken', 'Ready again', readyAt(1));
    expect(endpoint.status!.id).toBe(inCloud(serviceId)!.id);
    expect(summary(writes(await env.calls()))).toEqual([`POST ${QUERY_ENDPOINT}`]);
  });

  it('lets one QueryEndpoint own a service: a second waits with Conflict, sends nothing, and takes over once the first is deleted', async () => {
    const serviceId = await readyService('contested');
    await endpoints().apply('owner', endpointSpec('contested'));
    await endpoints().waitFor('owner', 'Ready', readyAt(1));
    await env.clearCalls();

    await endpoints().apply('rival', endpointSpec('contested', { roles: ['sql_console_admin'] }));
    const waiting = await endpoints().waitFor(
      'rival',
      'Conflict',
      (q) => condition(q, 'Ready')?.reason === 'Conflict',
    );
    expect(condition(waiting, 'Ready')).toMatchObject({
      status: 'False',
      message: `QueryEndpoint ${env.namespace}/owner already manages this for the same service`,
    });
    expect(condition(waiting, 'Synced')).toMatchObject({ status: 'True' });
    await env.freshLook('QueryEndpoint', 'rival');
    expect(writes(await env.calls())).toEqual([]);
    expect(inCloud(serviceId)!.roles).toEqual(['sql_console_read_only']);

    await endpoints().removeUntilGone('owner');
    const rival = await endpoints().waitFor('rival', 'Ready after the owner left', readyAt(1));
    expect(summary(writes(await env.calls()))).toEqual([
      `DELETE ${QUERY_ENDPOINT}`,
      `POST ${QUERY_ENDPOINT}`,
    ]);
    expect(inCloud(serviceId)).toMatchObject({ id: rival.status!.id, roles: ['sql_console_admin'] });
  });

  it('deletes the cloud query endpoint under deletionPolicy Delete and leaves it under Orphan', async () => {
    const deletedFrom = await readyService('retired');
    const keptOn = await readyService('kept');
    await endpoints().apply('doomed', endpointSpec('retired'));
    await endpoints().apply('orphan', endpointSpec('kept', { deletionPolicy: 'Orphan' }));
    await endpoints().waitFor('doomed', 'Ready', readyAt(1));
    await endpoints().waitFor('orphan', 'Ready', readyAt(1));
    await env.clearCalls();

    await endpoints().removeUntilGone('doomed', 'orphan');
    expect(inCloud(deletedFrom)).toBeUndefined();
    expect(inCloud(keptOn)).toBeDefined();
    expect(summary(writes(await env.calls()))).toEqual([`DELETE ${QUERY_ENDPOINT}`]);
  });
});
