// What users write reaches status (annotations, names in messages); a status the apiserver refuses must never
// leave an object unable to record anything.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { condition, isReady, startOperatorEnv, writes as writesOf, type OperatorEnv } from '../support.ts';
import { until } from '../../../support/wait.ts';

const POLICY = 'sluice-test-status-refused';

describe.skipIf(clusterSkipReason())('status bounds and refused status writes', () => {
  let env: OperatorEnv;

  beforeAll(async () => {
    env = await startOperatorEnv('status-bounds');
  });
  afterEach(() => env.stopOperator());
  afterAll(async () => {
    for (const kind of ['ValidatingAdmissionPolicyBinding', 'ValidatingAdmissionPolicy']) {
      await env.objects
        .delete({ apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name: POLICY } })
        .catch(() => undefined);
    }
    await env?.close();
  });

  const statusRefusedEvents = async (name: string) =>
    (await env.core.listNamespacedEvent({ namespace: env.namespace })).items.filter(
      (e) => e.involvedObject.name === name && e.reason === 'StatusRefused',
    );
  const serviceReads = async (id: string) =>
    (await env.calls()).filter((c) => c.method === 'GET' && c.path.endsWith(`/services/${id}`)).length;

  it('records a reconcile-requested-at over 1,024 characters by its digest, and goes on recording generations', async () => {
    await env.startOperator();
    await env.apply('long-request', { name: 'long request' });
    const ready = await env.waitFor('long-request', 'Ready', isReady);
    const id = ready.status!.id!;

    const requested = `${new Date().toISOString()}-${'x'.repeat(2_000)}`;
    await env.annotate('long-request', { 'sluice.dev/reconcile-requested-at': requested });
    const handled = await env.waitFor('long-request', 'request handled', (r) =>
      String(r?.status?.lastHandledReconcileAt ?? '').startsWith('sha256:'),
    );
    expect(handled.status!.lastHandledReconcileAt).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(condition(handled, 'Synced')?.status).toBe('True');

    // Handled once: the cloud is not read afresh again and again.
    await env.clearCalls();
    await env.reconciledAgain('DatabaseService', 'long-request', 2);
    expect(await serviceReads(id)).toBeLessThanOrEqual(1);

    await env.patchSpec('long-request', { tags: [{ key: 'team', value: 'a' }] });
    const edited = await env.waitFor(
      'long-request',
      'generation 2 observed',
      (r) => r?.status?.observedGeneration === 2 && isReady(r),
    );
    expect(edited.metadata.generation).toBe(2);
    expect(await statusRefusedEvents('long-request')).toEqual([]);
  }, 60_000);

  it('refuses an external-id longer than a cloud id, naming the annotation, instead of copying it into status', async () => {
    await env.clearCalls();
    await env.startOperator();
    await env.apply('long-id', { name: 'long id' }, { 'sluice.dev/external-id': 'i'.repeat(300) });
    const refused = await env.waitFor(
      'long-id',
      'Synced=InvalidAnnotation',
      (r) => condition(r, 'Synced')?.reason === 'InvalidAnnotation',
    );
    expect(condition(refused, 'Synced')?.message).toBe(
      'annotation sluice.dev/external-id is 300 characters long; a cloud id has at most 253',
    );
    expect(refused.status?.id).toBeUndefined();
    expect(writesOf(await env.calls())).toEqual([]);
  });

  it('reports a status the apiserver refuses once, keeps what it accepted, and records later generations', async () => {
    // An admission rule sluice does not know of: a tighter bound on lastHandledReconcileAt, in this namespace.
    await env.objects.create({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: POLICY },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ['sluice.dev'],
              apiVersions: ['*'],
              operations: ['UPDATE'],
              resources: ['databaseservices/status'],
            },
          ],
        },
        validations: [
          {
            expression:
              '!has(object.status.lastHandledReconcileAt) || size(object.status.lastHandledReconcileAt) <= 16',
            message: 'status.lastHandledReconcileAt is longer than this cluster allows',
            reason: 'Invalid',
          },
        ],
      },
    } as never);
    await env.objects.create({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: POLICY },
      spec: {
        policyName: POLICY,
        validationActions: ['Deny'],
        matchResources: {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': env.namespace } },
        },
      },
    } as never);
    // The policy takes effect a moment after its creation: probe it with a status write of our own.
    await env.apply('probe', { name: 'probe' });
    const writeProbeStatus = () =>
      env.kc.makeApiClient(CustomObjectsApi).patchNamespacedCustomObjectStatus(
        {
          group: 'sluice.dev',
          version: 'v1alpha1',
          namespace: env.namespace,
          plural: 'databaseservices',
          name: 'probe',
          body: { status: { lastHandledReconcileAt: 'x'.repeat(17) } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    await until(
      'the status policy in effect',
      () =>
        writeProbeStatus().then(
          () => false,
          () => true,
        ),
      20_000,
      200,
    );
    await env.remove('probe');

    await env.startOperator();
    await env.apply('refused', { name: 'refused' });
    const id = (await env.waitFor('refused', 'Ready', isReady)).status!.id!;
    await env.annotate('refused', { 'sluice.dev/reconcile-requested-at': 'a value longer than sixteen' });
    const refused = await env.waitFor(
      'refused',
      'Synced=StatusRefused',
      (r) => condition(r, 'Synced')?.reason === 'StatusRefused',
    );
    const synced = condition(refused, 'Synced');
    expect(synced?.status).toBe('False');
    expect(synced?.message).toContain('status.lastHandledReconcileAt is longer than this cluster allows');
    expect(refused.status?.lastHandledReconcileAt).toBeUndefined();
    expect(isReady(refused)).toBe(true);

    // A later spec edit is acted on and shows as observed, although its full status is refused too.
    await env.patchSpec('refused', { tags: [{ key: 'team', value: 'b' }] });
    const edited = await env.waitFor(
      'refused',
      'generation 2 observed',
      (r) => r?.status?.observedGeneration === 2,
    );
    expect(condition(edited, 'Synced')?.reason).toBe('StatusRefused');
    const service = await env.cloud.getService(id);
    expect(service.tags).toContainEqual({ key: 'team', value: 'b' });

    // Reported once, and not read afresh by each later reconcile although status cannot record the request.
    await env.clearCalls();
    await env.reconciledAgain('DatabaseService', 'refused', 2);
    expect(await serviceReads(id)).toBe(0);
    expect(await statusRefusedEvents('refused')).toHaveLength(1);
  }, 90_000);
});
