import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../harness/testCluster.ts';
import { ALERTS, tileAlert } from './alert-fixtures.ts';
import { isReady, startOperatorEnv, type OperatorEnv, type SluiceObject } from './support.ts';

describe.skipIf(clusterSkipReason())('crash-safe alert create (no tags: the create intent)', () => {
  let env: OperatorEnv;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    env = await startOperatorEnv('alert-crash');
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await env?.close();
  });

  it('after a kill -9 between the alert POST and the status write, exactly one alert exists and is adopted, and a foreign look-alike is not', async () => {
    // Someone else's alert with the same name on the same tile, created before sluice records its intent.
    const spec = tileAlert('phoenix');
    const foreign = await env.alerting.createAlert(spec);
    const alertsNamed = () => [...env.emulator.store.alerts.values()].filter((a) => a.name === 'phoenix');

    // The emulator creates the alert but holds its answer back, so the operator dies knowing no id.
    await env.fault({ method: 'POST', route: ALERTS, phase: 'response', latencyMs: 60_000 });
    child = env.spawnOperator();
    await env.of('Alert').apply('phoenix', spec);
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && alertsNamed().length < 2) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    expect(alertsNamed()).toHaveLength(2);
    const orphaned = (await env.of<SluiceObject>('Alert').get('phoenix'))!;
    expect(orphaned.status?.id).toBeUndefined();
    expect(orphaned.metadata.annotations?.['sluice.dev/create-pending']).toBeDefined();

    await env.fault();
    await env.clearCalls();
    await env.startOperator();
    const ready = await env
      .of<SluiceObject>('Alert')
      .waitFor('phoenix', 'Ready after restart', (a) => isReady(a) && a?.status?.id !== undefined);

    const ours = alertsNamed().find((a) => a.id !== foreign.id)!;
    expect(ready.status!.id).toBe(ours.id);
    expect(alertsNamed()).toHaveLength(2);
    const calls = await env.calls();
    expect(calls.filter((c) => c.method === 'POST' && c.route === ALERTS)).toHaveLength(0);
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
    const ready = await env
      .of<SluiceObject>('Alert')
      .waitFor('twin', 'Ready', (a) => isReady(a) && a?.status?.id !== undefined);
    expect(ready.status!.id).not.toBe(foreign.id);
    expect([...env.emulator.store.alerts.values()].filter((a) => a.name === 'twin')).toHaveLength(2);
  });
});
