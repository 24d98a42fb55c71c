import { ObjectCache } from '../../../src/kube/cache.ts';
import { ReconcileError, Waiting } from '../../../src/managed/errors.ts';
import { RETRY_DELAYS } from '../../../src/base/retry-delays.ts';
import type { EventRecorder } from '../../../src/managed/events.ts';
import { ManagedReconciler, type ManagedReconcilerOptions } from '../../../src/managed/reconciler.ts';
import { assertControlledBy, type KubeWriter } from '../../../src/managed/kube-writer.ts';
import type { SecretReader } from '../../../src/managed/secret-references.ts';
import type {
  ExternalClient,
  Judgement,
  KindConnection,
  LostCreate,
  ManagedKind,
  ManagedObject,
  ManagedStatus,
  Observed,
} from '../../../src/managed/types.ts';

/**
 * In-memory stand-ins for the reconciler's collaborators (unit tests only): an apiserver that keeps objects
 * and Secrets with resourceVersions, a cache the test can hold back, an Event log, and a cloud of widgets.
 */

export interface Widget extends ManagedObject {
  spec: ManagedObject['spec'] & { size: number; connectionSecret?: string };
}

export function widget(name: string, spec: Partial<Widget['spec']> = {}, uid = `uid-${name}`): Widget {
  return {
    apiVersion: 'example.dev/v1',
    kind: 'Widget',
    metadata: { name, namespace: 'ns', uid, generation: 1, resourceVersion: '1' },
    spec: { size: 1, ...spec },
  };
}

interface StoredSecret {
  ownerReferences: Array<{ uid: string; controller?: boolean; kind: string; name: string }>;
  data: Record<string, string>;
}

/** The apiserver as the reconciler's KubeWriter sees it. */
export class FakeServer {
  readonly objects = new Map<string, Widget>();
  readonly secrets = new Map<string, StoredSecret>();
  readonly statusWrites: ManagedStatus[] = [];
  /** Connection Secret reads that went to the apiserver (a GET each). */
  secretGets = 0;
  /** Dry runs of a connection Secret write (checked, never stored). */
  secretDryRuns = 0;
  /** Set: a Secret cannot be created now, for this reason (a namespace being deleted, an admission policy). */
  secretCreateRefusal: string | undefined;
  private resourceVersion = 1;

  put(object: Widget): Widget {
    const stored = structuredClone(object);
    stored.metadata.resourceVersion = String(++this.resourceVersion);
    this.objects.set(object.metadata.name, stored);
    return structuredClone(stored);
  }

  get(name: string): Widget {
    return structuredClone(this.objects.get(name)!);
  }

  /** A user edits the spec: the generation moves. */
  editSpec(name: string, spec: Partial<Widget['spec']>): Widget {
    const object = this.get(name);
    object.spec = { ...object.spec, ...spec };
    object.metadata.generation = (object.metadata.generation ?? 1) + 1;
    return this.put(object);
  }

  /** A Secret someone else made (no owner, or another owner). */
  putSecret(name: string, data: Record<string, string>, ownerUid?: string): void {
    const ownerReferences = ownerUid
      ? [{ uid: ownerUid, controller: true, kind: 'Widget', name: 'other' }]
      : [];
    this.secrets.set(name, { ownerReferences, data: { ...data } });
  }

  writer(): KubeWriter {
    const writer: KubeWriter = {
      patchStatus: async (_kind, resource, status) => {
        const object = this.get(resource.metadata.name);
        object.status = structuredClone(status);
        this.statusWrites.push(structuredClone(status));
        return this.answer(resource, this.put(object));
      },
      patchMetadata: async (_kind, resource, change) => {
        const object = this.get(resource.metadata.name);
        if (object.metadata.resourceVersion !== resource.metadata.resourceVersion) {
          throw new Error('409 Conflict');
        }
        if (change.finalizers) object.metadata.finalizers = change.finalizers;
        for (const [key, value] of Object.entries(change.annotations ?? {})) {
          object.metadata.annotations ??= {};
          if (value === null) delete object.metadata.annotations[key];
          else object.metadata.annotations[key] = value;
        }
        return this.answer(resource, this.put(object));
      },
      setFinalizers: (kind, resource, finalizers) => writer.patchMetadata(kind, resource, { finalizers }),
      readConnectionSecret: async (owner, name) => {
        this.secretGets++;
        const secret = this.secrets.get(name);
        if (secret) assertControlledBy({ metadata: { name, ...secret } }, owner);
        return secret?.data;
      },
      writeConnectionSecret: async (owner, name, details) => {
        const secret = this.secrets.get(name);
        if (secret) assertControlledBy({ metadata: { name, ...secret } }, owner);
        const ownerReferences = [
          { uid: owner.metadata.uid, controller: true, kind: owner.kind!, name: owner.metadata.name },
        ];
        const data = { ...secret?.data, ...details };
        this.secrets.set(name, { ownerReferences, data });
        return { data: { ...data }, resourceVersion: '1', ownerReferences };
      },
      checkConnectionSecretWritable: async () => {
        this.secretDryRuns++;
        const refusal = this.secretCreateRefusal;
        if (refusal) throw new ReconcileError('SecretNotWritable', refusal, RETRY_DELAYS.secretNotWritable);
      },
    };
    return writer;
  }

  /** The stored object as the write answers it, typed as the object written (this server stores widgets only). */
  private answer<R extends ManagedObject>(_resource: R, stored: Widget): R {
    return stored as unknown as R;
  }

  /** The operator's Secret cache, here always in step with the server. */
  secretCache(): SecretReader {
    return {
      get: (_namespace, name) => {
        const secret = this.secrets.get(name);
        return (
          secret && {
            data: { ...secret.data },
            resourceVersion: '1',
            ownerReferences: secret.ownerReferences,
          }
        );
      },
    };
  }
}

/** A cache the test fills by hand, e.g. with an object older than the server's. */
export class FakeCache extends ObjectCache<Widget> {
  set(object: Widget): void {
    this.upsert(structuredClone(object));
  }
}

/**
 * A KubeWriter with no apiserver behind it: every write is accepted and answered with the object as written;
 * there are no connection Secrets. For tests where the cache, not the apiserver, is what changes.
 */
export function acceptingWriter(): KubeWriter {
  return {
    patchStatus: async (_kind, resource, status) => ({ ...resource, status }),
    setFinalizers: async (_kind, resource, finalizers) => ({
      ...resource,
      metadata: { ...resource.metadata, finalizers },
    }),
    patchMetadata: async (_kind, resource, change) => {
      const annotations = { ...resource.metadata.annotations };
      for (const [key, value] of Object.entries(change.annotations ?? {})) {
        if (value === null) delete annotations[key];
        else annotations[key] = value;
      }
      const finalizers = change.finalizers ?? resource.metadata.finalizers;
      return { ...resource, metadata: { ...resource.metadata, annotations, finalizers } };
    },
    readConnectionSecret: async () => undefined,
    writeConnectionSecret: async (_owner, _name, details) => ({ data: { ...details }, resourceVersion: '1' }),
    checkConnectionSecretWritable: async () => {},
  };
}

export interface RecordedEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export function fakeEvents(): { recorder: EventRecorder; events: RecordedEvent[] } {
  const events: RecordedEvent[] = [];
  const recorder = {
    record: (_regarding: ManagedObject, type: 'Normal' | 'Warning', reason: string, message: string) =>
      events.push({ type, reason, message }),
  };
  return { recorder: recorder as unknown as EventRecorder, events };
}

/** Widgets in the cloud; each method can be replaced by a test. */
export class FakeCloud implements ExternalClient<Widget, number> {
  readonly widgets = new Map<string, { size: number; ready: boolean; uid: string }>();
  readonly calls: string[] = [];
  /** When set, `ensureCreatable` waits with this message (as a Pipe waits for its service to wake up). */
  waitBeforeCreate: string | undefined;
  private nextId = 1;

  async ensureCreatable(): Promise<Waiting | void> {
    if (this.waitBeforeCreate) return new Waiting('WaitingForReference', this.waitBeforeCreate);
  }

  /** What each look-up was asked to search for. */
  readonly lookUps: (LostCreate | undefined)[] = [];

  async findCreated(resource: Widget, lost: LostCreate | undefined): Promise<string | undefined> {
    this.calls.push('findCreated');
    this.lookUps.push(lost);
    return [...this.widgets].find(([, w]) => w.uid === resource.metadata.uid)?.[0];
  }

  async observe(_resource: Widget, id: string): Promise<Observed<Widget, number>> {
    this.calls.push('observe');
    const found = this.widgets.get(id);
    if (!found) return { exists: false };
    return {
      exists: true,
      observed: { size: found.size },
      diff: (spec: Widget['spec']) => ({
        differences: found.size === spec.size ? [] : ['size'],
        plan: found.size,
        available: found.ready,
      }),
      status: { size: found.size },
      connectionDetails: { host: `${id}.example` },
    };
  }

  async create(resource: Widget) {
    this.calls.push('create');
    const id = `w-${this.nextId++}`;
    this.widgets.set(id, { size: resource.spec.size, ready: false, uid: resource.metadata.uid });
    return { externalId: id, connectionDetails: { host: `${id}.example`, password: `pw-${id}` } };
  }

  async update(resource: Widget, id: string): Promise<void | Waiting> {
    this.calls.push('update');
    this.widgets.get(id)!.size = resource.spec.size;
  }

  async delete(_resource: Widget, id: string): Promise<'gone' | 'pending'> {
    this.calls.push('delete');
    this.widgets.delete(id);
    return 'gone';
  }

  async recoverConnectionDetails(_resource: Widget, id: string) {
    this.calls.push('recover');
    return { password: `reset-${id}` };
  }
}

/** The fake cloud in each role a reconcile connects: a test that replaces one of its methods sees it used. */
export function connected(cloud: FakeCloud): KindConnection<Widget, number> {
  return { client: cloud, records: cloud, creation: cloud };
}

/** `found` saying more than the fake cloud says: its diff judging more (a failure), a difference no spec field holds. */
export function observedAlso(
  found: Observed<Widget, number>,
  more: { judged?: Partial<Judgement<number>>; unheldDifferences?: string[] },
): Observed<Widget, number> {
  if (!found.exists) return found;
  return {
    ...found,
    diff: (spec) => ({ ...found.diff(spec), ...more.judged }),
    unheldDifferences: [...(found.unheldDifferences ?? []), ...(more.unheldDifferences ?? [])],
  };
}

/** The annotation the widget kind names for a reset: the runtime knows none of its own. */
export const WIDGET_RESET = 'widgets.example.dev/renew-password';

export function widgetKind(cloud: FakeCloud): ManagedKind<Widget, FakeCloud, number> {
  return {
    kind: 'Widget',
    group: 'example.dev',
    version: 'v1',
    plural: 'widgets',
    defaultDeletionPolicy: 'Delete',
    connectionSecret: {
      name: (resource) => resource.spec.connectionSecret ?? `${resource.metadata.name}-connection`,
      requiredKeys: ['password'],
      resetAnnotation: WIDGET_RESET,
    },
    connect: () => connected(cloud),
  };
}

/** A widget kind that names a Gadget in spec.gadget and records the gadget's id in status.gadgetId. */
export function gadgetReferencingKind(cloud: FakeCloud): ManagedKind<Widget, FakeCloud, number> {
  return {
    ...widgetKind(cloud),
    references: [
      {
        name: 'gadget',
        kind: 'Gadget',
        objectName: (resource) => resource.spec.gadget as string,
        plainId: () => undefined,
        statusField: 'gadgetId',
      },
    ],
  };
}

/** A cloud method that fails every call with `error`, put in place of a fake's own. */
export const failingWith = (error: unknown) => async (): Promise<never> => {
  throw error;
};

/** A fresh server, cache and cloud of widgets: what each test's reconciler runs over. */
export function widgetFakes(): { server: FakeServer; cache: FakeCache; cloud: FakeCloud } {
  return { server: new FakeServer(), cache: new FakeCache(), cloud: new FakeCloud() };
}

/** The drift-check and first poll intervals of the reconcilers the tests build. */
export const SYNC_MS = 600_000;
export const POLL_MS = 1_000;

/**
 * A reconciler of widgets over the fakes (its kind, cache, writer, Secrets and cloud), with the tests'
 * intervals; `options` add to or replace any of them.
 */
export function fakeReconciler(
  server: FakeServer,
  cache: FakeCache,
  cloud: FakeCloud,
  options: Partial<ManagedReconcilerOptions<Widget, FakeCloud, number>> = {},
): ManagedReconciler<Widget, FakeCloud, number> {
  return new ManagedReconciler({
    kind: widgetKind(cloud),
    secrets: server.secretCache(),
    cache,
    writer: server.writer(),
    events: fakeEvents().recorder,
    cloudFor: async () => cloud,
    syncIntervalMs: SYNC_MS,
    pollIntervalMs: POLL_MS,
    ...options,
  });
}

/** Widget `a` on the server, reconciled until Ready: its cloud widget w-1 made ready between two reconciles. */
export async function readyWidgetIn<
  T extends { server: FakeServer; cache: FakeCache; cloud: FakeCloud; reconcile(): Promise<unknown> },
>(t: T): Promise<T> {
  t.cache.set(t.server.put(widget('a')));
  await t.reconcile();
  t.cloud.widgets.get('w-1')!.ready = true;
  await t.reconcile();
  return t;
}
