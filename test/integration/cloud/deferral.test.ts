import { afterEach, describe, expect, it } from 'vitest';
import type { ManagementClient } from '../../../src/cloud/management-client.ts';
import {
  FINALIZER,
  ManagedReconciler,
  type KindConnection,
  type ManagedKind,
} from '../../../src/managed/index.ts';
import { runWorkers } from '../../../src/runtime/workers.ts';
import { WorkQueue } from '../../../src/runtime/workqueue.ts';
import {
  FakeCache,
  FakeCloud,
  FakeServer,
  connected,
  fakeEvents,
  widget,
  widgetKind,
  type Widget,
} from '../../unit/managed/fakes.ts';
import { MAX_SERVER_WAIT_MS } from '../../../src/cloud/retry.ts';
import { DeferredRequestError } from '../../../src/cloud/errors.ts';
import { addFault, type Emulator, managementClient, ROUTES, startTestEmulator } from './support.ts';
import { capturedLogger } from '../../support/captured-log.ts';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
});

/** A kind whose observe makes one real cloud call with the tenant's client. */
function listingKind(): ManagedKind<Widget, ManagementClient, number> {
  const { connectionSecret: _none, ...kind } = widgetKind(new FakeCloud());
  return {
    ...kind,
    connect: (_resource, { cloud }): KindConnection<Widget, number> => {
      const external = new FakeCloud();
      external.observe = async () => {
        await cloud.listServices();
        return {
          exists: true,
          observed: {},
          diff: () => ({ differences: [], plan: 0, available: true }),
          status: {},
        };
      };
      return connected(external);
    },
  };
}

describe('a tenant whose request budget is drained', () => {
  it('does not stall another tenant’s reconcile: its own is requeued for when the budget allows', async () => {
    emu = await startTestEmulator();
    const busy = managementClient(emu, { quota: { requests: 1, windowMs: 60_000 }, maxWaitMs: 1_000 });
    const idle = managementClient(emu, { quota: false, maxWaitMs: 1_000 });
    await busy.listServices(); // drains the busy tenant's budget for a minute

    const server = new FakeServer();
    const cache = new FakeCache();
    for (const name of ['busy', 'idle']) {
      const object = widget(name);
      object.metadata.finalizers = [FINALIZER];
      object.status = { id: `w-${name}` };
      cache.set(server.put(object));
    }
    const reconciler = new ManagedReconciler({
      kind: listingKind(),
      secrets: server.secretCache(),
      cache,
      writer: server.writer(),
      events: fakeEvents().recorder,
      cloudFor: async (resource) => (resource.metadata.name === 'busy' ? busy : idle),
      syncIntervalMs: 600_000,
      pollIntervalMs: 1_000,
    });
    const queue = new WorkQueue();
    const finished: Array<{ key: string; at: number; result: unknown }> = [];
    const started = performance.now();
    const workers = runWorkers({
      queue,
      concurrency: 1,
      reconcile: async (key) => {
        const result = await reconciler.reconcile(key);
        finished.push({ key, at: performance.now() - started, result });
        return result;
      },
    });
    queue.add('ns/busy');
    queue.add('ns/idle');

    await expect.poll(() => finished.map((f) => f.key), { timeout: 3_000 }).toEqual(['ns/busy', 'ns/idle']);
    await queue.shutdown();
    await workers;
    await busy.close();
    await idle.close();

    const [deferred, served] = finished;
    expect(deferred!.result).toEqual({ requeueAfterMs: expect.any(Number) });
    expect((deferred!.result as { requeueAfterMs: number }).requeueAfterMs).toBeGreaterThan(55_000);
    expect(served!.at).toBeLessThan(1_500);
    // No failure was recorded for the busy tenant: its status was not touched.
    expect(server.get('busy').status).toEqual({ id: 'w-busy' });
  });
});

describe('a server-advised wait beyond reason', () => {
  it('is capped at the longest wait sluice honours, with a warning, and arms no timer past Node’s limit', async () => {
    const overflows: string[] = [];
    const onWarning = (warning: Error) => {
      if (warning.name === 'TimeoutOverflowWarning') overflows.push(warning.message);
    };
    process.on('warning', onWarning);
    try {
      emu = await startTestEmulator();
      const { logger, text: logged } = capturedLogger('warn');
      // 100 years: as seconds in Retry-After.
      await addFault(emu, { method: 'GET', route: ROUTES.services, status: 429, retryAfter: 3_155_760_000 });
      const client = managementClient(emu, {
        quota: { requests: 10, windowMs: 10_000 },
        maxWaitMs: 1_000,
        logger,
      });
      const refused = await client.listServices().catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(DeferredRequestError);
      expect((refused as DeferredRequestError).retryAfterMs).toBe(MAX_SERVER_WAIT_MS);
      expect(logged()).toContain('asks for a longer wait than sluice honours');
      // The key's budget is paused, not for a century: a caller waiting on it is deferred for the cap.
      const waiting = await client.listServices().catch((err: unknown) => err);
      expect((waiting as DeferredRequestError).retryAfterMs).toBeLessThanOrEqual(MAX_SERVER_WAIT_MS);
      await client.close();
      expect(overflows).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('a write the quota deferred', () => {
  it('is not told to the write listeners: it changed nothing; a write that failed once sent is', async () => {
    emu = await startTestEmulator();
    const client = managementClient(emu, { quota: { requests: 1, windowMs: 60_000 }, maxWaitMs: 1_000 });
    const told: string[] = [];
    client.onWrite(({ route }) => told.push(route));
    await client.listServices(); // drains the budget for a minute

    const deferred = await client
      .deleteService('11111111-2222-4333-8444-555555555555')
      .catch((e: unknown) => e);
    expect(deferred).toBeInstanceOf(DeferredRequestError);
    expect(told).toEqual([]);

    const sent = managementClient(emu, { quota: false });
    sent.onWrite(({ route }) => told.push(route));
    await expect(sent.deleteService('11111111-2222-4333-8444-555555555555')).rejects.toMatchObject({
      status: 404,
    });
    expect(told).toEqual([ROUTES.service]);
    await Promise.all([client.close(), sent.close()]);
  });
});
