import { describe, expect, it, onTestFinished } from 'vitest';
import type { Alert } from '../../../src/kinds/alert/schema.ts';
import { CloudSnapshots } from '../../../src/cloud/key-snapshots.ts';
import { alertController } from '../../../src/kinds/alert/controller.ts';
import type { CloudConnection } from '../../../src/cloud-access/connection.ts';
import { ALERTS, tileAlert } from '../../../tools/fixtures/alert.ts';
import { addFault, alertingClient, calls, managementClient, useEmulator } from './support.ts';

// Reset before each test: no objects, no calls in the log.
const emu = useEmulator();

/** The alert kind's client over the real HTTP stack and one key's snapshots, as a reconcile connects it. */
function alertClient(resource: Alert) {
  const alerting = alertingClient(emu);
  const cloud: CloudConnection = {
    management: managementClient(emu),
    alerting,
    snapshots: new CloudSnapshots({ alerting, clock: { now: () => Date.now() } }),
    freshnessMs: 60_000,
  };
  const { client, records } = alertController.connect(resource, {
    cloud,
    references: {},
    secrets: { values: () => undefined, rotated: new Set(), digests: undefined, rebaselined: [] },
    claimedBy: () => undefined,
    owner: { cluster: 'test', namespace: 'default', kind: 'Alert', name: resource.metadata.name },
    connectionSecret: () => undefined,
  });
  const close = async () => {
    await Promise.all([alerting.close(), cloud.management.close()]);
  };
  return { client, records, cloud, close };
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('the look-up after a create whose answer was lost', () => {
  it('finds the alert the create made, though a list that started after the intent was answered before it', async () => {
    const resource = {
      apiVersion: 'sluice.dev/v1alpha1',
      kind: 'Alert',
      metadata: { name: 'lost', namespace: 'ns', uid: 'uid-lost' },
      spec: tileAlert('lost'),
    } as unknown as Alert;
    const { client, records, cloud, close } = alertClient(resource);
    onTestFinished(close);
    const intent = new Date();

    // Another object's list starts after the intent; the cloud answers it before the create arrives, and
    // the answer reaches sluice only later.
    await addFault(emu, { method: 'GET', route: ALERTS, phase: 'response', latencyMs: 400, count: 1 });
    const earlyList = cloud.snapshots.alerts.refresh(0);
    await until(async () => (await calls(emu)).some((c) => c.method === 'GET' && c.route === ALERTS));
    // The create is made, and its answer is lost.
    await addFault(emu, { method: 'POST', route: ALERTS, phase: 'response', drop: true, count: 1 });
    await expect(client.create(resource)).rejects.toThrow();
    const ended = new Date();
    const made = [...emu.store.alerts.values()].filter((a) => a.name === 'lost');
    expect(made).toHaveLength(1);

    // That list, though it started after the intent, cannot show the alert: searching it would create again.
    expect(await records.findCreated(resource, { intent, listedAfter: intent })).toBeUndefined();
    await earlyList;

    // Searched from a list that started after the create ended, as the reconciler asks, the alert is found.
    expect(await records.findCreated(resource, { intent, listedAfter: ended })).toBe(made[0]!.id);
  });
});
