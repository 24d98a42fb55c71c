import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/cloud/errors.ts';
import { ReconcileError } from '../../../src/managed/errors.ts';
import { fakeReconciler, failingWith, readyWidgetIn, widget, widgetFakes } from './fakes.ts';

/** What the cloud answers when it fails a request: a 500 the reconciler retries with backoff. */
function serverError(method: string, route: string): ApiError {
  return new ApiError({
    api: 'management',
    method,
    route,
    path: route.replace(':id', 'w-1'),
    status: 500,
    code: 'INTERNAL',
    apiMessage: 'internal error',
    attempts: 1,
    retryable: true,
    mayHaveSucceeded: method !== 'GET',
  });
}

function setup() {
  const fakes = widgetFakes();
  const { server, cache, cloud } = fakes;
  const reconciler = fakeReconciler(server, cache, cloud);
  const t = {
    ...fakes,
    /** Reconciles `a`, then lets the cache see what the reconcile wrote; a failure is returned, not thrown. */
    async reconcile(): Promise<unknown> {
      let failure: unknown;
      await reconciler.reconcile('ns/a').catch((error: unknown) => (failure = error));
      cache.set(server.get('a'));
      return failure;
    },
    condition: (type: string) => server.get('a').status?.conditions?.find((c) => c.type === type),
    /** A user edits the spec; the cache sees it. */
    edit(size: number) {
      cache.set(server.editSpec('a', { size }));
    },
  };
  return t;
}

/** Ready=False for a failed sync of the spec's `generation`. */
const syncFailed = (generation: number) => ({
  status: 'False',
  reason: 'SyncFailed',
  observedGeneration: generation,
});

/** Creates widget `a` and reconciles it until Ready=True. */
async function readyWidget() {
  const t = await readyWidgetIn(setup());
  expect(t.condition('Ready')).toMatchObject({ status: 'True', observedGeneration: 1 });
  return t;
}

describe('ManagedReconciler status when making the cloud match the spec fails', () => {
  it('a spec edit whose update the cloud fails: Ready=False (SyncFailed) for the new generation, not the old Ready=True', async () => {
    const t = await readyWidget();
    t.cloud.update = failingWith(serverError('PATCH', '/widgets/:id'));
    t.edit(2);

    expect(await t.reconcile()).toBeInstanceOf(ApiError);

    const status = t.server.get('a').status!;
    expect(status.observedGeneration).toBe(2);
    expect(t.condition('Synced')).toMatchObject({ status: 'False', reason: 'CloudApiError' });
    expect(t.condition('Ready')).toMatchObject(syncFailed(2));
    expect(t.condition('Ready')!.message).toContain('500 INTERNAL');
    expect(t.cloud.widgets.get('w-1')!.size).toBe(1);
  });

  it('drift the update cannot undo: Ready=False although the generation did not move', async () => {
    const t = await readyWidget();
    t.cloud.widgets.get('w-1')!.size = 5;
    t.cloud.update = failingWith(serverError('PATCH', '/widgets/:id'));

    await t.reconcile();

    expect(t.condition('Ready')).toMatchObject(syncFailed(1));
  });

  it('a failed look at a resource that matched this very spec keeps Ready=True: a transient 500 does not flap it', async () => {
    const t = await readyWidget();
    const readyBefore = t.condition('Ready');
    const observe = t.cloud.observe.bind(t.cloud);
    t.cloud.observe = failingWith(serverError('GET', '/widgets/:id'));

    await t.reconcile();

    expect(t.condition('Synced')).toMatchObject({ status: 'False', reason: 'CloudApiError' });
    expect(t.condition('Ready')).toEqual(readyBefore);

    t.cloud.observe = observe;
    await t.reconcile();
    expect(t.condition('Synced')).toMatchObject({ status: 'True' });
    expect(t.condition('Ready')).toEqual(readyBefore);
  });

  it('a failed look after a spec edit: Ready=False, the new generation was not applied', async () => {
    const t = await readyWidget();
    t.cloud.observe = failingWith(serverError('GET', '/widgets/:id'));
    t.edit(2);

    await t.reconcile();

    expect(t.server.get('a').status!.observedGeneration).toBe(2);
    expect(t.condition('Ready')).toMatchObject(syncFailed(2));
  });

  it('a failed poll while the cloud is still creating keeps Ready=False with its own reason', async () => {
    const t = setup();
    t.cache.set(t.server.put(widget('a')));
    await t.reconcile();
    expect(t.condition('Ready')).toMatchObject({ status: 'False', reason: 'Creating' });
    t.cloud.observe = failingWith(serverError('GET', '/widgets/:id'));

    await t.reconcile();

    expect(t.condition('Ready')).toMatchObject({ status: 'False', reason: 'Creating' });
  });

  it('a create the cloud fails: Ready=False (SyncFailed) from the first reconcile', async () => {
    const t = setup();
    t.cache.set(t.server.put(widget('a')));
    t.cloud.create = failingWith(serverError('POST', '/widgets'));

    await t.reconcile();

    expect(t.condition('Ready')).toMatchObject(syncFailed(1));
  });

  it('a failure that changes while the spec does not: Ready says the current one, as Synced does, never a stale one', async () => {
    const t = setup();
    t.cache.set(t.server.put(widget('a')));
    // Before anything is sent, as a Secret the spec references is read.
    const missing = (message: string) => async () => {
      throw new ReconcileError('SecretMissing', message, 30_000);
    };
    t.cloud.ensureCreatable = missing('Secret ns/db not found');
    await t.reconcile();
    t.cloud.ensureCreatable = missing('Secret ns/db has no key password');
    await t.reconcile();

    expect(t.condition('Synced')).toMatchObject({ message: 'Secret ns/db has no key password' });
    expect(t.condition('Ready')).toMatchObject({
      reason: 'SyncFailed',
      message: expect.stringMatching(/: Secret ns\/db has no key password$/),
    });
  });

  it('Ready=True again once the cloud takes the update', async () => {
    const t = await readyWidget();
    const update = t.cloud.update.bind(t.cloud);
    t.cloud.update = failingWith(serverError('PATCH', '/widgets/:id'));
    t.edit(2);
    await t.reconcile();
    expect(t.condition('Ready')).toMatchObject({ status: 'False', reason: 'SyncFailed' });

    t.cloud.update = update;
    await t.reconcile();
    expect(t.condition('Ready')).toMatchObject({ status: 'False', reason: 'Updating' });
    await t.reconcile();
    expect(t.condition('Ready')).toMatchObject({ status: 'True', observedGeneration: 2 });
    expect(t.condition('Synced')).toMatchObject({ status: 'True' });
  });
});
