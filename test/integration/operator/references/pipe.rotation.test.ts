import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { condition, isReady, writes, type SluiceObject, useOperatorEnv, isReadyWithId } from '../support.ts';
import { columns, kafkaPipe, lookAlikeBody, mappings, PIPE } from '../../../../tools/fixtures/pipe.ts';

/**
 * Rotation follows the values of the keys a Pipe uses, never a referenced Secret's metadata: a label that
 * Argo CD or a user adds sends nothing, and leaves a Pipe whose cloud field cannot change in place Ready.
 */
describe.skipIf(clusterSkipReason())('Pipe credentials rotate by content, not by Secret metadata', () => {
  const env = useOperatorEnv('pipe-rotation', { operator: { managementQuota: '100/1s' } });
  const pipes = () => env.of<SluiceObject>('Pipe');
  let serviceId: string;

  beforeAll(async () => {
    await env.apply('analytics', { name: 'analytics' });
    serviceId = (await env.waitFor('analytics', 'service Ready', isReady)).status!.id!;
  });

  /** Adds a label to a Secret (what Argo CD does on sync); returns the Secret's new resourceVersion. */
  async function labelSecret(name: string, labels: Record<string, string>): Promise<string> {
    const secret = await env.core.patchNamespacedSecret(
      { name, namespace: env.namespace, body: { metadata: { labels } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    return secret.metadata!.resourceVersion!;
  }

  async function secretVersion(name: string): Promise<string> {
    const secret = await env.core.readNamespacedSecret({ name, namespace: env.namespace });
    return secret.metadata!.resourceVersion!;
  }

  /**
   * The Pipe's status names the Secret's resourceVersion `version`: the operator reconciled after that
   * change of the Secret (and recorded what it found).
   */
  const sawVersion = (version: string) => (p: SluiceObject | undefined) =>
    JSON.stringify(p?.status ?? {}).includes(`"${version}"`);

  const azurePipe = (name: string, secret: string) => ({
    serviceRef: { name: 'analytics' },
    name,
    source: {
      objectStorage: {
        url: 'https://account.blob.core.windows.net/events/*.json',
        type: 'azureblobstorage',
        format: 'JSONEachRow',
        isContinuous: true,
        authentication: 'CONNECTION_STRING',
        azureContainerName: 'events',
        connectionStringSecretRef: { name: secret },
      },
    },
    destination: { database: 'default', table: name, managedTable: true, columns },
    fieldMappings: mappings,
  });

  it('a label on the credentials Secret sends nothing and leaves the Pipe Ready; a changed value sends one PATCH', async () => {
    await env.putSecret('labelled-user', { username: 'ingest', password: 'label-pass-1' });
    await pipes().apply('labelled', kafkaPipe('labelled', { credentialsSecret: 'labelled-user' }));
    const created = await pipes().waitFor('labelled', 'Ready', isReadyWithId, 30_000);
    await env.clearCalls();

    const labelled = await labelSecret('labelled-user', { team: 'ingest' });
    const after = await pipes().waitFor(
      'labelled',
      'label seen',
      (p) => isReadyWithId(p) && sawVersion(labelled)(p),
    );
    expect(writes(await env.calls())).toEqual([]);
    expect(condition(after, 'Ready')).toMatchObject({ status: 'True' });

    await env.clearCalls();
    await env.putSecret('labelled-user', { username: 'ingest', password: 'label-pass-2' });
    const changed = await secretVersion('labelled-user');
    await pipes().waitFor('labelled', 'rotation sent', (p) => isReadyWithId(p) && sawVersion(changed)(p));
    const changes = writes(await env.calls());
    expect(changes.map((c) => `${c.method} ${c.route}`)).toEqual([`PATCH ${PIPE}`]);
    // The call log redacts credentials: the PATCH carries them and nothing else; the cloud has the new ones.
    expect(changes[0]!.body).toEqual({ source: { kafka: { credentials: expect.anything() } } });
    expect(env.emulator.store.findPipe(created.status!.id!)?.source.kafka?.credentials).toEqual({
      username: 'ingest',
      password: 'label-pass-2',
    });
    const everything = JSON.stringify([await pipes().get('labelled'), env.logs]);
    for (const secret of ['label-pass-1', 'label-pass-2']) expect(everything).not.toContain(secret);
  });

  it('a connection string Pipe stays Ready on a label; a changed connection string is CannotRotate', async () => {
    await env.putSecret('azure-conn', { connectionString: 'AccountName=a;AccountKey=key-one' });
    await pipes().apply('azure', azurePipe('azure', 'azure-conn'));
    await pipes().waitFor('azure', 'Ready', isReadyWithId, 30_000);
    await env.clearCalls();

    const labelled = await labelSecret('azure-conn', { 'argocd.argoproj.io/instance': 'ingest' });
    const after = await pipes().waitFor(
      'azure',
      'label seen',
      (p) => sawVersion(labelled)(p) || condition(p, 'Synced')?.reason === 'CannotRotate',
    );
    expect(condition(after, 'Synced')).toMatchObject({ status: 'True' });
    expect(condition(after, 'Ready')).toMatchObject({ status: 'True' });
    expect(writes(await env.calls())).toEqual([]);

    await env.putSecret('azure-conn', { connectionString: 'AccountName=a;AccountKey=key-two' });
    const stuck = await pipes().waitFor(
      'azure',
      'CannotRotate',
      (p) => condition(p, 'Synced')?.reason === 'CannotRotate',
    );
    expect(condition(stuck, 'Synced')!.message).toContain('source.objectStorage.connectionStringSecretRef');
    expect(writes(await env.calls())).toEqual([]);
    expect(JSON.stringify([stuck, env.logs])).not.toContain('key-two');
  });

  it('an adopted Pipe takes the Secret as what the cloud has: no PATCH on adoption, none on a label', async () => {
    await env.putSecret('adopted-user', { username: 'ingest', password: 'adopted-pass' });
    const spec = kafkaPipe('adopted', { credentialsSecret: 'adopted-user' });
    const body = lookAlikeBody(spec);
    const existing = await env.cloud.createPipe(serviceId, {
      ...body,
      source: {
        kafka: { ...body.source.kafka!, credentials: { username: 'ingest', password: 'adopted-pass' } },
      },
    });
    await env.clearCalls();

    await pipes().apply('adopted', spec, { 'sluice.dev/external-id': existing.id });
    const adopted = await pipes().waitFor('adopted', 'adopted and Ready', isReadyWithId, 30_000);
    expect(adopted.status!.id).toBe(existing.id);
    expect(writes(await env.calls())).toEqual([]);

    const labelled = await labelSecret('adopted-user', { team: 'ingest' });
    const after = await pipes().waitFor(
      'adopted',
      'label seen',
      (p) => sawVersion(labelled)(p) || condition(p, 'Synced')?.reason === 'CannotRotate',
    );
    expect(condition(after, 'Ready')).toMatchObject({ status: 'True' });
    expect(writes(await env.calls())).toEqual([]);
    // Said once in the log; a Pipe sluice created itself never is.
    const rebaselined = (name: string) =>
      env.logs.filter((line) => line.includes('taken as what the cloud has') && line.includes(`/${name}"`));
    expect(rebaselined('adopted')).toHaveLength(1);
    expect(rebaselined('labelled')).toEqual([]);
  });

  it('a Pipe an earlier version left in CannotRotate after a label is Ready after the upgrade, with no call', async () => {
    await env.putSecret('legacy-conn', { connectionString: 'AccountName=a;AccountKey=legacy-key' });
    await pipes().apply('legacy', azurePipe('legacy', 'legacy-conn'));
    const created = await pipes().waitFor('legacy', 'Ready', isReadyWithId, 30_000);
    const versionThen = await secretVersion('legacy-conn');

    // What an earlier version left: a resourceVersion record, and CannotRotate since a label moved it.
    await env.stopOperator();
    await labelSecret('legacy-conn', { team: 'ingest' });
    const conditions = created.status!.conditions!.map((c) =>
      c.type === 'Synced'
        ? { ...c, status: 'False', reason: 'CannotRotate', message: 'the Secret changed' }
        : c,
    );
    await env.kc.makeApiClient(CustomObjectsApi).patchNamespacedCustomObjectStatus(
      {
        group: 'sluice.dev',
        version: 'v1alpha1',
        namespace: env.namespace,
        plural: 'pipes',
        name: 'legacy',
        body: { status: { secretDigests: null, secretVersions: { 'legacy-conn': versionThen }, conditions } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await env.clearCalls();

    await env.startOperator({ managementQuota: '100/1s' });
    const upgraded = await pipes().waitFor(
      'legacy',
      'Synced again',
      (p) => isReadyWithId(p) && condition(p, 'Synced')?.status === 'True',
    );
    expect(upgraded.status).toHaveProperty('secretDigests');
    expect(upgraded.status).not.toHaveProperty('secretVersions');
    expect(writes(await env.calls())).toEqual([]);
  });
});
