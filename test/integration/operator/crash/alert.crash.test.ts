import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { ALERTS, tileAlert } from '../../../../tools/fixtures/alert.ts';
import { crashBesideLookAlike, type SluiceObject, useOperatorEnv, isReadyWithId } from '../support.ts';

describe.skipIf(clusterSkipReason())('crash-safe alert create (no tags: the create intent)', () => {
  const env = useOperatorEnv('alert-crash', { operator: false });

  it('after a kill -9 between the alert POST and the status write, exactly one alert exists and is adopted, and a foreign look-alike is not', async () => {
    // Someone else's alert with the same name on the same tile, created before sluice records its intent.
    const spec = tileAlert('phoenix');
    const foreign = await env.alerting.createAlert(spec);
    const alertsNamed = () => [...env.emulator.store.alerts.values()].filter((a) => a.name === 'phoenix');

    const { orphaned } = await crashBesideLookAlike(
      env,
      { kind: 'Alert', name: 'phoenix', spec },
      { route: ALERTS, named: alertsNamed, foreignId: foreign.id },
      // The list that finds the lost create serves the observe that follows while it is younger than the
      // poll interval: at the tests' 200 ms a loaded machine's pause between the two made that a race.
      { pollInterval: '5s' },
    );
    expect(orphaned.status?.id).toBeUndefined();
    expect(orphaned.metadata.annotations?.['sluice.dev/create-pending']).toBeDefined();
    const calls = await env.calls();
    expect(calls.filter((c) => c.method === 'GET' && c.route === ALERTS)).toHaveLength(1);

    // Deleting it deletes ours only: the foreign alert was never taken over.
    await env.of('Alert').remove('phoenix');
    await env.of<SluiceObject>('Alert').waitFor('phoenix', 'gone', (a) => a === undefined);
    expect(alertsNamed().map((a) => a.id)).toEqual([foreign.id]);
  });

  it('without an intent, an alert of the same name is never adopted: a new one is created', async () => {
    if (!env.operator) await env.startOperator();
    const spec = tileAlert('twin');
    const foreign = await env.alerting.createAlert(spec);
    await env.of('Alert').apply('twin', spec);
    const ready = await env.of<SluiceObject>('Alert').waitFor('twin', 'Ready', isReadyWithId);
    expect(ready.status!.id).not.toBe(foreign.id);
    expect([...env.emulator.store.alerts.values()].filter((a) => a.name === 'twin')).toHaveLength(2);
  });
});
