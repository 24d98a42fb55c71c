// The bad-input checks: every bound of every kind's CRD just outside it at admission (refused, naming the
// field), and every bound of the create schemas sent to the emulator (400 naming the field, nothing created).
import { randomBytes } from 'node:crypto';
import { CoreV1Api, KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import { z } from 'zod';
import { customResourceDefinition } from '../../src/kinds/shared/crd.ts';
import { AlertRequest } from '../../src/cloud/schemas/alert.ts';
import { PipeCreateRequest } from '../../src/cloud/schemas/pipe.ts';
import { ServiceCreateRequest } from '../../src/cloud/schemas/service.ts';
import { startEmulator } from '../../src/emulator/server.ts';
import { KINDS } from '../../src/kinds/index.ts';
import { badCases, type BadCase, type SchemaNode } from './bad-input.ts';
import { generateManifests } from './kinds.ts';

export interface BadInputResult {
  tried: number;
  /** Cases that were accepted, or refused without naming their field: `<field> <rule>: <answer>`. */
  failures: string[];
}

/** Valid bases of each kind: enough manifests that every variant of every kind (each pipe source) appears. */
const bases = (kind: string) => generateManifests(40).filter((m) => m.kind === kind);

const unique = (cases: BadCase[]) => {
  const seen = new Set<string>();
  return cases.filter((c) => !seen.has(`${c.field} ${c.rule}`) && seen.add(`${c.field} ${c.rule}`));
};

export async function admissionBadInput(kubeconfig: string): Promise<BadInputResult> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const core = kc.makeApiClient(CoreV1Api);
  const namespace = `chaos-admission-${randomBytes(3).toString('hex')}`;
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  const result: BadInputResult = { tried: 0, failures: [] };
  for (const kind of KINDS) {
    const crd = customResourceDefinition(kind) as {
      spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: SchemaNode } } } }[] };
    };
    const schema = crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec;
    const cases = unique(bases(kind.kind).flatMap((m) => badCases(schema, m.spec, ['spec'])));
    for (const [i, bad] of cases.entries()) {
      result.tried += 1;
      const answer = await objects
        .create({
          apiVersion: 'sluice.dev/v1alpha1',
          kind: kind.kind,
          metadata: { name: `bad-${kind.plural}-${i}`, namespace },
          spec: bad.document,
        } as never)
        .then(
          () => 'accepted',
          (error: { body?: string }) => String(error.body ?? error),
        );
      if (answer === 'accepted' || !answer.includes(bad.field))
        result.failures.push(`${kind.kind} ${bad.field} ${bad.rule}: ${answer.slice(0, 300)}`);
    }
  }
  await core.deleteNamespace({ name: namespace });
  return result;
}

/** The create routes and the wire schema each validates with; a base body is a manifest's spec on the wire. */
const CONTRACT = [
  {
    what: 'POST services',
    schema: ServiceCreateRequest,
    path: () => 'v1/organizations/:org/services',
    bodies: () => bases('DatabaseService').map((m) => m.spec),
  },
  {
    what: 'POST pipes',
    schema: PipeCreateRequest,
    path: (serviceId: string) => `v1/organizations/:org/services/${serviceId}/pipes`,
    // The operator sends credentials from the referenced Secrets; the bounds are the same without them.
    bodies: () =>
      bases('Pipe').map(({ spec }) => {
        const { serviceRef: _ref, ...body } = spec;
        return JSON.parse(JSON.stringify(body, (k, v: unknown) => (k.endsWith('SecretRef') ? undefined : v)));
      }),
  },
  {
    what: 'POST alerts',
    schema: AlertRequest,
    path: () => 'api/v2/alerts',
    bodies: () => bases('Alert').map((m) => m.spec),
  },
];

export async function contractBadInput(): Promise<BadInputResult> {
  const emulator = await startEmulator({ port: 0, transitionMs: 0, rateLimit: 'off', logger: false });
  const { organizationId, keyId, keySecret, alertsToken } = emulator.credentials;
  const post = async (path: string, body: unknown) => {
    const authorization = path.startsWith('api/')
      ? `Bearer ${alertsToken}`
      : `Basic ${Buffer.from(`${keyId}:${keySecret}`).toString('base64')}`;
    const response = await fetch(`${emulator.url}/${path.replace(':org', organizationId)}`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, text: await response.text() };
  };
  // What exists, not its state: the base service moves on to running by itself meanwhile.
  const ids = () => {
    const { services, pipes, alerts } = emulator.store.snapshot();
    return JSON.stringify([...services, ...pipes, ...alerts].map((r) => r.id));
  };
  const result: BadInputResult = { tried: 0, failures: [] };
  try {
    const created = await post(CONTRACT[0]!.path(''), bases('DatabaseService')[0]!.spec);
    const serviceId = (JSON.parse(created.text) as { result: { service: { id: string } } }).result.service.id;
    for (const route of CONTRACT) {
      const schema = z.toJSONSchema(route.schema, { io: 'input', unrepresentable: 'any' }) as SchemaNode;
      for (const base of route.bodies()) {
        const valid = route.schema.safeParse(base);
        if (!valid.success) result.failures.push(`${route.what}: base body refused: ${valid.error.message}`);
      }
      for (const bad of unique(route.bodies().flatMap((body) => badCases(schema, body)))) {
        result.tried += 1;
        const before = ids();
        const answer = await post(route.path(serviceId), bad.document);
        const field = bad.field.split(/[.[]/).at(-1)!.replace(']', '');
        const unchanged = ids() === before;
        if (answer.status !== 400 || !answer.text.includes(field) || !unchanged)
          result.failures.push(
            `${route.what} ${bad.field} ${bad.rule}: ${answer.status} ${answer.text.slice(0, 200)}${unchanged ? '' : ' (store changed)'}`,
          );
      }
    }
  } finally {
    await emulator.stop();
  }
  return result;
}
