// An id another object manages is refused, and the refusal is seen by whoever wrote the refused object: in
// another namespace it must not say which namespace and object hold the id, or any tenant could map the
// organization's ids to their owners by trying them. In the same namespace it names the holder.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { untilValue } from '../../../support/wait.ts';
import { applyWithFinalizer } from './ownership-fixtures.ts';
import { condition, isReady, startOperatorEnv, type OperatorEnv, type SluiceObject } from '../support.ts';

const EXTERNAL_ID = 'sluice.dev/external-id';

describe.skipIf(clusterSkipReason())('refusals seen in another namespace than the holder’s', () => {
  let owner: OperatorEnv;
  let tenant: OperatorEnv;
  let serviceId: string;

  /** The Events of the tenant's namespace about `name`, as `reason: message`. */
  const tenantEvents = async (name: string) => {
    const { items } = await tenant.core.listNamespacedEvent({ namespace: tenant.namespace });
    return items.filter((e) => e.involvedObject.name === name).map((e) => `${e.reason}: ${e.message}`);
  };
  /** Waits for an Event `reason` about `name`, then returns every Event about it. */
  const eventsOnceThere = (name: string, reason: string) =>
    untilValue(
      `a ${reason} Event about ${name}`,
      () => tenantEvents(name),
      (events) => events.some((e) => e.startsWith(`${reason}: `)),
    );
  const reasonIs = (reason: string) => (o: SluiceObject | undefined) =>
    condition(o, 'Ready')?.reason === reason;

  beforeAll(async () => {
    owner = await startOperatorEnv('holder-owner');
    tenant = await startOperatorEnv('holder-tenant', {}, { sharing: owner });
    await owner.startOperator({ namespace: `${owner.namespace},${tenant.namespace}` });
    await owner.apply('orders', { name: 'orders' });
    serviceId = (await owner.waitFor('orders', 'Ready', isReady, 30_000)).status!.id!;
  });
  afterAll(async () => {
    await tenant?.close();
    await owner?.close();
  });

  it('AlreadyManaged, in the condition and its Event, names neither the holder’s namespace nor its object', async () => {
    await tenant.apply('probe', { name: 'probe', deletionPolicy: 'Delete' }, { [EXTERNAL_ID]: serviceId });
    const refused = await tenant.waitFor('probe', 'AlreadyManaged', reasonIs('AlreadyManaged'));
    const seen = [
      condition(refused, 'Ready')!.message!,
      ...(await eventsOnceThere('probe', 'AlreadyManaged')),
    ];
    expect(seen[0]).toContain(`already manages ${serviceId}`);
    for (const text of seen) {
      expect(text).not.toContain(owner.namespace);
      expect(text).not.toContain('orders');
    }
    await tenant.removeUntilGone('probe');
  });

  it('Conflict over a service’s one QueryEndpoint, and the Orphaned Event of its deletion, name neither the owner’s namespace nor its object', async () => {
    const endpoint = { roles: ['sql_console_read_only'], allowedOrigins: 'a.example' };
    const endpoints = tenant.of<SluiceObject>('QueryEndpoint');
    await owner.of('QueryEndpoint').apply('console', { ...endpoint, serviceRef: { name: 'orders' } });
    await owner.of<SluiceObject>('QueryEndpoint').waitFor('console', 'Ready', isReady, 30_000);
    // The finalizer is the tenant's to write too: its deletion is then sluice's to finish.
    await applyWithFinalizer(tenant, 'QueryEndpoint', 'endpoint-probe', {
      ...endpoint,
      serviceId,
      deletionPolicy: 'Delete',
    });
    const conflict = await endpoints.waitFor('endpoint-probe', 'Conflict', reasonIs('Conflict'));
    const message = condition(conflict, 'Ready')!.message!;
    expect(message).toContain('already manages this for the same service');
    await endpoints.removeUntilGone('endpoint-probe');

    for (const text of [message, ...(await eventsOnceThere('endpoint-probe', 'Orphaned'))]) {
      expect(text).not.toContain(owner.namespace);
      expect(text).not.toContain('console');
    }
    expect(owner.emulator.store.queryEndpoints.get(serviceId)).toBeDefined();
  });
});
