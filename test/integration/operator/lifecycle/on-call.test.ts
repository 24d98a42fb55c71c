// The on-call procedures of docs/operations.md ("On call"), walked with kubectl as the page gives them: a
// deletion that cannot end, and which namespaces use which credentials.
import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { until } from '../../../support/wait.ts';
import { teamKey } from '../../../../tools/fixtures/api-key.ts';
import { condition, isReadyWithId, kubectlIn, useOperatorEnv, type SluiceObject } from '../support.ts';

/** A key secret of the right form that the cloud does not know: a revoked key. */
const REVOKED_SECRET = `4b1d${'x'.repeat(36)}`;

describe.skipIf(clusterSkipReason())('on call, as docs/operations.md says', () => {
  const env = useOperatorEnv('on-call');
  const kubectl = (...args: string[]) => kubectlIn(env)(...args);

  it('a deletion stuck on a refused key ends with deletionPolicy Orphan; the cloud object is then deleted by hand', async () => {
    await env.putCredentials('revoked-key');
    await env.apply('stuck', {
      name: 'stuck',
      deletionPolicy: 'Delete',
      credentialsRef: { name: 'revoked-key' },
    });
    const id = (await env.waitFor('stuck', 'Ready', isReadyWithId)).status!.id!;
    // The key is revoked under the object: every call with it is refused (401), its delete too.
    const credentials = (await env.secret('revoked-key'))!;
    await env.putSecret('revoked-key', { ...credentials, keySecret: REVOKED_SECRET });
    await env.remove('stuck');
    await env.waitFor(
      'stuck',
      'the deletion refused',
      (o) =>
        condition(o, 'Synced')?.status === 'False' &&
        /401|UNAUTHORIZED/.test(condition(o, 'Synced')!.message ?? ''),
      30_000,
    );

    // It stays: the operator tries again and is refused again.
    await env.reconciledAgain('DatabaseService', 'stuck');
    expect(await env.get('stuck')).toBeDefined();

    // Step 1: what holds it: the SYNCED reason (and `kubectl describe`'s condition message, the 401).
    const row = await kubectl('get', 'databaseservice', 'stuck', '--no-headers');
    expect(row).toContain('CloudRequestRejected');
    // Step 2: let the cloud object go unmanaged: the finalizer comes off, nothing is sent.
    await kubectl(
      'patch',
      'databaseservice',
      'stuck',
      '--type',
      'merge',
      '-p',
      '{"spec":{"deletionPolicy":"Orphan"}}',
    );
    await env.waitFor('stuck', 'gone', (o) => o === undefined);
    expect(env.emulator.store.services.has(id)).toBe(true);
    // Step 3: the cloud object by hand, with a key that works (the console does the same): stop, then delete.
    await env.cloud.changeServiceState(id, 'stop');
    await until('the service stopped', () => env.emulator.store.services.get(id)?.state === 'stopped');
    await env.cloud.deleteService(id);
    await until('the service deleted', () => !env.emulator.store.services.has(id));
  });

  it('lists which namespaces use which credentials, from status.credentials', async () => {
    await env.of('ApiKey').apply('team', teamKey('team'));
    await env.of<SluiceObject>('ApiKey').waitFor('team', 'Ready', isReadyWithId, 60_000);
    await env.apply('by-operator', { name: 'by operator' });
    await env.apply('by-team', { name: 'by team', credentialsRef: { name: 'team-credentials' } });
    for (const name of ['by-operator', 'by-team']) await env.waitFor(name, 'Ready', isReadyWithId);

    // The page's command: every object's namespace and credentials, then each pair once.
    const table = await kubectl(
      'get',
      'sluice',
      '-A',
      '--no-headers',
      '-o',
      'custom-columns=NAMESPACE:.metadata.namespace,CREDENTIALS:.status.credentials',
    );
    const pairs = [
      ...new Set(
        table
          .trim()
          .split('\n')
          .map((line) => line.trim().split(/\s+/).join(' ')),
      ),
    ];
    const ours = pairs.filter((pair) => pair.startsWith(`${env.namespace} `)).sort();
    expect(ours).toEqual([`${env.namespace} (operator)`, `${env.namespace} team-credentials`]);
  });
});
