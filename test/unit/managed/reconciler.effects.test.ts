import { describe, expect, it } from 'vitest';
import { reasonNames } from '../../../src/base/reasons.ts';
import { KubeApiError } from '../../../src/kube/kube-http.ts';
import { ReconcileError } from '../../../src/managed/errors.ts';
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

/** The live executor, noting the Events it records, the credentials holds it makes and its Secret writes. */
class NotingExecutor extends ReconcileExecutor<Widget> {
  constructor(
    draft: ConstructorParameters<typeof ReconcileExecutor<Widget>>[0],
    services: ExecutorServices<Widget>,
    private readonly noted: { events: RecordedEvent[]; calls: string[] },
  ) {
    super(draft, services);
    const hold = this.holdCredentials;
    this.holdCredentials = async (...args) => {
      this.noted.calls.push('executor holds');
      await hold(...args);
    };
  }

  override event(resource: Widget, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.noted.events.push({ type, reason, message });
    super.event(resource, type, reason, message);
  }

  override async publish(...args: Parameters<ReconcileExecutor<Widget>['publish']>): Promise<void> {
    this.noted.calls.push('executor publishes');
    await super.publish(...args);
  }
}

type Options = Partial<ManagedReconcilerOptions<Widget, FakeCloud, number>>;

/** Executors whose `operation` does nothing: what a reconcile leaves undone when only the executor does it. */
function executorSkipping(operation: 'holdCredentials' | 'publish'): Options['executor'] {
  return (draft, services) => {
    const executor = new ReconcileExecutor<Widget>(draft, services);
    executor[operation] = async () => {};
    return executor;
  };
}

/**
 * A widget reconciler whose executors note what they do. `cloud.calls` tells, in order, the credentials
 * holds (the executor's, then the hold itself), the connects and the cloud's own calls.
 */
function setup(options: Options = {}, fakes = widgetFakes()) {
  const { server, cache, cloud } = fakes;
  const { recorder, events } = fakeEvents();
  const executed: RecordedEvent[] = [];
  const reconciler = fakeReconciler(server, cache, cloud, {
    events: recorder,
    holdCredentials: async () => {
      cloud.calls.push('hold');
    },
    cloudFor: async () => {
      cloud.calls.push('connect');
      return cloud;
    },
    executor: (draft, services) =>
      new NotingExecutor(draft, services, { events: executed, calls: cloud.calls }),
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

type Setup = ReturnType<typeof setup>;

/** Widget `a` reconciled until Ready, the cache in step after each pass; its cloud calls forgotten. */
async function readyWidget(t: Setup, object = widget('a')): Promise<string> {
  t.apply(object);
  await t.reconcile('a');
  t.sync('a');
  const id = t.server.get('a').status!.id!;
  t.cloud.widgets.get(id)!.ready = true;
  await t.reconcile('a');
  t.sync('a');
  t.cloud.calls.length = 0;
  return id;
}

function deleting(t: Setup, deletionPolicy: 'Delete' | 'Orphan'): void {
  const object = t.server.get('a');
  object.spec.deletionPolicy = deletionPolicy;
  object.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  t.cache.set(t.server.put(object));
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

describe("the credentials hold is the reconcile's executor's", () => {
  it('holds the credentials before the first cloud call', async () => {
    const t = setup();
    t.apply(widget('a'));

    await t.reconcile('a');

    expect(t.cloud.calls.slice(0, 3)).toEqual(['executor holds', 'hold', 'connect']);
    expect(t.cloud.calls).toContain('create');
  });

  it('holds them before a deletion deletes in the cloud', async () => {
    const t = setup();
    await readyWidget(t);
    deleting(t, 'Delete');

    await t.reconcile('a');

    expect(t.cloud.calls).toEqual(['executor holds', 'hold', 'connect', 'delete']);
  });

  it('holds nothing for a reconcile that makes no cloud call', async () => {
    const paused = setup();
    const object = widget('a');
    object.metadata.annotations = { 'sluice.dev/paused': 'true' };
    paused.apply(object);
    await paused.reconcile('a');
    expect(paused.cloud.calls).toEqual([]);

    const { RoleNotAllowed } = reasonNames({ RoleNotAllowed: { means: 'a role no one may have' } });
    const refusal = ReconcileError.terminal(RoleNotAllowed, 'the administrator allows no such role', 60_000);
    const refused = setup({ policyRefusal: () => refusal });
    refused.apply(widget('a'));
    await expect(refused.reconcile('a')).rejects.toBe(refusal);
    expect(refused.cloud.calls).toEqual([]);

    const orphaned = setup();
    await readyWidget(orphaned);
    deleting(orphaned, 'Orphan');
    await orphaned.reconcile('a');
    expect(orphaned.cloud.calls).toEqual([]);
    expect(orphaned.server.get('a').metadata.finalizers).toEqual([]);
  });

  it('is held by nothing but the executor: one that holds nothing lets no hold through', async () => {
    const t = setup({ executor: executorSkipping('holdCredentials') });
    t.apply(widget('a'));

    await t.reconcile('a');

    expect(t.cloud.calls).not.toContain('hold');
    expect(t.cloud.calls).toContain('create');
  });
});

describe("the connection Secret's writes are the reconcile's executor's", () => {
  it('writes what keeps the Secret complete through the executor', async () => {
    const t = setup();
    await readyWidget(t);
    delete t.server.secrets.get('a-connection')!.data.host;

    await t.reconcile('a');

    expect(t.cloud.calls).toContain('executor publishes');
    expect(t.server.secrets.get('a-connection')!.data.host).toBe('w-1.example');
  });

  it('is written by nothing but the executor: one that publishes nothing leaves no Secret', async () => {
    const t = setup({ executor: executorSkipping('publish') });

    // Created, then kept complete: the password the create returned, then the one recovered for it.
    await readyWidget(t);
    await t.reconcile('a');

    expect(t.server.secrets.size).toBe(0);
  });
});
