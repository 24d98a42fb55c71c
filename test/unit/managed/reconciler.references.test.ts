import { describe, expect, it } from 'vitest';
import { FINALIZER } from '../../../src/managed/annotations.ts';
import { readReferences, replacedReference } from '../../../src/managed/references.ts';
import type { ManagedKind, ManagedObject } from '../../../src/managed/types.ts';
import {
  fakeEvents,
  fakeReconciler,
  gadgetReferencingKind,
  widget,
  widgetFakes,
  type FakeCloud,
  type Widget,
} from './fakes.ts';

/** Widgets that name a Gadget (kept in status.gadgetId); with `exclusive`, one widget per gadget. */
function setup({ exclusive = false } = {}) {
  const { server, cache, cloud } = widgetFakes();
  const { recorder, events } = fakeEvents();
  const gadgets = new Map<string, ManagedObject>();
  const kind: ManagedKind<Widget, FakeCloud, number> = {
    ...gadgetReferencingKind(cloud),
    connectionSecret: undefined,
    ...(exclusive ? { exclusiveOn: 'gadget' } : {}),
  };
  const reconciler = fakeReconciler(server, cache, cloud, {
    kind,
    events: recorder,
    lookup: (_kind, _namespace, name) => gadgets.get(name),
  });
  const setGadget = (id: string) =>
    gadgets.set('g', {
      metadata: { name: 'g', namespace: 'ns', uid: `uid-${id}` },
      spec: {},
      status: { id },
    });
  const apply = (name: string, created: string, status?: Widget['status']) => {
    const object = widget(name, { gadget: 'g' } as Partial<Widget['spec']>);
    object.metadata.creationTimestamp = created;
    object.metadata.finalizers = [FINALIZER];
    if (status) object.status = status;
    cache.set(server.put(object));
  };
  const remove = (name: string) => {
    const object = server.get(name);
    object.metadata.deletionTimestamp = '2030-01-01T00:00:00Z';
    cache.set(server.put(object));
  };
  const ready = (name: string) => server.get(name).status?.conditions?.find((c) => c.type === 'Ready');
  return { server, cache, cloud, events, setGadget, apply, remove, ready, reconcile: reconciler.reconcile };
}

describe('replacedReference', () => {
  const declarations = [
    {
      name: 'service',
      kind: 'DatabaseService',
      objectName: (r: ManagedObject) => (r.spec.serviceRef as { name: string } | undefined)?.name,
      plainId: (r: ManagedObject) => r.spec.serviceId as string | undefined,
      statusField: 'serviceId',
    },
  ];
  const resource = (spec: Record<string, unknown>, serviceId?: string): ManagedObject => ({
    metadata: { name: 'p', namespace: 'ns', uid: 'u' },
    spec,
    status: { id: 'pipe-1', ...(serviceId ? { serviceId } : {}) },
  });

  it('names the referenced object, the id status kept and the one it resolves to now', () => {
    const found = replacedReference(resource({ serviceRef: { name: 'analytics' } }, 'old'), declarations, {
      service: [{ id: 'new' }],
    });
    expect(found).toEqual({
      what: 'DatabaseService analytics',
      statusField: 'serviceId',
      kept: 'old',
      now: 'new',
    });
  });

  it('finds nothing when the id is the same, or status kept none yet', () => {
    const spec = { serviceRef: { name: 'analytics' } };
    expect(
      replacedReference(resource(spec, 'same'), declarations, { service: [{ id: 'same' }] }),
    ).toBeUndefined();
    expect(replacedReference(resource(spec), declarations, { service: [{ id: 'new' }] })).toBeUndefined();
  });
});

describe('readReferences', () => {
  const declarations = [
    {
      name: 'service',
      kind: 'DatabaseService',
      objectName: (r: ManagedObject) => (r.spec.serviceRef as { name: string } | undefined)?.name,
      plainId: () => undefined,
      statusField: 'serviceId',
    },
  ];
  const service = (id: string | undefined): ManagedObject => ({
    metadata: { name: 'analytics', namespace: 'ns', uid: 's' },
    spec: {},
    ...(id ? { status: { id } } : {}),
  });
  const pipe = (status?: ManagedObject['status']): ManagedObject => ({
    metadata: { name: 'p', namespace: 'ns', uid: 'u' },
    spec: { serviceRef: { name: 'analytics' } },
    ...(status ? { status } : {}),
  });

  it('reads, in one call, what the references resolve to, the one replaced since status kept it, and the ids to keep', () => {
    const read = readReferences(pipe({ id: 'pipe-1', serviceId: 'old' }), declarations, () => service('new'));
    expect(read).toEqual({
      resolved: { service: [{ id: 'new', object: service('new') }] },
      replaced: { what: 'DatabaseService analytics', statusField: 'serviceId', kept: 'old', now: 'new' },
      kept: { serviceId: 'new' },
    });
  });

  it('asks which reference was replaced only of an object with an id: one not made yet was made under none', () => {
    const read = readReferences(pipe({ serviceId: 'old' }), declarations, () => service('new'));
    expect(read).toMatchObject({ replaced: undefined, kept: { serviceId: 'new' } });
  });

  it('returns a wait as the references resolved it, with nothing compared', () => {
    const read = readReferences(pipe({ id: 'pipe-1', serviceId: 'old' }), declarations, () =>
      service(undefined),
    );
    expect(read).toEqual({ waitingFor: expect.stringContaining('DatabaseService analytics') as unknown });
  });
});

describe('ManagedReconciler, a referenced object replaced', () => {
  it('says ReferenceReplaced with both ids, keeps the old id in status and calls nothing in the cloud', async () => {
    const t = setup();
    t.setGadget('g-old');
    t.apply('a', '2030-01-01T00:00:00Z');
    await t.reconcile('ns/a');
    t.cache.set(t.server.get('a'));
    const id = t.server.get('a').status!.id!;
    expect(t.server.get('a').status?.gadgetId).toBe('g-old');

    t.setGadget('g-new');
    t.cloud.calls.length = 0;
    await t.reconcile('ns/a');
    t.cache.set(t.server.get('a'));
    await t.reconcile('ns/a');

    expect(t.cloud.calls).toEqual([]);
    expect(t.server.get('a').status).toMatchObject({ id, gadgetId: 'g-old' });
    expect(t.ready('a')).toMatchObject({ status: 'False', reason: 'ReferenceReplaced' });
    expect(t.ready('a')?.message).toMatch(
      /Gadget g now refers to g-new, but Widget w-1 was made under g-old/,
    );
    // One Warning for the change, not one per reconcile.
    expect(t.events.filter((e) => e.reason === 'ReferenceReplaced')).toHaveLength(1);

    // Deleting still deletes the cloud object, from the id status kept.
    t.remove('a');
    await t.reconcile('ns/a');
    expect(t.cloud.calls).toEqual(['delete']);
    expect(t.cloud.widgets.has(id)).toBe(false);
  });
});

describe('ManagedReconciler, one cloud object per referenced object', () => {
  it('an object that does not own the cloud object leaves it when deleted, even with an id in status', async () => {
    const t = setup({ exclusive: true });
    t.setGadget('g-1');
    t.apply('elder', '2030-01-01T00:00:00Z');
    await t.reconcile('ns/elder');
    t.cache.set(t.server.get('elder'));
    const id = t.server.get('elder').status!.id!;
    // What a race can leave: a newer object that once acted on the same gadget's widget.
    t.apply('newcomer', '2030-01-01T00:00:05Z', { id, gadgetId: 'g-1' });
    t.cloud.calls.length = 0;

    t.remove('newcomer');
    await t.reconcile('ns/newcomer');
    expect(t.cloud.calls).toEqual([]);
    expect(t.cloud.widgets.has(id)).toBe(true);
    expect(t.server.get('newcomer').metadata.finalizers ?? []).not.toContain(FINALIZER);
    // Left to the owner, whichever check names it first (the id's holder, or the gadget's owner).
    expect(t.events.filter((e) => e.reason === 'Orphaned').map((e) => e.message)).toEqual([
      expect.stringContaining('ns/elder'),
    ]);

    // The owner still deletes it.
    t.remove('elder');
    await t.reconcile('ns/elder');
    expect(t.cloud.calls).toEqual(['delete']);
  });
});
