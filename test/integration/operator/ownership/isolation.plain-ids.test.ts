// A cloud id is no capability: one operator serves every namespace with its own credentials, so a plain id
// written in one namespace (a spec's serviceId or backupId, a restore's source, sluice.dev/external-id) reaches
// a cloud object only when its owner record names that namespace, when the namespace that owns it grants it
// (a CloudIdGrant there), or, made outside sluice, when the administrator allows plain ids for the namespace
// (or it brings credentials of its own). Otherwise Ready=False with a reason naming the field, and nothing is
// sent to what the id names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { applyWithFinalizer } from './ownership-fixtures.ts';
import { kafkaPipe, lookAlikeBody, PIPES } from '../../../../tools/fixtures/pipe.ts';
import { rpeSpec } from '../../../../tools/fixtures/rpe.ts';
import {
  baseSpec,
  condition,
  isReady,
  isReadyWithId,
  startOperatorEnv,
  writes,
  type OperatorEnv,
  type SluiceObject,
} from '../support.ts';

const EXTERNAL_ID = 'sluice.dev/external-id';
const SERVICES = '/v1/organizations/:organizationId/services';
const HOUR_MS = 3_600_000;
const TIMEOUT = 120_000;
/** A backup at creation, then one every 6 hours: the test moves the cloud's clock past the first. */
const BACKUPS = { periodInHours: 6, retentionInHours: 48 };

const reasonIs = (reason: string) => (o: SluiceObject | undefined) =>
  condition(o, 'Ready')?.reason === reason;

describe.skipIf(clusterSkipReason())('plain ids across namespaces of one cluster', () => {
  /** The team that owns the services. */
  let owner: OperatorEnv;
  /** Another team's namespace, on the operator's credentials, not allowed plain ids by the administrator. */
  let tenant: OperatorEnv;
  /** A platform namespace the administrator allows plain ids of console-made objects. */
  let platform: OperatorEnv;
  /** The owner's service (held by its DatabaseService) and a backup of it. */
  let warehouseId: string;
  let backupId: string;
  /** The owner's service left by an `Orphan` deletion: its record still names the owner's namespace. */
  let archiveId: string;

  const grant = (env: OperatorEnv, name: string, spec: Record<string, unknown>) =>
    env.objects.create({
      apiVersion: 'sluice.dev/v1alpha1',
      kind: 'CloudIdGrant',
      metadata: { name, namespace: env.namespace },
      spec,
    } as never);
  const removeGrant = (env: OperatorEnv, name: string) =>
    env.objects.delete({
      apiVersion: 'sluice.dev/v1alpha1',
      kind: 'CloudIdGrant',
      metadata: { name, namespace: env.namespace },
    });

  /**
   * The calls since the last clear that wrote to the service `id`, or reached anything in it: all but the
   * reads that find an id's owner record (the services list, and a service's backups list for a backupId).
   */
  const sentTo = async (id: string) =>
    (await owner.calls()).filter(
      (c) =>
        (c.method !== 'GET' && c.path.includes(id)) ||
        (c.path.includes(`/services/${id}/`) && !(c.method === 'GET' && c.path.endsWith('/backups'))),
    );
  const creates = async () => writes(await owner.calls()).filter((c) => c.method === 'POST');

  /** Waits for `name` to be refused with `reason`, looks once more, and returns it. */
  const refused = async (env: OperatorEnv, kind: string, name: string, reason: string) => {
    await env.of<SluiceObject>(kind).waitFor(name, reason, reasonIs(reason), 30_000);
    await env.freshLook(kind, name);
    const object = (await env.of<SluiceObject>(kind).get(name))!;
    expect(condition(object, 'Ready')).toMatchObject({ status: 'False', reason });
    expect(object.status?.id).toBeUndefined();
    return object;
  };

  beforeAll(async () => {
    owner = await startOperatorEnv('plain-owner');
    tenant = await startOperatorEnv('plain-tenant', {}, { sharing: owner });
    platform = await startOperatorEnv('plain-platform', {}, { sharing: owner });
    for (const env of [tenant, platform]) await env.putSecret('kafka-user', { username: 'u', password: 'p' });
    await owner.startOperator({
      namespace: [owner, tenant, platform].map((env) => env.namespace).join(','),
      plainIdNamespaces: platform.namespace,
    });
    await owner.apply('warehouse', { name: 'warehouse', backups: BACKUPS });
    await owner.apply('archive', { name: 'archive', backups: BACKUPS, deletionPolicy: 'Orphan' });
    warehouseId = (await owner.waitFor('warehouse', 'Ready', isReady, 30_000)).status!.id!;
    archiveId = (await owner.waitFor('archive', 'Ready', isReady, 30_000)).status!.id!;
    await owner.removeUntilGone('archive');
    await owner.setClock({ offsetMs: 6 * HOUR_MS + 2 * 60_000 });
    backupId = (await owner.cloud.listBackups(warehouseId)).find((b) => b.status === 'done')!.id;
  }, TIMEOUT);
  afterAll(async () => {
    await platform?.close();
    await tenant?.close();
    await owner?.close();
  });

  it('a Pipe naming another namespace’s service by serviceId is refused (ServiceIdNotAllowed), nothing sent to the service', async () => {
    await owner.clearCalls();
    await tenant
      .of('Pipe')
      .apply('intruder', { ...kafkaPipe('intruder'), serviceRef: undefined, serviceId: warehouseId });
    const pipe = await refused(tenant, 'Pipe', 'intruder', 'ServiceIdNotAllowed');
    expect(condition(pipe, 'Ready')!.message).toContain('spec.serviceId');
    expect(condition(pipe, 'Ready')!.message).not.toContain(owner.namespace);
    expect(await sentTo(warehouseId)).toEqual([]);
    expect(owner.emulator.store.pipesOf(warehouseId).size).toBe(0);
  });

  it('a QueryEndpoint naming another namespace’s service by serviceId is refused, no endpoint made', async () => {
    await owner.clearCalls();
    await tenant.of('QueryEndpoint').apply('reader', {
      serviceId: warehouseId,
      roles: ['sql_console_admin'],
      allowedOrigins: 'a.example',
    });
    await refused(tenant, 'QueryEndpoint', 'reader', 'ServiceIdNotAllowed');
    expect(await sentTo(warehouseId)).toEqual([]);
    expect(owner.emulator.store.queryEndpoints.get(warehouseId)).toBeUndefined();
  });

  it('a ReversePrivateEndpoint naming another namespace’s service by serviceId is refused, none made', async () => {
    await owner.clearCalls();
    await tenant
      .of('ReversePrivateEndpoint')
      .apply('tunnel', { ...rpeSpec('msk', 'unused'), serviceRef: undefined, serviceId: warehouseId });
    await refused(tenant, 'ReversePrivateEndpoint', 'tunnel', 'ServiceIdNotAllowed');
    expect(await sentTo(warehouseId)).toEqual([]);
  });

  it('a DatabaseService restoring another namespace’s backup by backupId is refused (BackupIdNotAllowed), nothing created', async () => {
    await owner.clearCalls();
    await tenant.apply('stolen', { name: 'stolen', backupId });
    const service = await refused(tenant, 'DatabaseService', 'stolen', 'BackupIdNotAllowed');
    expect(condition(service, 'Ready')!.message).toContain('spec.backupId');
    expect(await creates()).toEqual([]);
    expect(await tenant.secret('stolen-connection')).toBeUndefined();
  });

  it('sluice.dev/external-id naming a service another namespace orphaned is refused (ExternalIdNotAllowed): its record still names that namespace', async () => {
    await owner.clearCalls();
    await tenant.apply('mirror', { name: 'archive', backups: BACKUPS }, { [EXTERNAL_ID]: archiveId });
    const mirror = await refused(tenant, 'DatabaseService', 'mirror', 'ExternalIdNotAllowed');
    expect(condition(mirror, 'Ready')!.message).toContain(`annotation ${EXTERNAL_ID}`);
    expect(writes(await sentTo(archiveId))).toEqual([]);
    expect(await tenant.secret('mirror-connection')).toBeUndefined();
  });

  it('another namespace’s annotation claiming an id does not make it theirs: the owner’s own Pipe by serviceId still works', async () => {
    await tenant.apply('claimant', { name: 'warehouse' }, { [EXTERNAL_ID]: warehouseId });
    await tenant.waitFor('claimant', 'AlreadyManaged', reasonIs('AlreadyManaged'));
    await owner.putSecret('kafka-user', { username: 'u', password: 'p' });
    await owner.of('Pipe').apply('own-feed', {
      ...kafkaPipe('own-feed'),
      serviceRef: undefined,
      serviceId: warehouseId,
    });
    await owner.of<SluiceObject>('Pipe').waitFor('own-feed', 'Ready', isReadyWithId, 30_000);
    await owner.of('Pipe').removeUntilGone('own-feed');
    await tenant.removeUntilGone('claimant');
  });

  it('a crafted lost create on a plain serviceId neither adopts nor deletes another namespace’s pipe', async () => {
    // Intent and finalizer are the tenant's to write; a pipe of the same natural key appears after the intent.
    const spec = { ...kafkaPipe('orders'), serviceRef: undefined, serviceId: warehouseId };
    await applyWithFinalizer(tenant, 'Pipe', 'crafted', spec, {
      'sluice.dev/create-pending': new Date().toISOString(),
    });
    await refused(tenant, 'Pipe', 'crafted', 'ServiceIdNotAllowed');
    const theirs = await owner.cloud.createPipe(warehouseId, lookAlikeBody(kafkaPipe('orders')));
    await owner.clearCalls();
    await refused(tenant, 'Pipe', 'crafted', 'ServiceIdNotAllowed');
    await tenant.of('Pipe').removeUntilGone('crafted');
    expect(await sentTo(warehouseId)).toEqual([]);
    expect(owner.emulator.store.pipesOf(warehouseId).has(theirs.id)).toBe(true);
    await owner.cloud.deletePipe(warehouseId, theirs.id);
  });

  it('a grant in the referring namespace counts for nothing', async () => {
    await grant(tenant, 'self-service', {
      from: [{ namespace: tenant.namespace, kind: 'QueryEndpoint', field: 'serviceId' }],
      to: [{ kind: 'DatabaseService', name: 'warehouse' }],
    });
    await owner.clearCalls();
    await tenant.freshLook('QueryEndpoint', 'reader');
    await refused(tenant, 'QueryEndpoint', 'reader', 'ServiceIdNotAllowed');
    expect(await sentTo(warehouseId)).toEqual([]);
  });

  it(
    'the owner’s grant lets the Pipe through at once; withdrawn, the pipe keeps working and says so, and a new one is refused',
    async () => {
      // The refused pipe looks again when the grant comes, not at its next drift check (10 minutes away).
      await grant(owner, 'data-team-pipes', {
        from: [{ namespace: tenant.namespace, kind: 'Pipe', field: 'serviceId' }],
        to: [{ kind: 'DatabaseService', name: 'warehouse' }],
      });
      const pipe = await tenant.of<SluiceObject>('Pipe').waitFor('intruder', 'Ready', isReadyWithId, 30_000);
      expect(pipe.status!.serviceId).toBe(warehouseId);

      await removeGrant(owner, 'data-team-pipes');
      const reported = await tenant
        .of<SluiceObject>('Pipe')
        .waitFor('intruder', 'Granted=False', (o) => condition(o, 'Granted')?.status === 'False', 30_000);
      expect(condition(reported, 'Granted')!.reason).toBe('GrantWithdrawn');
      expect(isReady(reported)).toBe(true);
      expect(reported.status!.id).toBe(pipe.status!.id);

      await owner.clearCalls();
      await tenant
        .of('Pipe')
        .apply('late', { ...kafkaPipe('late'), serviceRef: undefined, serviceId: warehouseId });
      await refused(tenant, 'Pipe', 'late', 'ServiceIdNotAllowed');
      expect((await creates()).filter((c) => c.route === PIPES)).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'a grant to adopt is no grant to restore: spec.restore from a service adopted by grant is refused (RestoreNotAllowed)',
    async () => {
      await grant(owner, 'archive-handover', {
        from: [{ namespace: tenant.namespace, kind: 'DatabaseService', field: EXTERNAL_ID }],
        to: [{ kind: 'DatabaseService', name: 'archive' }],
      });
      await tenant.waitFor('mirror', 'adopted by grant', isReady, 30_000);
      await owner.clearCalls();
      await tenant.apply('copy', { name: 'copy', restore: { fromBackupOf: 'mirror' } });
      const copy = await refused(tenant, 'DatabaseService', 'copy', 'RestoreNotAllowed');
      expect(condition(copy, 'Ready')!.message).toContain('spec.restore');
      expect((await creates()).filter((c) => c.route === SERVICES)).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'a service made in the console: reachable by plain id from a namespace the administrator lists, or with credentials of its own; refused elsewhere',
    async () => {
      const { service } = await owner.cloud.createService({ name: 'console', ...baseSpec });
      await owner.clearCalls();
      await tenant.of('Pipe').apply('console-feed', {
        ...kafkaPipe('console-feed'),
        serviceRef: undefined,
        serviceId: service.id,
      });
      const refusal = await refused(tenant, 'Pipe', 'console-feed', 'ServiceIdNotAllowed');
      expect(condition(refusal, 'Ready')!.message).toContain('--plain-id-namespaces');
      expect(await sentTo(service.id)).toEqual([]);

      await platform.of('Pipe').apply('console-feed', {
        ...kafkaPipe('console-feed'),
        serviceRef: undefined,
        serviceId: service.id,
      });
      await platform.of<SluiceObject>('Pipe').waitFor('console-feed', 'Ready', isReadyWithId, 30_000);

      await tenant.putCredentials('team-key');
      await tenant.of('Pipe').apply('own-key-feed', {
        ...kafkaPipe('own-key-feed'),
        serviceRef: undefined,
        serviceId: service.id,
        credentialsRef: { name: 'team-key' },
      });
      await tenant.of<SluiceObject>('Pipe').waitFor('own-key-feed', 'Ready', isReadyWithId, 30_000);
    },
    TIMEOUT,
  );
});
