// Reconciling and Stalled, the conditions kstatus (Flux, kpt) reads, as the reconciler writes them.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/cloud/errors.ts';
import { reasonNames, type KindReasons } from '../../../src/base/reasons.ts';
import {
  fakeReconciler,
  failingWith,
  observedAlso,
  readyWidgetIn,
  widget,
  widgetFakes,
  widgetKind,
} from './fakes.ts';

function apiError(status: number, code: string, apiMessage: string): ApiError {
  return new ApiError({
    api: 'management',
    method: 'PATCH',
    route: '/widgets/:id',
    path: '/widgets/w-1',
    status,
    code,
    apiMessage,
    attempts: 1,
    retryable: status >= 500,
    mayHaveSucceeded: false,
  });
}

/** Widgets whose kind states `reasons` as its own. */
function setup(reasons?: KindReasons) {
  const fakes = widgetFakes();
  const { server, cache, cloud } = fakes;
  const kind = { ...widgetKind(cloud), ...(reasons ? { reasons } : {}) };
  const reconciler = fakeReconciler(server, cache, cloud, { kind });
  return {
    ...fakes,
    async reconcile(): Promise<void> {
      await reconciler.reconcile('ns/a').catch(() => undefined);
      cache.set(server.get('a'));
    },
    /** The progress conditions as written: type, reason and message. */
    progress: () =>
      (server.get('a').status?.conditions ?? [])
        .filter((c) => c.type === 'Reconciling' || c.type === 'Stalled')
        .map(({ type, status, reason, message }) => ({ type, status, reason, message })),
    edit(size: number) {
      cache.set(server.editSpec('a', { size }));
    },
  };
}

const readyWidget = () => readyWidgetIn(setup());

describe('ManagedReconciler progress conditions (kstatus)', () => {
  it('Reconciling=True while the cloud creates the resource, with Ready’s reason and message', async () => {
    const t = setup();
    t.cache.set(t.server.put(widget('a')));
    await t.reconcile();
    expect(t.progress()).toEqual([
      { type: 'Reconciling', status: 'True', reason: 'Creating', message: 'Widget is being created' },
    ]);
  });

  it('neither condition once Ready=True', async () => {
    const t = await readyWidget();
    expect(t.progress()).toEqual([]);
  });

  it('a spec the cloud refuses for good (400): Stalled=True with the cloud’s message, no Reconciling', async () => {
    const t = await readyWidget();
    t.cloud.update = failingWith(apiError(400, 'BAD_REQUEST', 'size is not allowed'));
    t.edit(2);
    await t.reconcile();
    expect(t.progress()).toEqual([
      {
        type: 'Stalled',
        status: 'True',
        reason: 'CloudRequestRejected',
        message: 'PATCH /widgets/:id failed: 400 BAD_REQUEST: size is not allowed',
      },
    ]);
  });

  it('a failure a retry may end (500): Reconciling=True, not Stalled', async () => {
    const t = await readyWidget();
    t.cloud.update = failingWith(apiError(500, 'INTERNAL', 'internal error'));
    t.edit(2);
    await t.reconcile();
    expect(t.progress()).toMatchObject([{ type: 'Reconciling', status: 'True', reason: 'SyncFailed' }]);
  });

  it('Stalled stays while the refusal repeats, and goes once the spec is fixed', async () => {
    const t = await readyWidget();
    const update = t.cloud.update.bind(t.cloud);
    t.cloud.update = failingWith(apiError(400, 'BAD_REQUEST', 'size is not allowed'));
    t.edit(2);
    await t.reconcile();
    const stalledAt = t.server.get('a').status!.conditions!.find((c) => c.type === 'Stalled')!;
    await t.reconcile();
    expect(t.server.get('a').status!.conditions).toContainEqual(stalledAt);

    t.cloud.update = update;
    t.edit(3);
    await t.reconcile();
    expect(t.progress()).toMatchObject([{ type: 'Reconciling', reason: 'Updating' }]);
    await t.reconcile();
    expect(t.progress()).toEqual([]);
  });

  it('paused: neither condition, whatever Ready says', async () => {
    const t = setup();
    t.cache.set(t.server.put(widget('a')));
    await t.reconcile();
    const paused = t.server.get('a');
    t.cache.set(
      t.server.put({
        ...paused,
        metadata: { ...paused.metadata, annotations: { 'sluice.dev/paused': 'true' } },
      }),
    );
    await t.reconcile();
    expect(t.progress()).toEqual([]);
  });

  describe("a Ready reason of the kind's own", () => {
    const jammed = { means: 'the widget is jammed', condition: 'Ready=False', kstatus: 'Failed' } as const;
    const { Jammed } = reasonNames({ Jammed: jammed });

    /** Widget `a` whose cloud widget reports it failed, under the kind's reason Jammed. */
    async function jammedWidget(reasons: KindReasons) {
      const t = setup(reasons);
      const observe = t.cloud.observe.bind(t.cloud);
      t.cloud.observe = async (resource, id) => {
        const found = await observe(resource, id);
        return observedAlso(found, { judged: { available: false, failed: 'it is jammed', reason: Jammed } });
      };
      await readyWidgetIn(t);
      return t;
    }

    it('makes the object Stalled when the kind declares that only a person ends it', async () => {
      const t = await jammedWidget({ Jammed: { ...jammed, end: 'terminal', argocd: 'Degraded' } });
      expect(t.progress()).toMatchObject([{ type: 'Stalled', status: 'True', reason: 'Jammed' }]);
    });

    it('leaves it Reconciling when the kind declares that it ends by itself', async () => {
      const t = await jammedWidget({ Jammed: { ...jammed, end: 'wait', argocd: 'Progressing' } });
      expect(t.progress()).toMatchObject([{ type: 'Reconciling', status: 'True', reason: 'Jammed' }]);
    });
  });
});
