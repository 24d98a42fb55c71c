// An organization part of which this cluster already manages: export leaves that part out, and an object
// applied for it anyway is refused with an Event naming the object that manages it.
import { parseAllDocuments } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { untilValue } from '../../../support/wait.ts';
import { condition, exportFrom, isReady, useOperatorEnv, writes } from '../support.ts';

const EXTERNAL_ID = 'sluice.dev/external-id';

describe.skipIf(clusterSkipReason())('sluice export of an organization this cluster partly manages', () => {
  const env = useOperatorEnv('export-managed');
  let ordersId = '';
  let billingId = '';

  beforeAll(async () => {
    // Two services in the cloud; `orders` is adopted by an object in the test namespace.
    const body = { provider: 'aws', region: 'us-east-1' } as const;
    ordersId = (await env.cloud.createService({ name: 'orders', ...body })).service.id;
    billingId = (await env.cloud.createService({ name: 'billing', ...body })).service.id;
    await env.apply('orders', { name: 'orders', deletionPolicy: 'Orphan' }, { [EXTERNAL_ID]: ordersId });
    await env.waitFor('orders', 'Ready with the id', (r) => isReady(r) && r?.status?.id === ordersId);
  });

  const exportServices = async (flags: Record<string, unknown> = {}) => {
    const exported = await exportFrom(env, { kind: ['DatabaseService'], managementQuota: 'off', ...flags });
    const manifests = parseAllDocuments(exported.stdout).map((doc) => doc.toJS()) as {
      metadata: { name: string; annotations: Record<string, string> };
    }[];
    return { code: exported.code, manifests, stderr: exported.stderr };
  };

  it('leaves out the service an object of the cluster manages, and says how many and which', async () => {
    const { code, manifests, stderr } = await exportServices();
    expect(code, stderr).toBe(0);
    expect(manifests.map((m) => m.metadata.annotations[EXTERNAL_ID])).toEqual([billingId]);
    expect(stderr).toContain('1 already managed here');
    expect(stderr).toContain(
      `DatabaseService "orders" (${ordersId}): managed by DatabaseService ${env.namespace}/orders`,
    );
  });

  it('keeps it with --include-managed', async () => {
    const { code, manifests, stderr } = await exportServices({ includeManaged: true });
    expect(code, stderr).toBe(0);
    expect(manifests.map((m) => m.metadata.annotations[EXTERNAL_ID]).sort()).toEqual(
      [ordersId, billingId].sort(),
    );
    expect(stderr).not.toContain('already managed here');
  });

  it('an object applied for the managed id anyway is AlreadyManaged, with a Warning Event naming the holder', async () => {
    await env.clearCalls();
    await env.apply('orders-copy', { name: 'orders', deletionPolicy: 'Orphan' }, { [EXTERNAL_ID]: ordersId });
    const refused = await env.waitFor(
      'orders-copy',
      'Ready=False AlreadyManaged',
      (r) => condition(r, 'Ready')?.reason === 'AlreadyManaged',
    );
    expect(refused.status?.id).toBeUndefined();
    const events = await untilValue(
      'the AlreadyManaged Event',
      async () =>
        (
          await env.core.listNamespacedEvent({
            namespace: env.namespace,
            fieldSelector: 'involvedObject.name=orders-copy,reason=AlreadyManaged',
          })
        ).items,
      (items) => items.length > 0,
    );
    expect(events.map((e) => [e.type, e.message])).toEqual([
      [
        'Warning',
        `DatabaseService ${env.namespace}/orders already manages ${ordersId}; this object changes nothing in the cloud`,
      ],
    ]);
    expect(JSON.stringify(events)).not.toContain(env.emulator.credentials.keySecret);
    expect(writes(await env.calls())).toEqual([]);
  });
});
