import { describe, expect, it } from 'vitest';
import { DeferredRequestError } from '../../../src/cloud/errors.ts';
import { ANNOTATIONS, FINALIZER } from '../../../src/managed/annotations.ts';
import { KubeApiError } from '../../../src/kube/kube-http.ts';
import { ReconcileError, Waiting } from '../../../src/managed/errors.ts';
import { reasonNames } from '../../../src/base/reasons.ts';
import type { CallChain } from '../../../src/base/call-chain.ts';
import { REAL_TIMINGS } from '../../../src/base/timings.ts';
import type { ConnectContext, ManagedObject } from '../../../src/managed/types.ts';
import type { CredentialsRead } from '../../../src/managed/credentials-read.ts';
import { NAMESPACE_CREDENTIALS } from '../../../src/managed/managed-object.ts';
import {
  connected,
  fakeEvents,
  fakeReconciler,
  failingWith,
  gadgetReferencingKind,
  POLL_MS,
  SYNC_MS,
  widget,
  WIDGET_RESET,
  widgetFakes,
  widgetKind,
  type FakeCloud,
  type Widget,
} from './fakes.ts';

function setup(signal?: AbortSignal) {
  const fakes = widgetFakes();
  const { server, cache, cloud } = fakes;
  const { recorder, events } = fakeEvents();
  const reconciler = fakeReconciler(server, cache, cloud, {
    events: recorder,
    ...(signal ? { signal } : {}),
  });
  return {
    ...fakes,
    events,
    /** Creates the object on the server and lets the cache see it (and tell the reconciler, as a watch does). */
    apply(object: Widget) {
      cache.set(server.put(object));
      reconciler.onCacheChange(`ns/${object.metadata.name}`);
    },
    /** The cache shows this version of the object (one the watch delivers late, say). */
    show(object: Widget) {
      cache.set(object);
      reconciler.onCacheChange(`ns/${object.metadata.name}`);
    },
    /** The cache catches up with the server. */
    sync(name: string) {
      cache.set(server.get(name));
      reconciler.onCacheChange(`ns/${name}`);
    },
    reconcile: (name: string) => reconciler.reconcile(`ns/${name}`),
    condition: (name: string, type: string) =>
      server.get(name).status?.conditions?.find((c) => c.type === type),
  };
}

/** Reconciles until the widget is Ready, letting the cache catch up after each pass. */
async function makeReady(t: ReturnType<typeof setup>, name: string): Promise<string> {
  await t.reconcile(name);
  t.sync(name);
  const id = t.server.get(name).status!.id!;
  t.cloud.widgets.get(id)!.ready = true;
  await t.reconcile(name);
  t.sync(name);
  expect(t.condition(name, 'Ready')?.status).toBe('True');
  return id;
}

/** Widget `a` applied and reconciled until Ready, with its cloud id. */
async function readyWidget(): Promise<{ t: ReturnType<typeof setup>; id: string }> {
  const t = setup();
  t.apply(widget('a'));
  return { t, id: await makeReady(t, 'a') };
}

describe('ManagedReconciler', () => {
  it('creates the cloud resource, records its id at once, adds its finalizer and stores the password in a Secret it owns', async () => {
    const t = setup();
    t.apply(widget('a'));

    expect(await t.reconcile('a')).toEqual({ requeueAfterMs: POLL_MS });

    const stored = t.server.get('a');
    expect(stored.metadata.finalizers).toEqual([FINALIZER]);
    expect(stored.status).toMatchObject({ id: 'w-1', observedGeneration: 1 });
    expect(t.condition('a', 'Ready')).toMatchObject({ status: 'False', reason: 'Creating' });
    expect(t.condition('a', 'Synced')).toMatchObject({ status: 'True', reason: 'ReconcileSuccess' });
    expect(t.server.secrets.get('a-connection')).toMatchObject({
      ownerReferences: [{ uid: 'uid-a', controller: true }],
      data: { password: 'pw-w-1', host: 'w-1.example' },
    });
    expect(t.events).toContainEqual({ type: 'Normal', reason: 'Created', message: 'created Widget w-1' });
  });

  it('adopts what an earlier create left in the cloud instead of creating again', async () => {
    const t = setup();
    t.cloud.widgets.set('w-9', { size: 1, ready: true, uid: 'uid-a' });
    t.apply(widget('a'));

    await t.reconcile('a');

    expect(t.cloud.calls).not.toContain('create');
    expect(t.server.get('a').status?.id).toBe('w-9');
    expect(t.events.map((e) => e.reason)).toContain('Adopted');
  });

  it('tells the kind which other object of the kind holds a cloud id, never the resource itself', async () => {
    const { server, cache, cloud } = widgetFakes();
    const contexts: ConnectContext<FakeCloud>[] = [];
    const reconciler = fakeReconciler(server, cache, cloud, {
      kind: {
        ...widgetKind(cloud),
        connect: (_resource, context) => {
          contexts.push(context);
          return connected(cloud);
        },
      },
    });
    cache.set(server.put({ ...widget('holder'), status: { id: 'w-7' } }));
    cache.set(server.put({ ...widget('self'), status: { id: 'w-8' } }));

    await reconciler.reconcile('ns/self');

    const [context] = contexts;
    expect(context!.claimedBy('w-7')).toBe('ns/holder');
    expect(context!.claimedBy('w-8')).toBeUndefined();
    expect(context!.claimedBy('w-9')).toBeUndefined();
  });

  it('records a wait the kind’s client reports in Ready, keeps Synced, and polls without a Warning', async () => {
    const t = setup();
    t.cloud.waitBeforeCreate = 'service analytics was idle and is being woken up';
    t.apply(widget('a'));

    expect(await t.reconcile('a')).toEqual({ requeueAfterMs: POLL_MS });

    expect(t.cloud.calls).not.toContain('create');
    expect(t.condition('a', 'Ready')).toMatchObject({
      status: 'False',
      reason: 'WaitingForReference',
      message: 'service analytics was idle and is being woken up',
    });
    expect(t.condition('a', 'Synced')).toMatchObject({ status: 'True' });
    expect(t.events.filter((e) => e.type === 'Warning')).toEqual([]);
  });

  it('reports Ready once the cloud resource is available, and checks again at the sync interval', async () => {
    const { t } = await readyWidget();
    expect(await t.reconcile('a')).toEqual({ resyncAfterMs: SYNC_MS });
  });

  it('makes no status write when a reconcile changes nothing', async () => {
    const { t } = await readyWidget();
    const writes = t.server.statusWrites.length;

    await t.reconcile('a');

    expect(t.server.statusWrites).toHaveLength(writes);
  });

  it('ends the chain of its cloud calls before the status write that closes the reconcile, so a turn its read kept at the key goes back', async () => {
    const { server, cache, cloud } = widgetFakes();
    const chains: CallChain[] = [];
    const chainEndedAtStatusWrite: boolean[] = [];
    const writer = server.writer();
    const reconciler = fakeReconciler(server, cache, cloud, {
      cloudFor: async (_resource, use) => {
        chains.push(use.chain!);
        return cloud;
      },
      writer: {
        ...writer,
        patchStatus: (...args) => {
          chainEndedAtStatusWrite.push(chains.at(-1)!.ended);
          return writer.patchStatus(...args);
        },
      },
    });
    const sync = () => {
      cache.set(server.get('a'));
      reconciler.onCacheChange('ns/a');
    };
    cache.set(server.put(widget('a')));
    await reconciler.reconcile('ns/a');
    sync();
    cloud.widgets.get(server.get('a').status!.id!)!.ready = true;
    await reconciler.reconcile('ns/a');

    expect(chains).toHaveLength(2);
    expect(chains.map((chain) => chain.ended)).toEqual([true, true]);
    // The create records its id mid-chain; the Ready the second reconcile found is written after its chain.
    expect(chainEndedAtStatusWrite).toEqual([false, true]);
  });

  it('reads its credentials once per reconcile, and refuses, pins and connects with that one read', async () => {
    const { server, cache, cloud } = widgetFakes();
    // Each read finds the Secret changed since the last (another organization): a second read in one
    // reconcile would pin, check or connect with credentials other than the first.
    const reads: CredentialsRead[] = [];
    const connectedWith: (CredentialsRead | undefined)[] = [];
    const reconciler = fakeReconciler(server, cache, cloud, {
      readCredentials: () => {
        const organization = `org-${reads.length + 1}`;
        reads.push({
          secret: { namespace: 'ns', name: 'credentials' },
          snapshot: undefined,
          organization,
          objectSecret: undefined,
        });
        return reads.at(-1)!;
      },
      cloudFor: async (_resource, use) => {
        connectedWith.push(use.credentials);
        return cloud;
      },
    });
    const reconcile = async () => {
      await reconciler.reconcile('ns/a');
      cache.set(server.get('a'));
      reconciler.onCacheChange('ns/a');
    };
    cache.set(server.put(widget('a')));

    // The create, and the object pinned to the organization of the credentials it was made with.
    await reconcile();
    expect(reads).toHaveLength(1);
    expect(connectedWith).toEqual([reads[0]]);
    expect(server.get('a').status?.organizationId).toBe('org-1');

    // The next reconcile reads the Secret changed: refused before any cloud call, on that one read.
    await expect(reconciler.reconcile('ns/a')).rejects.toMatchObject({ reason: 'OrganizationChanged' });
    expect(reads).toHaveLength(2);
    expect(connectedWith).toHaveLength(1);
    expect(server.get('a').status?.organizationId).toBe('org-1');
  });

  it("records the Secret its credentials read signs in with, not a second look at whether the namespace's default exists", async () => {
    const { server, cache, cloud } = widgetFakes();
    // The cloud clients chose the namespace's default Secret, whose data the reconciler's Secret cache has
    // not loaded (a second look there finds none): status names the Secret the calls sign in with.
    const reconciler = fakeReconciler(server, cache, cloud, {
      readCredentials: () => ({
        secret: { namespace: 'ns', name: 'sluice-credentials' },
        snapshot: undefined,
        organization: undefined,
        objectSecret: 'sluice-credentials',
      }),
    });
    cache.set(server.put(widget('a')));

    await reconciler.reconcile('ns/a');

    expect(server.get('a').status?.credentials).toBe('sluice-credentials');
  });

  it('applies a spec change as an update and reports Updating', async () => {
    const { t, id } = await readyWidget();
    t.cache.set(t.server.editSpec('a', { size: 3 }));

    await t.reconcile('a');

    expect(t.cloud.widgets.get(id)!.size).toBe(3);
    expect(t.condition('a', 'Ready')).toMatchObject({ status: 'False', reason: 'Updating' });
    expect(t.server.get('a').status?.observedGeneration).toBe(2);
  });

  it('ends an update the cloud answers with a wait there: Ready says the wait, and no Updated Event is recorded', async () => {
    const { t } = await readyWidget();
    t.cache.set(t.server.editSpec('a', { size: 3 }));
    t.cloud.update = async () => {
      t.cloud.calls.push('update');
      return new Waiting('WaitingForReference', 'service analytics is stopped');
    };

    // A wait for the cloud: looked at again on the pace of waits, not at the sync interval.
    expect(await t.reconcile('a')).toHaveProperty('requeueAfterMs');

    expect(t.cloud.calls.filter((call) => call === 'update')).toHaveLength(1);
    expect(t.condition('a', 'Ready')).toMatchObject({
      status: 'False',
      reason: 'WaitingForReference',
      message: 'service analytics is stopped',
    });
    expect(t.condition('a', 'Synced')).toMatchObject({ status: 'True' });
    expect(t.events.map((e) => e.reason)).not.toContain('Updated');
  });

  it('does nothing while paused, and keeps saying which generation was acted on', async () => {
    const { t } = await readyWidget();
    const paused = t.server.editSpec('a', { size: 5 });
    paused.metadata.annotations = { 'sluice.dev/paused': 'true' };
    t.cache.set(t.server.put(paused));
    t.cloud.calls.length = 0;

    await t.reconcile('a');

    expect(t.cloud.calls).toEqual([]);
    expect(t.server.get('a').status?.observedGeneration).toBe(1);
    expect(t.condition('a', 'Synced')).toMatchObject({ status: 'False', reason: 'ReconcilePaused' });
  });

  it('writes no status again when an update fails again the same way, however much later', async () => {
    const { t } = await readyWidget();
    t.cloud.update = failingWith(
      new ReconcileError('CloudApiError', 'PATCH /widgets/:id failed: 500 INTERNAL_ERROR'),
    );
    t.cache.set(t.server.editSpec('a', { size: 3 }));
    await expect(t.reconcile('a')).rejects.toThrow('500');
    t.sync('a');
    const failed = t.condition('a', 'Synced');
    expect(failed).toMatchObject({ status: 'False', reason: 'CloudApiError' });
    const writes = t.server.statusWrites.length;

    // Each retry passes through Synced=True before its update fails: that is no transition.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await expect(t.reconcile('a')).rejects.toThrow('500');

    expect(t.server.statusWrites).toHaveLength(writes);
    expect(t.condition('a', 'Synced')).toEqual(failed);
  });

  it('records a failure in Synced and a Warning Event, and throws so the key backs off', async () => {
    // A reason of the kind's own, as a kind declares it.
    const { QuotaExceeded } = reasonNames({ QuotaExceeded: { means: 'the organization has no room' } });
    const t = setup();
    t.apply(widget('a'));
    t.cloud.create = failingWith(new ReconcileError(QuotaExceeded, 'the organization has no room', 30_000));

    await expect(t.reconcile('a')).rejects.toMatchObject({ retryAfterMs: 30_000 });

    expect(t.condition('a', 'Synced')).toMatchObject({
      status: 'False',
      reason: 'QuotaExceeded',
      message: 'the organization has no room',
    });
    expect(t.events).toContainEqual({
      type: 'Warning',
      reason: 'QuotaExceeded',
      message: 'the organization has no room',
    });
  });

  it('records what it read before a refusal beside the failure: the reconcile asked for is handled, with the credentials named', async () => {
    const { RoleNotAllowed } = reasonNames({
      RoleNotAllowed: { means: 'a role the administrator allows no one' },
    });
    const fakes = widgetFakes();
    const refusal = ReconcileError.terminal(RoleNotAllowed, 'the administrator allows no such role', 60_000);
    const reconciler = fakeReconciler(fakes.server, fakes.cache, fakes.cloud, {
      policyRefusal: () => refusal,
    });
    const asked = widget('a');
    asked.metadata.annotations = { 'sluice.dev/reconcile-requested-at': 'look-1' };
    fakes.cache.set(fakes.server.put(asked));

    await expect(reconciler.reconcile('ns/a')).rejects.toBe(refusal);

    const { status } = fakes.server.get('a');
    expect(status).toMatchObject({ lastHandledReconcileAt: 'look-1', credentials: '(operator)' });
    expect(status?.conditions?.find((c) => c.type === 'Synced')).toMatchObject({
      status: 'False',
      reason: 'RoleNotAllowed',
    });
    expect(fakes.cloud.calls).toEqual([]);
  });

  it('restores a lost password by the kind’s recovery, in the Secret it owns', async () => {
    const { t } = await readyWidget();
    delete t.server.secrets.get('a-connection')!.data.password;

    await t.reconcile('a');

    expect(t.server.secrets.get('a-connection')!.data.password).toBe('reset-w-1');
    expect(t.events.map((e) => e.reason)).toContain('ConnectionDetailsRecovered');
  });

  it('spends the create intent once the id is in status: no create is left looking under way', async () => {
    const t = setup();
    t.apply(widget('a'));
    await t.reconcile('a');
    t.sync('a');
    expect(t.server.get('a').status?.id).toBeDefined();
    expect(t.server.get('a').metadata.annotations?.[ANNOTATIONS.createPending]).toBeUndefined();
    expect(t.server.get('a').metadata.finalizers).toContain(FINALIZER);

    // One a create could not remove (its write failed), or an older operator left, goes on the next look.
    const left = t.server.get('a');
    left.metadata.annotations = { [ANNOTATIONS.createPending]: '2026-01-01T00:00:00.000Z' };
    t.cache.set(t.server.put(left));
    await t.reconcile('a');
    expect(t.server.get('a').metadata.annotations?.[ANNOTATIONS.createPending]).toBeUndefined();
  });

  it('does not remove again the create intent it removed itself, nor rewrite its status, from a cache that lags', async () => {
    const t = setup();
    const stored: Widget[] = [];
    const put = t.server.put.bind(t.server);
    t.server.put = (object) => {
      const version = put(object);
      stored.push(version);
      return version;
    };
    t.apply(widget('a'));
    await t.reconcile('a');
    const pending = (o: Widget) => o.metadata.annotations?.[ANNOTATIONS.createPending] !== undefined;
    // The watch has delivered the create's status write (the id), not yet the intent's removal after it.
    const lagging = stored.findLast((o) => o.status?.id !== undefined && pending(o))!;
    const removal = stored.at(-1)!;
    expect(pending(removal)).toBe(false);
    t.show(lagging);
    t.cloud.widgets.get(lagging.status!.id!)!.ready = true;

    // A write guarded by the stale version could only be refused (409): the reconcile would fail on it.
    await expect(t.reconcile('a')).resolves.not.toMatchObject({ requeue: true });
    expect(t.condition('a', 'Ready')).toMatchObject({ status: 'True' });
    expect(pending(t.server.get('a'))).toBe(false);

    // The removal shows next, with the status from before this reconcile's: that status is not written again.
    const statusWrites = t.server.statusWrites.length;
    t.show(removal);
    await t.reconcile('a');
    expect(t.server.statusWrites).toHaveLength(statusWrites);
  });

  it('resets no password for a lost connection Secret that cannot be created again, and says why in Synced', async () => {
    const { t } = await readyWidget();
    t.server.secrets.delete('a-connection');
    t.server.secretCreateRefusal = 'namespace a is being terminated';

    await expect(t.reconcile('a')).rejects.toMatchObject({ reason: 'SecretNotWritable' });
    await expect(t.reconcile('a')).rejects.toMatchObject({ reason: 'SecretNotWritable' });

    expect(t.cloud.calls).not.toContain('recover');
    expect(t.condition('a', 'Synced')).toMatchObject({
      status: 'False',
      reason: 'SecretNotWritable',
      message: 'namespace a is being terminated',
    });
  });

  it("keeps what the observation found in status when the connection Secret's sync fails after it", async () => {
    const { t, id } = await readyWidget();
    t.server.secrets.delete('a-connection');
    t.server.secretCreateRefusal = 'namespace a is being terminated';
    // Someone resized the widget in the cloud: the observation sees it before the sync fails.
    t.cloud.widgets.get(id)!.size = 7;

    await expect(t.reconcile('a')).rejects.toMatchObject({ reason: 'SecretNotWritable' });

    expect(t.server.get('a').status).toMatchObject({ id, size: 7 });
    expect(t.condition('a', 'Synced')).toMatchObject({ status: 'False', reason: 'SecretNotWritable' });
  });

  it('drops the create intent when the cloud resource is found gone, so a look-alike made since is not adopted', async () => {
    const { t, id } = await readyWidget();
    const lookUps: unknown[] = [];
    t.cloud.findCreated = async (_resource, lost) => {
      lookUps.push(lost);
      return undefined;
    };

    t.cloud.widgets.delete(id);
    expect(await t.reconcile('a')).toEqual({ requeue: true });
    t.sync('a');
    expect(t.server.get('a').metadata.annotations?.[ANNOTATIONS.createPending]).toBeUndefined();
    expect(t.server.get('a').status?.id).toBeUndefined();
    expect(t.events).toContainEqual(expect.objectContaining({ reason: 'ExternalMissing' }));

    await t.reconcile('a');
    expect(lookUps).toEqual([undefined]);
    expect(t.server.get('a').status?.id).not.toBe(id);
  });

  describe('an id another object holds', () => {
    const adopter = (name: string, id: string, created = '2026-01-02T00:00:00Z') => {
      const object = widget(name);
      object.metadata.annotations = { [ANNOTATIONS.externalId]: id };
      object.metadata.creationTimestamp = created;
      return object;
    };

    it('is not adopted: Ready=False AlreadyManaged naming the holder, no cloud call, no finalizer, no Secret', async () => {
      const t = setup();
      t.apply(widget('holder'));
      const id = await makeReady(t, 'holder');
      t.cloud.calls.length = 0;
      t.apply(adopter('other', id));

      await t.reconcile('other');

      expect(t.cloud.calls).toEqual([]);
      expect(t.condition('other', 'Ready')).toMatchObject({ status: 'False', reason: 'AlreadyManaged' });
      expect(t.condition('other', 'Ready')!.message).toContain('ns/holder');
      expect(t.server.get('other').status?.id).toBeUndefined();
      expect(t.server.get('other').metadata.finalizers).toBeUndefined();
      expect(t.server.secrets.has('other-connection')).toBe(false);
    });

    it('is refused with one Warning Event AlreadyManaged naming the holder, not one per look', async () => {
      const t = setup();
      t.apply(widget('holder'));
      const id = await makeReady(t, 'holder');
      t.apply(adopter('other', id));

      await t.reconcile('other');
      t.sync('other');
      await t.reconcile('other');

      const refusals = t.events.filter((e) => e.reason === 'AlreadyManaged');
      expect(refusals).toEqual([
        {
          type: 'Warning',
          reason: 'AlreadyManaged',
          message: `Widget ns/holder already manages ${id}; this object changes nothing in the cloud`,
        },
      ]);
    });

    it('is left alone when an object that recorded it by mistake is deleted with deletionPolicy Delete', async () => {
      const t = setup();
      t.apply(widget('holder'));
      const id = await makeReady(t, 'holder');
      const twin = { ...adopter('twin', id), status: { id } };
      twin.metadata.finalizers = [FINALIZER];
      twin.metadata.deletionTimestamp = '2026-01-03T00:00:00Z';
      t.apply(twin);

      await t.reconcile('twin');

      expect(t.cloud.calls).not.toContain('delete');
      expect(t.cloud.widgets.has(id)).toBe(true);
      expect(t.server.get('twin').metadata.finalizers).toEqual([]);
    });

    it('asked for by two objects at once goes to the older; the other never reaches the cloud', async () => {
      const t = setup();
      t.cloud.widgets.set('w-5', { size: 1, ready: true, uid: 'someone' });
      t.apply(adopter('newer', 'w-5', '2026-01-02T00:00:00Z'));
      t.apply(adopter('older', 'w-5', '2026-01-01T00:00:00Z'));

      await Promise.all([t.reconcile('newer'), t.reconcile('older')]);

      expect(t.server.get('older').status?.id).toBe('w-5');
      expect(t.condition('newer', 'Ready')).toMatchObject({ reason: 'AlreadyManaged' });
      expect(t.condition('newer', 'Ready')!.message).toContain('ns/older');
    });

    it('once granted in this process, stays with its holder while that reconcile has not written its status', async () => {
      const t = setup();
      t.cloud.widgets.set('w-5', { size: 1, ready: true, uid: 'someone' });
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const observe = t.cloud.observe.bind(t.cloud);
      t.cloud.observe = async (resource, id) => {
        if (resource.metadata.name === 'first') await held;
        return observe(resource, id);
      };
      t.apply(adopter('first', 'w-5', '2026-01-02T00:00:00Z'));
      const first = t.reconcile('first');
      // An older object asking for it arrives while first's reconcile is still in the cloud.
      t.apply(adopter('late', 'w-5', '2026-01-01T00:00:00Z'));

      await t.reconcile('late');
      release();
      await first;

      expect(t.server.get('first').status?.id).toBe('w-5');

      expect(t.condition('late', 'Ready')).toMatchObject({ reason: 'AlreadyManaged' });
      expect(t.condition('late', 'Ready')!.message).toContain('ns/first');
    });
  });

  describe('adopting an unmanaged resource', () => {
    const adopted = (reset?: string) => {
      const object = widget('a');
      object.metadata.annotations = {
        [ANNOTATIONS.externalId]: 'w-5',
        ...(reset ? { [WIDGET_RESET]: reset } : {}),
      };
      return object;
    };

    it('resets no password: the Secret gets the other keys, status and Ready say the password is unknown', async () => {
      const t = setup();
      t.cloud.widgets.set('w-5', { size: 1, ready: true, uid: 'someone' });
      t.apply(adopted());

      await t.reconcile('a');

      expect(t.cloud.calls).not.toContain('recover');
      expect(t.server.secrets.get('a-connection')!.data).toEqual({ host: 'w-5.example' });
      expect(t.server.get('a').status?.unknownConnectionKeys).toEqual(['password']);
      expect(t.condition('a', 'Ready')).toMatchObject({ status: 'True', reason: 'Available' });
      expect(t.condition('a', 'Ready')!.message).toContain(WIDGET_RESET);
    });

    it('resets the password once per new value of the reset annotation', async () => {
      const t = setup();
      t.cloud.widgets.set('w-5', { size: 1, ready: true, uid: 'someone' });
      t.apply(adopted('one'));
      await t.reconcile('a');
      t.sync('a');
      await t.reconcile('a');

      expect(t.cloud.calls.filter((c) => c === 'recover')).toHaveLength(1);
      expect(t.server.secrets.get('a-connection')!.data.password).toBe('reset-w-5');
      expect(t.server.get('a').status).toMatchObject({ passwordReset: 'one' });
      expect(t.server.get('a').status?.unknownConnectionKeys).toBeUndefined();
      expect(t.condition('a', 'Ready')!.message).toBeUndefined();
      expect(t.events.map((e) => e.reason)).toContain('PasswordReset');
    });
  });

  it('deletes the cloud resource, then releases the finalizer, with deletionPolicy Delete', async () => {
    const { t, id } = await readyWidget();
    const deleting = t.server.get('a');
    deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    t.cache.set(t.server.put(deleting));

    await t.reconcile('a');

    expect(t.cloud.widgets.has(id)).toBe(false);
    expect(t.server.get('a').metadata.finalizers).toEqual([]);
  });

  it('acts no more on a deletion whose finalizer it released while the cache still shows the finalizer', async () => {
    const { t } = await readyWidget();
    const deleting = t.server.get('a');
    deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    t.cache.set(t.server.put(deleting));
    await t.reconcile('a');
    const calls = t.cloud.calls.length;
    const events = t.events.length;

    // Woken again (a cloud change) before the watch delivered the release: nothing is deleted or written twice.
    await t.reconcile('a');

    expect(t.cloud.calls.slice(calls)).toEqual([]);
    expect(t.events.slice(events)).toEqual([]);
  });

  it("judges a deleted object's plain id as the credentials its look-up signs in with: a kind that states them never takes the namespace's default", async () => {
    const { server, cache, cloud } = widgetFakes();
    // The namespace has a default credentials Secret, which a kind that makes credentials never signs in with.
    server.putSecret(NAMESPACE_CREDENTIALS, { keyId: 'k', keySecret: 's' });
    const reconciler = fakeReconciler(server, cache, cloud, {
      kind: { ...widgetKind(cloud), makesCredentials: { identityKeys: ['keyId'] } },
      // No namespace may use ids of objects made outside sluice with the operator's credentials.
      idAccess: {
        cluster: { name: 'default', explicit: true },
        plainIdNamespaces: [],
        grants: { cached: () => [], read: async () => undefined },
        holdersOf: () => [],
      },
    });
    // A crafted deletion: an intent, the finalizer and an external id no sluice object records; no id.
    const crafted = widget('a');
    crafted.metadata.annotations = {
      [ANNOTATIONS.externalId]: 'w-9',
      [ANNOTATIONS.createPending]: '2030-01-01T00:00:00Z',
    };
    crafted.metadata.finalizers = [FINALIZER];
    crafted.metadata.deletionTimestamp = '2030-01-01T00:00:01Z';
    cache.set(server.put(crafted));

    await reconciler.reconcile('ns/a');

    // Judged as the operator's credentials, the id is refused: no look-up, nothing deleted, the finalizer goes.
    expect(cloud.calls).toEqual([]);
    expect(server.get('a').metadata.finalizers).toEqual([]);
  });

  /** A write the apiserver answers with `statusCode`: 404 once the object is removed, 409 once it changed. */
  const refuse = (statusCode: number) => async () => {
    throw new KubeApiError(statusCode, undefined, `PATCH widgets/a: ${statusCode}`);
  };

  it('ends quietly when a write finds its object gone, and looks again when it finds it changed', async () => {
    const t = setup();
    t.apply(widget('a'));
    const writer = t.server.writer();
    writer.patchMetadata = refuse(404);
    const gone = fakeReconciler(t.server, t.cache, t.cloud, { writer, events: fakeEvents().recorder });
    await expect(gone.reconcile('ns/a')).resolves.toBeUndefined();
    writer.patchMetadata = refuse(409);
    await expect(gone.reconcile('ns/a')).resolves.toEqual({ requeue: true });
    expect(t.cloud.calls).not.toContain('create');
  });

  it('ends as quietly when the status write after a create, or the finalizer release, finds the object gone', async () => {
    const t = setup();
    t.apply(widget('a'));
    const writer = t.server.writer();
    writer.patchStatus = refuse(404);
    const { recorder, events } = fakeEvents();
    const racing = fakeReconciler(t.server, t.cache, t.cloud, { writer, events: recorder });
    await expect(racing.reconcile('ns/a')).resolves.toBeUndefined();
    expect(t.cloud.calls).toContain('create');
    // Nothing is reported of an object that is gone: no Created, no Warning.
    expect(events).toEqual([]);

    const { t: deleted } = await readyWidget();
    const deleting = deleted.server.get('a');
    deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    deleted.cache.set(deleted.server.put(deleting));
    const released = deleted.server.writer();
    released.setFinalizers = refuse(404);
    const statusWrites = deleted.server.statusWrites.length;
    const finalizing = fakeReconciler(deleted.server, deleted.cache, deleted.cloud, {
      writer: released,
      events: recorder,
    });
    await expect(finalizing.reconcile('ns/a')).resolves.toBeUndefined();
    expect(deleted.cloud.calls).toContain('delete');
    // The delete was done and said; the release met the removal, which is no failure: no Warning, no status.
    expect(deleted.server.statusWrites).toHaveLength(statusWrites);
    expect(events.map((event) => event.reason)).toEqual(['Deleted']);
  });

  describe('connection Secret ownership', () => {
    it('refuses a Secret it does not control before creating anything: Synced=False SecretConflict, nothing written', async () => {
      const t = setup();
      t.server.putSecret('app-config', { token: 'keep-me' });
      t.apply(widget('a', { connectionSecret: 'app-config' }));

      await expect(t.reconcile('a')).rejects.toMatchObject({ reason: 'SecretConflict' });

      expect(t.cloud.calls).not.toContain('create');
      expect(t.server.secrets.get('app-config')!.data).toEqual({ token: 'keep-me' });
      expect(t.condition('a', 'Synced')).toMatchObject({ status: 'False', reason: 'SecretConflict' });
      expect(t.condition('a', 'Synced')!.message).toContain('Secret app-config');
      expect(t.events.find((e) => e.reason === 'SecretConflict')?.type).toBe('Warning');
    });

    it('leaves another resource’s Secret and password alone when a second resource names it', async () => {
      const t = setup();
      t.apply(widget('first', { connectionSecret: 'shared' }));
      await makeReady(t, 'first');
      const before = structuredClone(t.server.secrets.get('shared'));
      // The second already has a cloud resource (adopted), so it reaches the Secret sync of a running one.
      t.cloud.widgets.set('w-7', { size: 1, ready: true, uid: 'uid-second' });
      t.apply(widget('second', { connectionSecret: 'shared' }));

      await expect(t.reconcile('second')).rejects.toMatchObject({ reason: 'SecretConflict' });

      expect(t.server.secrets.get('shared')).toEqual(before);
      expect(t.cloud.calls).not.toContain('recover');
      expect(t.condition('second', 'Synced')).toMatchObject({ status: 'False', reason: 'SecretConflict' });
    });
  });

  it('creates and keeps the connection Secret from the Secret cache, reading the apiserver only to confirm a loss', async () => {
    const { t } = await readyWidget();
    await t.reconcile('a');
    expect(t.server.secretGets).toBe(0);

    delete t.server.secrets.get('a-connection')!.data.password;
    await t.reconcile('a');

    expect(t.server.secretGets).toBe(1);
    expect(t.server.secrets.get('a-connection')!.data.password).toBe('reset-w-1');
  });

  it('resets no password when the Secret cache says it is lost but the apiserver still has it', async () => {
    const { server, cache, cloud } = widgetFakes();
    const inStep = server.secretCache();
    let lagging = false;
    // A cache that has not seen the Secret (not synced yet, or behind): the live read has it.
    const connectionSecrets = {
      get: (ns: string, name: string) => (lagging ? undefined : inStep.get(ns, name)),
    };
    const reconciler = fakeReconciler(server, cache, cloud, { secrets: connectionSecrets });
    cache.set(server.put(widget('a')));
    await reconciler.reconcile('ns/a');
    cache.set(server.get('a'));
    const password = server.secrets.get('a-connection')!.data.password;

    lagging = true;
    await reconciler.reconcile('ns/a');

    expect(cloud.calls).not.toContain('recover');
    expect(server.secretGets).toBe(1);
    expect(server.secrets.get('a-connection')!.data.password).toBe(password);
  });

  it('writes status again when the cached object lags behind its own last write', async () => {
    const { t, id } = await readyWidget();
    // The cloud resource becomes unavailable: the server now holds Ready=False, the cache still Ready=True.
    t.cloud.widgets.get(id)!.ready = false;
    await t.reconcile('a');
    expect(t.condition('a', 'Ready')?.status).toBe('False');
    expect(t.cache.get('ns/a')!.status!.conditions!.find((c) => c.type === 'Ready')?.status).toBe('True');

    // It comes back before the cache caught up: the reconcile must not take the stale Ready=True as written.
    t.cloud.widgets.get(id)!.ready = true;
    await t.reconcile('a');

    expect(t.condition('a', 'Ready')?.status).toBe('True');
  });

  it('ends a reconcile whose cloud call was deferred with a requeue for then, recording no failure', async () => {
    const { t } = await readyWidget();
    const writes = t.server.statusWrites.length;
    const events = t.events.length;
    t.cloud.observe = async () => {
      const site = { api: 'management', method: 'GET', route: '/w/:id', path: '/w/w-1' } as const;
      throw new DeferredRequestError({ ...site, attempts: 0, retryAfterMs: 7_500, reason: 'quota' });
    };

    expect(await t.reconcile('a')).toEqual({ requeueAfterMs: 7_500 });

    expect(t.server.statusWrites).toHaveLength(writes);
    expect(t.events).toHaveLength(events);
    expect(t.condition('a', 'Synced')?.status).toBe('True');
  });

  it('does not repeat a crash-safe look-up that found nothing while its create is only deferred', async () => {
    const t = setup();
    const create = t.cloud.create.bind(t.cloud);
    let deferred = 2;
    let attempts = 0;
    t.cloud.create = async (resource) => {
      attempts++;
      if (deferred-- > 0) {
        const site = { api: 'management', method: 'POST', route: '/w', path: '/w' } as const;
        throw new DeferredRequestError({ ...site, attempts: 0, retryAfterMs: 5_000, reason: 'quota' });
      }
      return create(resource);
    };
    t.apply(widget('a'));
    for (let i = 0; i < 3; i++) {
      await t.reconcile('a');
      t.sync('a');
    }
    // The create intent makes every attempt look up first, but one look-up serves while nothing was sent.
    expect(attempts).toBe(3);
    expect(t.cloud.calls.filter((c) => c === 'findCreated')).toHaveLength(1);
    expect(t.server.get('a').status?.id).toBeDefined();

    // A create that failed after it may have been sent is looked up again before the next one.
    t.cloud.calls.length = 0;
    t.cloud.create = failingWith(new Error('connection reset'));
    t.apply(widget('b'));
    await expect(t.reconcile('b')).rejects.toThrow();
    t.sync('b');
    await expect(t.reconcile('b')).rejects.toThrow();
    expect(t.cloud.calls.filter((c) => c === 'findCreated')).toHaveLength(2);
  });

  it('searches for a create whose answer was lost only in lists started after the call ended, or after a restart, after the intent', async () => {
    const { server, cache, cloud } = widgetFakes();
    let now = Date.parse('2030-01-01T00:00:00Z');
    const start = () => fakeReconciler(server, cache, cloud, { now: () => new Date(now) });
    const sync = () => cache.set(server.get('a'));
    let reconciler = start();
    // The cloud makes the widget, but its answer takes 3 s to fail (a lost response, a timeout).
    const create = cloud.create.bind(cloud);
    cloud.create = async (resource) => {
      await create(resource);
      now += 3_000;
      throw new Error('connection reset');
    };
    cache.set(server.put(widget('a')));
    const intent = new Date(now);

    await expect(reconciler.reconcile('ns/a')).rejects.toThrow('connection reset');
    sync();
    expect(server.get('a').metadata.annotations?.[ANNOTATIONS.createPending]).toBe(intent.toISOString());
    // The first look-up, before any create, had nothing to search for.
    expect(cloud.lookUps.splice(0)).toEqual([undefined]);
    // A list that started before the call failed may have been answered before the cloud made the widget.
    cloud.findCreated = async (_resource, lost) => {
      cloud.lookUps.push(lost);
      return undefined;
    };
    cloud.create = failingWith(new Error('connection reset'));
    await expect(reconciler.reconcile('ns/a')).rejects.toThrow();
    expect(cloud.lookUps).toEqual([{ intent, listedAfter: new Date(intent.getTime() + 3_000) }]);

    // A restarted operator knows only the intent: every list it makes started after the old process was gone.
    sync();
    cloud.lookUps.length = 0;
    const secondIntent = new Date(server.get('a').metadata.annotations![ANNOTATIONS.createPending]!);
    reconciler = start();
    await expect(reconciler.reconcile('ns/a')).rejects.toThrow();
    expect(cloud.lookUps).toEqual([{ intent: secondIntent, listedAfter: secondIntent }]);
  });

  it('looks up again once the cache shows the intent, after a look-up from a cache that had not shown it yet', async () => {
    const t = setup();
    // A kind without tags: with no intent to search by, it finds nothing.
    const findByUid = t.cloud.findCreated.bind(t.cloud);
    t.cloud.findCreated = async (resource, lost) => (lost ? findByUid(resource, lost) : undefined);
    const create = t.cloud.create.bind(t.cloud);
    t.cloud.create = async (resource) => {
      await create(resource);
      throw new Error('connection reset');
    };
    t.apply(widget('a'));
    await expect(t.reconcile('a')).rejects.toThrow('connection reset');
    t.cloud.create = create;

    // The retry comes before the watch shows the intent: its look-up has nothing to search by, and its
    // create is stopped by the stale resourceVersion before it is sent.
    await expect(t.reconcile('a')).rejects.toThrow('409');
    t.sync('a');
    await t.reconcile('a');

    expect(t.cloud.widgets.size).toBe(1);
    expect(t.server.get('a').status?.id).toBe('w-1');
    expect(t.events).toContainEqual(expect.objectContaining({ reason: 'Adopted' }));
  });

  it('records nothing for a reconcile aborted because this process stopped leading', async () => {
    const leading = new AbortController();
    const t = setup(leading.signal);
    t.apply(widget('a'));
    await makeReady(t, 'a');
    const writes = t.server.statusWrites.length;
    t.cloud.observe = async () => {
      leading.abort();
      throw new Error('GET /w/:id aborted by the caller');
    };

    await expect(t.reconcile('a')).rejects.toThrow(/aborted/);

    expect(t.server.statusWrites).toHaveLength(writes);
    expect(t.events.filter((e) => e.type === 'Warning')).toEqual([]);
  });

  it('reports the generation it read when the spec is edited while create runs', async () => {
    const t = setup();
    t.apply(widget('a'));
    const create = t.cloud.create.bind(t.cloud);
    t.cloud.create = async (resource) => {
      t.server.editSpec('a', { size: 2 });
      return create(resource);
    };

    await t.reconcile('a');

    const status = t.server.get('a').status!;
    expect(t.server.get('a').metadata.generation).toBe(2);
    expect(status.observedGeneration).toBe(1);
    expect(status.conditions!.map((c) => [c.type, c.observedGeneration])).toEqual([
      ['Ready', 1],
      ['Synced', 1],
      ['Reconciling', 1],
    ]);
  });
});

describe('ManagedReconciler, a reference to an object the cache does not have', () => {
  const CREATED = '2026-11-24T10:00:00Z';
  const at = (seconds: number) => new Date(Date.parse(CREATED) + seconds * 1000);

  function setupReferencing(
    target: { id?: string } | undefined,
    clock: { now: Date },
    events?: ReturnType<typeof fakeEvents>['recorder'],
  ) {
    const { server, cache, cloud } = widgetFakes();
    const gadgets = new Map<string, ManagedObject>();
    const putGadget = (status: { id?: string }) =>
      gadgets.set('g', { metadata: { name: 'g', namespace: 'ns', uid: 'g-1' }, spec: {}, status });
    if (target) putGadget(target);
    const kind = gadgetReferencingKind(cloud);
    const reconciler = fakeReconciler(server, cache, cloud, {
      kind,
      lookup: (_kind, _namespace, name) => gadgets.get(name),
      now: () => clock.now,
      ...(events ? { events } : {}),
    });
    const object = widget('a', { gadget: 'g' } as Partial<Widget['spec']>);
    object.metadata.creationTimestamp = CREATED;
    cache.set(server.put(object));
    return {
      server,
      cache,
      cloud,
      /** The referenced Gadget is created, with its cloud id. */
      gadgetArrives: () => putGadget({ id: 'g-1' }),
      reconcile: () => reconciler.reconcile('ns/a'),
    };
  }

  it('says nothing for a few seconds after the object was created: the referenced one may be on its way', async () => {
    const clock = { now: at(1) };
    const t = setupReferencing(undefined, clock);

    expect(await t.reconcile()).toEqual({ requeueAfterMs: REAL_TIMINGS.referenceArrivalGraceMs - 1000 });
    expect(t.server.statusWrites).toEqual([]);
    expect(t.cloud.calls).toEqual([]);

    // It arrived within the grace: the first status written is the create's, not a wait.
    t.gadgetArrives();
    await t.reconcile();
    expect(t.cloud.calls).toContain('create');
    expect(t.server.statusWrites.flatMap((s) => s.conditions ?? []).map((c) => c.reason)).not.toContain(
      'WaitingForReference',
    );
  });

  it('reports the missing object once the grace has run out', async () => {
    const clock = { now: at(1) };
    const t = setupReferencing(undefined, clock);
    await t.reconcile();

    clock.now = at(REAL_TIMINGS.referenceArrivalGraceMs / 1000);
    // A quiet wait, looked at again when it would have been missing too long.
    expect(await t.reconcile()).toEqual({ requeueAfterMs: REAL_TIMINGS.referenceMissingReportMs });
    const ready = t.server.get('a').status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({
      status: 'False',
      reason: 'WaitingForReference',
      message: 'Gadget g does not exist yet',
    });
  });

  it('says with a Warning, in Synced and in Ready, that a reference missing for a minute does not exist, once', async () => {
    const clock = { now: at(REAL_TIMINGS.referenceArrivalGraceMs / 1000) };
    const { recorder, events } = fakeEvents();
    const t = setupReferencing(undefined, clock, recorder);
    await t.reconcile();
    t.cache.set(t.server.get('a'));
    expect(events).toEqual([]);
    expect(t.server.get('a').status?.conditions?.find((c) => c.type === 'Synced')?.status).toBe('True');

    clock.now = at(
      REAL_TIMINGS.referenceArrivalGraceMs / 1000 + REAL_TIMINGS.referenceMissingReportMs / 1000,
    );
    expect(await t.reconcile()).toEqual({ resyncAfterMs: SYNC_MS });
    t.cache.set(t.server.get('a'));
    const message = 'Gadget g does not exist (missing for 1m or more): create it, or correct the reference';
    const conditions = t.server.get('a').status?.conditions ?? [];
    expect(
      conditions.map(({ type, status, reason, message }) => ({ type, status, reason, message })),
    ).toEqual(
      expect.arrayContaining([
        { type: 'Synced', status: 'False', reason: 'ReferenceNotFound', message },
        { type: 'Ready', status: 'False', reason: 'ReferenceNotFound', message },
      ]),
    );
    expect(events.map((e) => [e.type, e.reason, e.message])).toEqual([
      ['Warning', 'ReferenceNotFound', message],
    ]);

    // Looked at again: no second Warning. Once the object exists, it is used.
    await t.reconcile();
    expect(events).toHaveLength(1);
    t.gadgetArrives();
    await t.reconcile();
    expect(t.cloud.calls).toContain('create');
  });

  it('reports at once an object that reported before, or a referenced object that exists but is not ready', async () => {
    const clock = { now: at(1) };
    const reported = setupReferencing(undefined, clock);
    reported.cache.set(
      reported.server.put({
        ...reported.server.get('a'),
        status: {
          conditions: [
            { type: 'Ready', status: 'True', reason: 'Available', message: '', lastTransitionTime: CREATED },
          ],
        },
      }),
    );
    await reported.reconcile();
    expect(reported.server.get('a').status?.conditions?.find((c) => c.type === 'Ready')?.message).toBe(
      'Gadget g does not exist yet',
    );

    const notReady = setupReferencing({}, clock);
    await notReady.reconcile();
    expect(notReady.server.get('a').status?.conditions?.find((c) => c.type === 'Ready')?.message).toBe(
      'Gadget g is not ready yet',
    );
  });

  it('does not write the same status again while the cache has not shown its first write', async () => {
    const clock = { now: at(REAL_TIMINGS.referenceArrivalGraceMs / 1000 + 1) };
    const t = setupReferencing(undefined, clock);
    await t.reconcile();
    // Woken again (say, by another object) before the watch delivered the write: the cache is as before.
    clock.now = at(REAL_TIMINGS.referenceArrivalGraceMs / 1000 + 2);
    await t.reconcile();

    expect(t.server.statusWrites).toHaveLength(1);
    const ready = t.server.get('a').status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready?.lastTransitionTime).toBe(at(REAL_TIMINGS.referenceArrivalGraceMs / 1000 + 1).toISOString());
  });
});
