// Smoke test of the test control plane itself: the apiserver behaviours the
// operator relies on are real here, not mocked. Runs against the cluster
// started by test/harness/global-setup.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  RbacAuthorizationV1Api,
  Watch,
  loadYaml,
  setHeaderOptions,
  type KubernetesObject,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { waitEstablished } from '../../tools/cluster/crds.ts';
import { createTestNamespace, type TestNamespace } from '../harness/namespace.ts';
import { clusterSkipReason } from '../harness/test-cluster.ts';
import { eventually } from '../support/wait.ts';

const group = 'smoke.test.sluice.dev';
const version = 'v1';
const plural = 'widgets';
const ruleMessage = 'spec.minReplicas must not exceed spec.maxReplicas';

// As YAML, the form CRDs have in crds/: loadYaml maps it onto client-node's
// typed model (x-kubernetes-validations -> x_kubernetes_validations), which
// KubernetesObjectApi serialises back. A plain object with the wire-format
// key would lose the rule silently.
const crd = loadYaml<V1CustomResourceDefinition>(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: { plural: ${plural}, singular: widget, kind: Widget, listKind: WidgetList }
  versions:
    - name: ${version}
      served: true
      storage: true
      subresources: { status: {} }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                minReplicas: { type: integer }
                maxReplicas: { type: integer }
              x-kubernetes-validations:
                - rule: self.minReplicas <= self.maxReplicas
                  message: ${ruleMessage}
            status:
              type: object
              properties:
                phase: { type: string }
`);

interface Widget extends KubernetesObject {
  spec: { minReplicas: number; maxReplicas: number };
  status?: { phase?: string };
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Runs `fn`, expecting an API error; returns its HTTP code and full text. */
async function apiError(fn: () => Promise<unknown>): Promise<{ code: number; text: string }> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof ApiException)
      return { code: err.code, text: `${err.message} ${JSON.stringify(err.body)}` };
    throw err;
  }
  throw new Error('expected the API call to fail, but it succeeded');
}

/** How long the apiserver's controllers and caches may take to act, and how often to look. */
const SETTLES = { timeoutMs: 10_000, intervalMs: 100 };
const SETTLES_SLOWLY = { ...SETTLES, timeoutMs: 30_000 };

const skip = clusterSkipReason();
if (skip) console.warn(`control-plane smoke test skipped: ${skip}`);

describe.skipIf(skip)('test control plane', () => {
  let ns: TestNamespace;
  let custom: CustomObjectsApi;

  const widget = (
    name: string,
    minReplicas: number,
    maxReplicas: number,
    extra: Partial<Widget> = {},
  ): Widget => ({
    apiVersion: `${group}/${version}`,
    kind: 'Widget',
    metadata: { name, ...extra.metadata },
    spec: { minReplicas, maxReplicas },
    ...(extra.status ? { status: extra.status } : {}),
  });
  const create = (body: Widget) =>
    custom.createNamespacedCustomObject({
      group,
      version,
      plural,
      namespace: ns.name,
      body,
    }) as Promise<Widget>;
  const get = (name: string) =>
    custom.getNamespacedCustomObject({ group, version, plural, namespace: ns.name, name }) as Promise<Widget>;

  beforeAll(async () => {
    ns = await createTestNamespace('smoke');
    custom = ns.kc.makeApiClient(CustomObjectsApi);
    // Server-side apply: idempotent when re-run against a long-lived cluster.
    await KubernetesObjectApi.makeApiClient(ns.kc).patch(
      crd,
      undefined,
      undefined,
      'sluice-smoke-test',
      true,
      PatchStrategy.ServerSideApply,
    );
    await waitEstablished(ns.kc, [crd.metadata!.name!]);
  });

  afterAll(async () => {
    await ns?.delete();
  });

  it('rejects an object that breaks the CRD CEL rule, quoting the rule message', async () => {
    const err = await apiError(() => create(widget('invalid', 5, 1)));
    expect(err.code).toBe(422);
    expect(err.text).toContain(ruleMessage);
    expect((await apiError(() => get('invalid'))).code).toBe(404);
  });

  it('accepts a valid object and changes status only through the status subresource', async () => {
    const created = await create(widget('valid', 1, 3, { status: { phase: 'Ignored' } }));
    expect(created.spec).toEqual({ minReplicas: 1, maxReplicas: 3 });
    expect(created.status).toBeUndefined(); // status in a create body is dropped

    // A status change through the main resource is ignored ...
    await custom.patchNamespacedCustomObject(
      { group, version, plural, namespace: ns.name, name: 'valid', body: { status: { phase: 'Sneaky' } } },
      mergePatch,
    );
    expect((await get('valid')).status).toBeUndefined();

    // ... and applied through /status.
    const patched = (await custom.patchNamespacedCustomObjectStatus(
      { group, version, plural, namespace: ns.name, name: 'valid', body: { status: { phase: 'Ready' } } },
      mergePatch,
    )) as Widget;
    expect(patched.status?.phase).toBe('Ready');
    expect((await get('valid')).status?.phase).toBe('Ready');
  });

  it('streams ADDED, MODIFIED and DELETED watch events', async () => {
    const list = (await custom.listNamespacedCustomObject({
      group,
      version,
      plural,
      namespace: ns.name,
    })) as {
      metadata: { resourceVersion: string };
    };
    const events: string[] = [];
    let sawDeleted!: () => void;
    const deleted = new Promise<void>((r) => (sawDeleted = r));
    const watchDone = new Promise<unknown>((resolve) => {
      void new Watch(ns.kc)
        .watch(
          `/apis/${group}/${version}/namespaces/${ns.name}/${plural}`,
          { resourceVersion: list.metadata.resourceVersion },
          (phase, obj: Widget) => {
            if (obj.metadata?.name !== 'watched') return;
            events.push(phase);
            if (phase === 'DELETED') sawDeleted();
          },
          resolve,
        )
        .then((ctl) => deleted.then(() => ctl.abort()));
    });

    await create(widget('watched', 1, 2));
    await custom.patchNamespacedCustomObject(
      { group, version, plural, namespace: ns.name, name: 'watched', body: { spec: { maxReplicas: 4 } } },
      mergePatch,
    );
    await custom.deleteNamespacedCustomObject({
      group,
      version,
      plural,
      namespace: ns.name,
      name: 'watched',
    });

    await deleted;
    await watchDone;
    expect(events).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
  });

  it('keeps a deleted object with a finalizer until the finalizer is removed', async () => {
    await create(
      widget('held', 1, 1, { metadata: { name: 'held', finalizers: ['smoke.test.sluice.dev/hold'] } }),
    );
    await custom.deleteNamespacedCustomObject({ group, version, plural, namespace: ns.name, name: 'held' });

    const terminating = await get('held');
    expect(terminating.metadata?.deletionTimestamp).toBeTruthy();
    expect(terminating.metadata?.finalizers).toEqual(['smoke.test.sluice.dev/hold']);

    await custom.patchNamespacedCustomObject(
      { group, version, plural, namespace: ns.name, name: 'held', body: { metadata: { finalizers: null } } },
      mergePatch,
    );
    expect((await apiError(() => get('held'))).code).toBe(404);
  });

  it('finishes a namespace deletion once the finalizers of what it holds are removed (the namespace controller)', async () => {
    const doomed = await createTestNamespace('smoke-doomed');
    const core = doomed.kc.makeApiClient(CoreV1Api);
    await custom.createNamespacedCustomObject({
      group,
      version,
      plural,
      namespace: doomed.name,
      body: widget('held', 1, 1, { metadata: { name: 'held', finalizers: ['smoke.test.sluice.dev/hold'] } }),
    });
    await core.createNamespacedConfigMap({ namespace: doomed.name, body: { metadata: { name: 'plain' } } });
    await doomed.delete();

    // The controller deletes the content, one resource type after another in no fixed order: the ConfigMap
    // goes, the Widget waits on its finalizer ...
    await eventually(async () => {
      expect(
        (await apiError(() => core.readNamespacedConfigMap({ name: 'plain', namespace: doomed.name }))).code,
      ).toBe(404);
      const held = (await custom.getNamespacedCustomObject({
        group,
        version,
        plural,
        namespace: doomed.name,
        name: 'held',
      })) as Widget;
      expect(held.metadata?.deletionTimestamp).toBeTruthy();
      // The namespace controller's queue sets the pace; beside the node tests 10 s was not always enough.
    }, SETTLES_SLOWLY);
    expect((await core.readNamespace({ name: doomed.name })).status?.phase).toBe('Terminating');

    // ... and the namespace goes once the finalizer does.
    await custom.patchNamespacedCustomObject(
      {
        group,
        version,
        plural,
        namespace: doomed.name,
        name: 'held',
        body: { metadata: { finalizers: null } },
      },
      mergePatch,
    );
    await eventually(async () => {
      expect((await apiError(() => core.readNamespace({ name: doomed.name }))).code).toBe(404);
    }, SETTLES_SLOWLY);
  });

  it('deletes an object whose owner was deleted (the garbage collector)', async () => {
    const core = ns.kc.makeApiClient(CoreV1Api);
    const owner = await core.createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: { name: 'owner' } },
    });
    await core.createNamespacedSecret({
      namespace: ns.name,
      body: {
        metadata: {
          name: 'owned',
          ownerReferences: [
            { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! },
          ],
        },
      },
    });
    await core.deleteNamespacedConfigMap({ name: 'owner', namespace: ns.name });
    await eventually(async () => {
      expect(
        (await apiError(() => core.readNamespacedSecret({ name: 'owned', namespace: ns.name }))).code,
      ).toBe(404);
    }, SETTLES_SLOWLY);
  });

  it('enforces RBAC for an impersonated ServiceAccount: 403 until a Role grants access', async () => {
    await ns.kc.makeApiClient(CoreV1Api).createNamespacedServiceAccount({
      namespace: ns.name,
      body: { metadata: { name: 'reader' } },
    });
    const admin = ns.kc.getCurrentUser()!;
    const asReader = new KubeConfig();
    asReader.loadFromOptions({
      clusters: ns.kc.clusters,
      contexts: ns.kc.contexts,
      currentContext: ns.kc.currentContext,
      // The admin token authenticates; Impersonate-User makes the request the SA's.
      users: [{ ...admin, impersonateUser: `system:serviceaccount:${ns.name}:reader` }],
    });
    const readerApi = asReader.makeApiClient(CustomObjectsApi);
    const listAsReader = () =>
      readerApi.listNamespacedCustomObject({ group, version, plural, namespace: ns.name });

    const denied = await apiError(listAsReader);
    expect(denied.code).toBe(403);
    expect(denied.text).toContain(`system:serviceaccount:${ns.name}:reader`);

    const rbac = ns.kc.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: ns.name,
      body: {
        metadata: { name: 'widget-reader' },
        rules: [{ apiGroups: [group], resources: [plural], verbs: ['get', 'list', 'watch'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: ns.name,
      body: {
        metadata: { name: 'widget-reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'widget-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: ns.name }],
      },
    });

    // The RBAC authorizer reads roles from an informer cache: allow it a moment.
    const allowed = (await eventually(listAsReader, SETTLES)) as { items: unknown[] };
    expect(Array.isArray(allowed.items)).toBe(true);
    // Only the granted verbs: creating is still forbidden.
    const createDenied = await apiError(() =>
      readerApi.createNamespacedCustomObject({
        group,
        version,
        plural,
        namespace: ns.name,
        body: widget('nope', 1, 1),
      }),
    );
    expect(createDenied.code).toBe(403);
  });
});
