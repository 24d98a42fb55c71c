import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Controller } from '../../../src/runtime/controller.ts';
import { ManagedReconciler } from '../../../src/managed/reconciler.ts';
import { ANNOTATIONS } from '../../../src/managed/index.ts';
import { OperatorMetrics } from '../../../src/runtime/metrics.ts';
import {
  acceptingWriter,
  FakeCache,
  FakeCloud,
  fakeEvents,
  widget,
  widgetKind,
  type Widget,
} from '../managed/fakes.ts';

const until = { timeout: 5_000, interval: 10 };

describe('Controller event filter', () => {
  let controller: Controller<Widget> | undefined;
  const metrics = new OperatorMetrics();
  const cache = new FakeCache();
  let current: Widget;

  afterEach(async () => {
    await controller?.stop();
  });

  async function reconciles(): Promise<number> {
    const { values } = await metrics.registry.getSingleMetric('controller_runtime_reconcile_total')!.get();
    return values.filter((v) => v.labels.controller === 'widget').reduce((sum, v) => sum + v.value, 0);
  }

  /** Starts a controller for widgets (without connection Secrets) and waits for the first reconcile. */
  async function start(): Promise<void> {
    const cloud = new FakeCloud();
    cloud.widgets.set('w-1', { size: 1, ready: true, uid: 'uid-a' });
    const { connectionSecret: _none, ...kind } = widgetKind(cloud);
    current = widget('a');
    cache.set(current);
    controller = new Controller<Widget>({
      kind: kind.kind,
      cache,
      reconciler: new ManagedReconciler({
        kind,
        cache,
        writer: acceptingWriter(),
        events: fakeEvents().recorder,
        cloudFor: async () => cloud,
        secrets: { get: () => undefined },
        syncIntervalMs: 600_000,
        pollIntervalMs: 600_000,
      }),
      concurrency: 1,
      metrics,
      logger: pino({ enabled: false }),
    });
    controller.start();
    const before = await reconciles();
    controller.onResourceChange('ns/a');
    await vi.waitFor(async () => expect(await reconciles()).toBe(before + 1), until);
  }

  /** Changes the cached widget as a watch event would, and says whether that caused a reconcile. */
  async function reconcilesAfter(change: (object: Widget) => void): Promise<boolean> {
    const before = await reconciles();
    const object = structuredClone(current);
    change(object);
    cache.set(object);
    current = object;
    controller!.onResourceChange('ns/a');
    await new Promise((resolve) => setTimeout(resolve, 50));
    return (await reconciles()) > before;
  }

  it('ignores changes to status and other fields the reconciler does not act on', async () => {
    await start();
    expect(await reconcilesAfter((o) => (o.status = { id: 'w-1', observedGeneration: 1 }))).toBe(false);
    expect(await reconcilesAfter((o) => (o.metadata.labels = { team: 'x' }))).toBe(false);
    expect(await reconcilesAfter((o) => (o.metadata.resourceVersion = '99'))).toBe(false);
    // The create intent is sluice's own write, like status.
    const intent = { [ANNOTATIONS.createPending]: '2026-01-01T00:00:00Z' };
    expect(await reconcilesAfter((o) => (o.metadata.annotations = intent))).toBe(false);
  });

  it('reconciles when the spec (generation), the annotations or the deletion changes', async () => {
    await start();
    expect(
      await reconcilesAfter((o) => {
        o.spec.size = 2;
        o.metadata.generation = 2;
      }),
    ).toBe(true);
    expect(await reconcilesAfter((o) => (o.metadata.annotations = { 'sluice.dev/drift': 'report' }))).toBe(
      true,
    );
    expect(await reconcilesAfter((o) => (o.metadata.deletionTimestamp = '2026-01-01T00:00:00Z'))).toBe(true);
  });

  it('reconciles a key whose object was deleted', async () => {
    await start();
    const before = await reconciles();
    cache.remove(current);
    controller!.onResourceChange('ns/a');
    await vi.waitFor(async () => expect(await reconciles()).toBe(before + 1), until);
  });
});
