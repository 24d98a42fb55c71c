import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { fieldNames } from '../../../../src/managed/observe-only.ts';
import type { DatabaseService } from '../../../../src/kinds/database-service/schema.ts';
import { rpeSpec } from '../../../../tools/fixtures/rpe.ts';
import {
  baseSpec,
  condition,
  isReady,
  useOperatorEnv,
  writes,
  type OperatorEnv,
  type SluiceObject,
} from '../support.ts';

const EXTERNAL_ID = 'sluice.dev/external-id';
const RESET_PASSWORD = 'sluice.dev/reset-password';
const RECONCILE_REQUESTED_AT = 'sluice.dev/reconcile-requested-at';

interface PendingChange {
  method: string;
  path: string;
  fields: string[];
}

const observedOnly = (env: OperatorEnv, name: string) =>
  env.waitFor(name, 'Ready reason ObserveOnly', (r) => condition(r, 'Ready')?.reason === 'ObserveOnly');

const pendingOf = (status: unknown) =>
  ((status as { pendingChanges?: PendingChange[] } | undefined)?.pendingChanges ?? []) as PendingChange[];

describe.skipIf(clusterSkipReason())('managementPolicy Observe', () => {
  const env = useOperatorEnv('observe-only');

  /**
   * A service made in the cloud by hand as `name`, then adopted by id as the object `name` with `spec` under
   * managementPolicy Observe; the call log starts after the hand-made create. Returns the cloud service.
   */
  async function observeHandMade(
    name: string,
    spec: Partial<DatabaseService['spec']> = {},
    annotations: Record<string, string> = {},
  ) {
    const { service } = await env.cloud.createService({ name, ...baseSpec });
    await env.clearCalls();
    await env.apply(
      name,
      { name, ...spec, managementPolicy: 'Observe' },
      { [EXTERNAL_ID]: service.id, ...annotations },
    );
    return service;
  }

  it('an adopted service whose name differs gets no PATCH, lists it in status, and Full sends exactly it', async () => {
    const service = await observeHandMade('legacy', { name: 'renamed' });

    const observed = await env.waitFor(
      'legacy',
      'ObserveOnly with a pending PATCH',
      (r) => condition(r, 'Ready')?.reason === 'ObserveOnly' && pendingOf(r?.status).length > 0,
    );
    const ready = condition(observed, 'Ready')!;
    expect(ready.status).toBe('False');
    expect(ready.message).toContain('name');
    const pending = pendingOf(observed.status);
    const servicePath = `/v1/organizations/${env.cloud.organizationId}/services/${service.id}`;
    expect(pending).toContainEqual({ method: 'PATCH', path: servicePath, fields: ['name'] });
    expect(ready.message).toContain(`PATCH ${servicePath} (name)`);
    expect(observed.status!.id).toBe(service.id);
    expect(writes(await env.calls())).toEqual([]);
    expect((await env.cloud.getService(service.id)).name).toBe('legacy');

    await env.patchSpec('legacy', { managementPolicy: 'Full' });
    await env.waitFor('legacy', 'Ready under Full', (r) => isReady(r) && !pendingOf(r?.status).length);
    const sent = writes(await env.calls());
    expect(sent.map((c) => ({ method: c.method, path: c.path, fields: fieldNames(c.body) }))).toEqual(
      pending,
    );
    expect(sent.find((c) => c.method === 'PATCH' && c.path === servicePath)?.body).toEqual({
      name: 'renamed',
    });
    expect((await env.cloud.getService(service.id)).name).toBe('renamed');
  });

  it('deleting an Observe object with deletionPolicy Delete deletes nothing in the cloud', async () => {
    const service = await observeHandMade('kept', { deletionPolicy: 'Delete' });
    await env.waitFor('kept', 'observed with a finalizer', (r) =>
      Boolean(condition(r, 'Ready')?.reason === 'ObserveOnly' && r?.metadata.finalizers?.length),
    );
    await env.clearCalls();

    await env.removeUntilGone('kept');
    expect(writes(await env.calls())).toEqual([]);
    expect((await env.cloud.getService(service.id)).state).not.toBe('terminating');
  });

  it('an Observe object with no id to adopt is refused with nothing sent', async () => {
    await env.clearCalls();
    await env.apply('nothing', { name: 'nothing', managementPolicy: 'Observe' });

    const refused = await env.waitFor(
      'nothing',
      'Ready=False NothingToObserve',
      (r) => condition(r, 'Ready')?.reason === 'NothingToObserve',
    );
    expect(condition(refused, 'Ready')!.status).toBe('False');
    expect(condition(refused, 'Ready')!.message).toContain(EXTERNAL_ID);
    expect(refused.status?.id).toBeUndefined();
    expect(await env.calls()).toEqual([]);
    expect((await env.cloud.listServices()).some((s) => s.name === 'nothing')).toBe(false);
  });

  it('an Observe endpoint that differs in a field no call can change is ObserveOnly saying so, with nothing sent', async () => {
    await env.apply('host', { name: 'host' });
    const serviceId = (await env.waitFor('host', 'service Ready', isReady, 30_000)).status!.id!;
    const { serviceRef: _ref, ...body } = rpeSpec('msk', 'host', { description: 'made by hand' });
    const endpoint = await env.cloud.createReversePrivateEndpoint(serviceId, body as never);
    await env.clearCalls();

    const endpoints = env.of<SluiceObject>('ReversePrivateEndpoint');
    await endpoints.apply(
      'by-hand',
      rpeSpec('msk', 'host', { description: 'described otherwise', managementPolicy: 'Observe' }),
      { [EXTERNAL_ID]: endpoint.id },
    );
    const observed = await endpoints.waitFor('by-hand', 'Ready reason ObserveOnly', (r) =>
      Boolean(r?.status?.id && condition(r, 'Ready')?.reason === 'ObserveOnly'),
    );

    const ready = condition(observed, 'Ready')!;
    expect(ready.status).toBe('False');
    expect(ready.message).toContain('description');
    expect(ready.message).toContain('cannot change an endpoint');
    expect(condition(observed, 'Synced')).toMatchObject({ status: 'True' });
    expect(pendingOf(observed.status)).toEqual([]);
    expect(writes(await env.calls())).toEqual([]);
  });

  it('an Observe service asked for a password reset resets nothing, lists the call and names the annotation; Full sends it', async () => {
    const service = await observeHandMade('keyed', {}, { [RESET_PASSWORD]: 'first' });
    const resetPath = `/v1/organizations/${env.cloud.organizationId}/services/${service.id}/password`;
    const observed = await env.waitFor('keyed', 'the reset among the pending calls', (r) =>
      pendingOf(r?.status).some((c) => c.path === resetPath),
    );

    expect(pendingOf(observed.status)).toEqual([{ method: 'PATCH', path: resetPath, fields: [] }]);
    const ready = condition(observed, 'Ready')!;
    expect(ready).toMatchObject({ status: 'False', reason: 'ObserveOnly' });
    expect(ready.message).toContain(RESET_PASSWORD);
    expect(ready.message).toContain(`PATCH ${resetPath}`);
    expect(observed.status).not.toHaveProperty('passwordReset');
    expect(writes(await env.calls())).toEqual([]);
    expect((await env.secret('keyed-connection'))?.password).toBeUndefined();

    await env.patchSpec('keyed', { managementPolicy: 'Full' });
    await env.waitFor('keyed', 'the reset acted on', (r) => r?.status?.passwordReset === 'first');
    const sent = writes(await env.calls());
    expect(sent.map((c) => ({ method: c.method, path: c.path, fields: fieldNames(c.body) }))).toEqual([
      { method: 'PATCH', path: resetPath, fields: [] },
    ]);
    expect((await env.secret('keyed-connection'))?.password).toBeTruthy();
  });

  it('an Observe object whose cloud matches is Ready with reason ObserveOnly and no pending call', async () => {
    await observeHandMade('same');
    const matched = await env.waitFor('same', 'Ready ObserveOnly', (r) => isReady(r));
    expect(condition(matched, 'Ready')!.reason).toBe('ObserveOnly');
    expect(pendingOf(matched.status)).toEqual([]);
    await observedOnly(env, 'same');
  });
});

describe.skipIf(clusterSkipReason())('reconcile now', () => {
  const env = useOperatorEnv('reconcile-now');

  it('a new value of sluice.dev/reconcile-requested-at triggers one fresh read within a second, with no spec change', async () => {
    await env.apply('now', { name: 'now' });
    const before = await env.waitFor('now', 'Ready', isReady);
    const id = before.status!.id!;
    const servicePath = `/v1/organizations/${env.cloud.organizationId}/services/${id}`;

    for (const value of ['first', 'second']) {
      await env.clearCalls();
      const asked = Date.now();
      await env.annotate('now', { [RECONCILE_REQUESTED_AT]: value });
      const handled = await env.waitFor(
        'now',
        `lastHandledReconcileAt ${value}`,
        (r) => r?.status?.lastHandledReconcileAt === value,
      );
      const reads = (await env.calls()).filter((c) => c.method === 'GET' && c.path === servicePath);
      expect(reads).toHaveLength(1);
      expect(Date.parse(reads[0]!.timestamp) - asked).toBeLessThan(1000);
      expect(handled.metadata.generation).toBe(before.metadata.generation);
      expect(writes(await env.calls())).toEqual([]);
    }
  });
});
