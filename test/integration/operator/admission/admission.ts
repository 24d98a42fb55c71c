import { KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestNamespace, type TestNamespace } from '../../../harness/namespace.ts';

/** What the apiserver answered: 'accepted', or its refusal (the body, which names the field and the rule). */
export type Answer = 'accepted' | (string & {});

/** Creates and merge-patches objects of one sluice kind in a test namespace, answering instead of throwing. */
export interface Admission {
  /** Creates an object with this spec under a fresh name. */
  admit(spec: Record<string, unknown>): Promise<Answer>;
  /** Creates `name`, throwing when the apiserver refuses: for the objects a test goes on to patch. */
  create(name: string, spec: Record<string, unknown>): Promise<{ spec: Record<string, unknown> }>;
  /** A JSON merge patch of the spec of `name`. */
  patch(name: string, spec: Record<string, unknown>): Promise<Answer>;
}

function admission(ns: TestNamespace, kind: string, prefix: string): Admission {
  const objects = KubernetesObjectApi.makeApiClient(ns.kc);
  let counter = 0;
  const manifest = (name: string, spec: Record<string, unknown>) => ({
    apiVersion: 'sluice.dev/v1alpha1',
    kind,
    metadata: { name, namespace: ns.name },
    spec,
  });
  const answer = async (call: () => Promise<unknown>): Promise<Answer> => {
    try {
      await call();
      return 'accepted';
    } catch (error) {
      return String((error as { body?: string }).body ?? error);
    }
  };
  const create = async (name: string, spec: Record<string, unknown>) =>
    (await objects.create(manifest(name, spec) as never)) as unknown as { spec: Record<string, unknown> };
  return {
    create,
    admit: (spec) => answer(() => create(`${prefix}-${++counter}`, spec)),
    patch: (name, spec) =>
      answer(() =>
        objects.patch(
          manifest(name, spec) as never,
          undefined,
          undefined,
          'test',
          undefined,
          PatchStrategy.MergePatch,
        ),
      ),
  };
}

/**
 * Admission of `kind` for the enclosing suite, in a namespace of its own: created before its tests, deleted
 * after. Objects get names `<prefix>-<n>` unless a test names them.
 */
export function useAdmission(kind: string, prefix: string): Admission {
  let ns: TestNamespace | undefined;
  let api: Admission | undefined;
  beforeAll(async () => {
    ns = await createTestNamespace(`${prefix}-admission`);
    api = admission(ns, kind, prefix);
  });
  afterAll(async () => ns?.delete());
  return {
    admit: (spec) => api!.admit(spec),
    create: (name, spec) => api!.create(name, spec),
    patch: (name, spec) => api!.patch(name, spec),
  };
}

type Spec = Record<string, unknown>;

/** A copy of a spec with the dotted `path` set to `value`, or removed when `value` is undefined. */
export function edit(spec: Spec, path: string, value: unknown): Spec {
  const copy = structuredClone(spec);
  const keys = path.split('.');
  let node = copy;
  for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Spec;
  if (value === undefined) delete node[keys.at(-1)!];
  else node[keys.at(-1)!] = value;
  return copy;
}

/** How the apiserver names a spec field in its messages: `spec.a.b[0].c`. */
export const named = (path: string) => `spec.${path.replace(/\.(\d+)/g, '[$1]')}`;

/** Expects the apiserver to refuse, with every one of `messages` in its answer. */
export async function expectRefused(answer: Promise<Answer>, ...messages: string[]): Promise<void> {
  const text = await answer;
  expect(text).not.toBe('accepted');
  for (const message of messages) expect(text).toContain(message);
}

/** A service id in the shape the CRDs take (a uuid), for specs that name a service sluice does not manage. */
export const SERVICE_ID = '5f0c8e4a-1b2c-4d3e-8f90-123456789abc';

/**
 * The tests of what every service-scoped kind takes from `src/kinds/shared/service-scoped.ts` and `managedSpecFields`,
 * declared in the calling suite: `valid` names its service by `serviceRef`; `replace` ends the immutability
 * message (`cannot change after create; create a new <Kind>`).
 */
export function serviceScopedAdmissionTests(
  api: Admission,
  valid: Record<string, unknown>,
  replace: string,
): void {
  const { serviceRef: _ref, ...unnamed } = valid;
  const byId = { ...unnamed, serviceId: SERVICE_ID };

  it('accepts the service by serviceRef or by serviceId, and defaults deletionPolicy to Delete', async () => {
    expect((await api.create('by-ref', valid)).spec).toMatchObject({ deletionPolicy: 'Delete' });
    expect((await api.create('by-id', byId)).spec).toMatchObject({ deletionPolicy: 'Delete' });
  });

  it.each([
    ['neither serviceRef nor serviceId', unnamed, ['exactly one of serviceRef and serviceId']],
    ['both serviceRef and serviceId', { ...valid, serviceId: SERVICE_ID }, ['exactly one of serviceRef']],
    ['a serviceId that is not a uuid', { ...unnamed, serviceId: 'svc-1' }, ['spec.serviceId']],
    [
      'an unknown deletion policy',
      { ...valid, deletionPolicy: 'Keep' },
      ['spec.deletionPolicy', 'Unsupported value'],
    ],
  ])('refuses %s, naming the field', async (_what, spec, messages) => {
    await expectRefused(api.admit(spec), ...messages);
  });

  it.each([
    ['by-ref', 'serviceRef', { serviceRef: { name: 'other' } }],
    ['by-ref', 'serviceRef', { serviceRef: null, serviceId: SERVICE_ID }],
    ['by-id', 'serviceId', { serviceId: '0e6a2f3c-9d41-4b7e-a2c5-6f8d9e0a1b2c' }],
  ])('%s: refuses to move it to another service, naming %s', async (name, field, change) => {
    await expectRefused(api.patch(name, change), `${field} ${replace}`);
  });

  it('by-ref: lets the deletion policy change', async () => {
    expect(await api.patch('by-ref', { deletionPolicy: 'Orphan' })).toBe('accepted');
  });
}
