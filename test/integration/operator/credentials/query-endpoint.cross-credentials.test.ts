// One QueryEndpoint per service: the oldest claimant owns it. A claimant in another namespace, with
// credentials that cannot reach the service, must not hold a team's own QueryEndpoint in Conflict.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { condition, isReady, startOperatorEnv, type OperatorEnv, type SluiceObject } from '../support.ts';

const QUERY_ENDPOINT = '/v1/organizations/:organizationId/services/:serviceId/serviceQueryEndpoint';

describe.skipIf(clusterSkipReason())('QueryEndpoint claims across credentials', () => {
  let team: OperatorEnv;
  let other: OperatorEnv;

  beforeAll(async () => {
    team = await startOperatorEnv('qe-team');
    other = await startOperatorEnv('qe-other', {}, { sharing: team });
    const { credentials } = team.emulator;
    await other.putSecret('unreachable', {
      organizationId: credentials.organizationId,
      keyId: credentials.keyId,
      keySecret: 'not-the-secret',
      managementUrl: team.emulator.url,
    });
    await team.startOperator({ namespace: `${team.namespace},${other.namespace}` });
  });
  afterAll(async () => {
    await other?.close();
    await team?.close();
  });

  it("an older QueryEndpoint naming the service by id with credentials that cannot reach it neither holds the team's in Conflict nor orphans its delete", async () => {
    await team.apply('analytics', { name: 'analytics' });
    const serviceId = (await team.waitFor('analytics', 'Ready', isReady, 30_000)).status!.id!;

    await other.of<SluiceObject>('QueryEndpoint').apply('squatter', {
      serviceId,
      roles: ['sql_console_admin'],
      credentialsRef: { name: 'unreachable' },
    });
    await other
      .of<SluiceObject>('QueryEndpoint')
      .waitFor('squatter', 'a failed reconcile', (q) => condition(q, 'Synced')?.status === 'False');

    const endpoints = team.of<SluiceObject>('QueryEndpoint');
    await endpoints.apply('console', { serviceRef: { name: 'analytics' }, roles: ['sql_console_read_only'] });
    const ready = await endpoints.waitFor(
      'console',
      'Ready',
      (q) => isReady(q) && q?.status?.id !== undefined,
    );
    expect(condition(ready, 'Ready')?.reason).not.toBe('Conflict');
    expect(team.emulator.store.queryEndpoints.get(serviceId)).toMatchObject({
      roles: ['sql_console_read_only'],
    });

    await team.clearCalls();
    await endpoints.removeUntilGone('console');
    const deletes = (await team.calls()).filter((c) => c.method === 'DELETE' && c.route === QUERY_ENDPOINT);
    expect(deletes.filter((c) => c.status < 300)).toHaveLength(1);
    expect(team.emulator.store.queryEndpoints.get(serviceId)).toBeUndefined();
  }, 60_000);
});
