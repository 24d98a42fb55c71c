// The procedure of docs/operations.md "Uninstalling: delete the objects first", walked with kubectl: what must
// stay is moved to Orphan or Observe, then `kubectl delete sluice --all --wait` while the operator still runs,
// so each object runs its deletion policy. (`helm uninstall` itself: test/integration/node/chart.uninstall.)
import { describe, expect, it } from 'vitest';
import { tileAlert } from '../../../../tools/fixtures/alert.ts';
import { teamKey } from '../../../../tools/fixtures/api-key.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { isReady, isReadyWithId, kubectlIn, useOperatorEnv, type SluiceObject } from '../support.ts';

describe.skipIf(clusterSkipReason())('uninstalling as docs/operations.md says', () => {
  const env = useOperatorEnv('uninstall-steps');
  const kubectl = (...args: string[]) => kubectlIn(env)(...args);
  const settled = (o: SluiceObject | undefined) =>
    o?.status?.observedGeneration === o?.metadata.generation && isReady(o);

  it('keeps in the cloud what was moved to Orphan or Observe, deletes what stayed Delete, and leaves no sluice object', async () => {
    await env.apply('kept', { name: 'kept' });
    await env.apply('watched', { name: 'watched' });
    await env.of('Alert').apply('kept-alert', tileAlert('kept-alert'));
    await env.of('Alert').apply('removed-alert', tileAlert('removed-alert'));
    const ids: Record<string, string> = {};
    for (const name of ['kept', 'watched'])
      ids[name] = (await env.waitFor(name, 'Ready', isReadyWithId)).status!.id!;
    for (const name of ['kept-alert', 'removed-alert'])
      ids[name] = (await env.of<SluiceObject>('Alert').waitFor(name, 'Ready', isReadyWithId)).status!.id!;

    // Step 1: what must stay, moved to Orphan or Observe, and seen observed in its new generation.
    await kubectl(
      'patch',
      'alert',
      'kept-alert',
      '--type',
      'merge',
      '-p',
      '{"spec":{"deletionPolicy":"Orphan"}}',
    );
    kubectl(
      'patch',
      'databaseservice',
      'watched',
      '--type',
      'merge',
      '-p',
      '{"spec":{"managementPolicy":"Observe"}}',
    );
    await env.of<SluiceObject>('Alert').waitFor('kept-alert', 'Orphan observed', settled);
    await env.waitFor('watched', 'Observe observed', settled);

    // Step 2: every sluice object deleted while the operator runs, each by its own policy.
    await kubectl('delete', 'sluice', '--all', '--wait');
    expect((await kubectl('get', 'sluice', '-o', 'name')).trim()).toBe('');

    const { services, alerts } = env.emulator.store;
    expect(services.has(ids.kept!)).toBe(true); // a service's default: Orphan
    expect(services.has(ids.watched!)).toBe(true); // Observe: never deleted
    expect(alerts.has(ids['kept-alert']!)).toBe(true);
    expect(alerts.has(ids['removed-alert']!)).toBe(false); // an alert's default: Delete
  });

  it('deletes a team’s ApiKey after the objects signing in with it: each runs its policy with the key, and no call is refused', async () => {
    const credentialsRef = { name: 'team-credentials' };
    await env.of('ApiKey').apply('team', teamKey('team', { credentialsSecret: credentialsRef }));
    const key = (await env.of<SluiceObject>('ApiKey').waitFor('team', 'Ready', isReadyWithId, 60_000)).status!
      .id!;
    await env.apply('team-doomed', { name: 'team doomed', deletionPolicy: 'Delete', credentialsRef });
    await env.apply('team-kept', { name: 'team kept', credentialsRef });
    const ids: Record<string, string> = {};
    for (const name of ['team-doomed', 'team-kept'])
      ids[name] = (await env.waitFor(name, 'Ready', isReadyWithId)).status!.id!;

    await kubectl('delete', 'sluice', '--all', '--wait');
    expect((await kubectl('get', 'sluice', '-o', 'name')).trim()).toBe('');

    const { services, apiKeys } = env.emulator.store;
    expect(services.has(ids['team-doomed']!)).toBe(false);
    expect(services.has(ids['team-kept']!)).toBe(true);
    expect(apiKeys.has(key)).toBe(false);
    expect((await env.calls()).filter((c) => c.status === 401)).toEqual([]);
  });
});
