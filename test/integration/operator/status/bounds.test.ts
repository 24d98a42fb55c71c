import type { CoreV1Event } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { condition, isReady, startOperatorEnv, type OperatorEnv } from '../support.ts';
import { until, untilValue } from '../../../support/wait.ts';

const SERVICES = '/v1/organizations/:organizationId/services';
const SERVICE = '/v1/organizations/:organizationId/services/:serviceId';

describe.skipIf(clusterSkipReason())('durations out of range and repeated failures', () => {
  let env: OperatorEnv;
  /** Node's warning for a timer beyond 2^31-1 ms, which it fires after 1 ms instead. */
  const overflows: string[] = [];
  const onWarning = (warning: Error) => {
    if (warning.name === 'TimeoutOverflowWarning') overflows.push(warning.message);
  };

  beforeAll(async () => {
    process.on('warning', onWarning);
    env = await startOperatorEnv('bounds');
    await env.startOperator();
  });
  afterEach(() => env.fault());
  afterAll(async () => {
    process.off('warning', onWarning);
    await env?.close();
  });

  const eventsOf = async (name: string, reason: string): Promise<CoreV1Event[]> =>
    (await env.core.listNamespacedEvent({ namespace: env.namespace })).items.filter(
      (e) => e.involvedObject.name === name && e.reason === reason,
    );
  const waitForEvent = async (name: string, reason: string): Promise<CoreV1Event> =>
    (
      await untilValue(
        `a ${reason} Event for ${name}`,
        () => eventsOf(name, reason),
        (e) => e.length > 0,
        20_000,
      )
    )[0]!;

  it('an out-of-range sync-interval annotation gets a Warning naming it, the default is used, no timer spins', async () => {
    await env.apply('forever', { name: 'forever' }, { 'sluice.dev/sync-interval': '720h' });
    const ready = await env.waitFor('forever', 'Ready', isReady);
    const warning = await waitForEvent('forever', 'InvalidAnnotation');
    expect(warning.type).toBe('Warning');
    expect(warning.message).toBe(
      'annotation sluice.dev/sync-interval must be between 100ms and 24h (got "720h"); using 10m',
    );

    // Ready and in sync: the next look is the default 10 minutes away, so the cloud hears nothing meanwhile.
    await env.clearCalls();
    // Reconciled twice more: each finds its last look within the 10 minutes, and reads nothing.
    await env.reconciledAgain('DatabaseService', 'forever', 2);
    const reads = (await env.calls()).filter((c) => c.path.endsWith(ready.status!.id!));
    expect(reads).toEqual([]);
    expect(overflows).toEqual([]);
  });

  it('a failure retried with the same cause writes one Warning Event and one status, not one per retry', async () => {
    await env.apply('flaky', { name: 'flaky' });
    const ready = await env.waitFor('flaky', 'Ready', isReady);
    await env.fault({ method: 'PATCH', route: SERVICE, status: 500 });
    await env.clearCalls();
    await env.patchSpec('flaky', { name: 'flaky renamed' });

    const failed = await env.waitFor(
      'flaky',
      'Synced=CloudApiError',
      (r) => condition(r, 'Synced')?.reason === 'CloudApiError',
    );
    // Each reconcile reads the service (by itself, or in the services list), then PATCHes until it gives up.
    const reconcilesSoFar = async () =>
      (await env.calls()).filter(
        (c) => c.method === 'GET' && (c.path.endsWith(ready.status!.id!) || c.route === SERVICES),
      ).length;
    // Two more reconciles fail the same way.
    const before = await reconcilesSoFar();
    await until(
      'the failure retried twice',
      async () => (await reconcilesSoFar()) >= before + 2,
      40_000,
      200,
    );
    const after = (await env.get('flaky'))!;
    expect(after.metadata!.resourceVersion).toBe(failed.metadata!.resourceVersion);
    expect(await eventsOf('flaky', 'CloudApiError')).toHaveLength(1);
    expect(condition(after, 'Synced')!.message).not.toMatch(/requestId/);
  });
});
