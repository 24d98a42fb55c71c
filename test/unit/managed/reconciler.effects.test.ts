import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../../../src/kube/kube-http.ts';
import { ReconcileExecutor, type ExecutorServices } from '../../../src/managed/executor.ts';
import type { ManagedReconcilerOptions } from '../../../src/managed/reconciler.ts';
import { capturedLogger } from '../../support/captured-log.ts';
import {
  fakeEvents,
  fakeReconciler,
  SYNC_MS,
  widget,
  widgetFakes,
  type FakeCloud,
  type RecordedEvent,
  type Widget,
} from './fakes.ts';

/** The live executor, noting the Events it records. */
class NotingExecutor extends ReconcileExecutor<Widget> {
  constructor(
    draft: ConstructorParameters<typeof ReconcileExecutor<Widget>>[0],
    services: ExecutorServices<Widget>,
    private readonly noted: { events: RecordedEvent[] },
  ) {
    super(draft, services);
  }

  override event(resource: Widget, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.noted.events.push({ type, reason, message });
    super.event(resource, type, reason, message);
  }
}

type Options = Partial<ManagedReconcilerOptions<Widget, FakeCloud, number>>;

/** A widget reconciler whose executors note what they do. */
function setup(options: Options = {}, fakes = widgetFakes()) {
  const { server, cache, cloud } = fakes;
  const { recorder, events } = fakeEvents();
  const executed: RecordedEvent[] = [];
  const reconciler = fakeReconciler(server, cache, cloud, {
    events: recorder,
    executor: (draft, services) => new NotingExecutor(draft, services, { events: executed }),
    ...options,
  });
  return {
    ...fakes,
    /** Every Event the recorder was given. */
    events,
    /** The Events the reconciles' executors recorded. */
    executed,
    apply(object: Widget) {
      cache.set(server.put(object));
      reconciler.onCacheChange(`ns/${object.metadata.name}`);
    },
    /** The cache catches up with the server, as the watch delivers its writes. */
    sync(name: string) {
      cache.set(server.get(name));
      reconciler.onCacheChange(`ns/${name}`);
    },
    reconcile: (name: string) => reconciler.reconcile(`ns/${name}`),
  };
}

describe("a reconcile's Events are its executor's", () => {
  it('records the Warning of a refused status write through the executor, and logs it', async () => {
    const { logger, text } = capturedLogger('warn');
    const fakes = widgetFakes();
    const writer = fakes.server.writer();
    const accept = writer.patchStatus;
    let writes = 0;
    writer.patchStatus = async (kind, resource, status) => {
      if (writes++ > 0) return accept(kind, resource, status);
      throw new KubeApiError(422, undefined, 'status.size: Invalid value: must be at most 4');
    };
    const t = setup({ writer, logger }, fakes);

    t.apply(widget('a'));
    await t.reconcile('a');

    const refused = t.events.filter((event) => event.reason === 'StatusRefused');
    expect(refused).toEqual([
      {
        type: 'Warning',
        reason: 'StatusRefused',
        message: expect.stringContaining('status.size: Invalid value: must be at most 4'),
      },
    ]);
    expect(t.executed).toEqual(t.events);
    expect(text()).toContain('status write refused');
  });

  it('warns of an invalid sync-interval annotation through the executor wherever the interval is read, the default used', async () => {
    const t = setup();
    const often = widget('a');
    often.metadata.annotations = { 'sluice.dev/sync-interval': 'often' };
    const warnings = () => t.events.filter((event) => event.reason === 'InvalidAnnotation');

    // Created: the interval is not read while the cloud is still making it.
    t.apply(often);
    await t.reconcile('a');
    t.sync('a');
    expect(warnings()).toEqual([]);

    // Ready: the next look is a drift check, after the default interval.
    t.cloud.widgets.get(t.server.get('a').status!.id!)!.ready = true;
    await expect(t.reconcile('a')).resolves.toEqual({ resyncAfterMs: SYNC_MS });
    t.sync('a');
    expect(warnings()).toHaveLength(1);

    // A drift check reads it twice (how old a snapshot may be, when to look next); the recorder holds back
    // the repeat of the same words.
    await expect(t.reconcile('a')).resolves.toEqual({ resyncAfterMs: SYNC_MS });
    expect(warnings()).toHaveLength(3);
    expect(warnings()[0]).toEqual({
      type: 'Warning',
      reason: 'InvalidAnnotation',
      message: expect.stringMatching(/^annotation sluice\.dev\/sync-interval .*; using 10m$/),
    });
    expect(t.executed).toEqual(t.events);
  });
});
