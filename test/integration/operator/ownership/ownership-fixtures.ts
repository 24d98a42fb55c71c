// What the ownership tests apply: one GitOps namespace of every kind, and the two quotas they run under.
import { kafkaPipe } from '../../../../tools/fixtures/pipe.ts';
import { rpeSpec } from '../../../../tools/fixtures/rpe.ts';
import { tileAlert } from '../../../../tools/fixtures/alert.ts';
import { baseSpec, isReady, type OperatorEnv, type SluiceObject } from '../support.ts';

/** What a GitOps repository holds for one namespace: every kind, two services. */
export const MANIFESTS: { kind: string; name: string; spec: Record<string, unknown> }[] = [
  { kind: 'DatabaseService', name: 'analytics', spec: { ...baseSpec, name: 'analytics' } },
  { kind: 'DatabaseService', name: 'reports', spec: { ...baseSpec, name: 'reports' } },
  { kind: 'ReversePrivateEndpoint', name: 'brokers', spec: rpeSpec('vpcEndpointService', 'analytics') },
  { kind: 'Pipe', name: 'orders', spec: kafkaPipe('orders') },
  {
    kind: 'QueryEndpoint',
    name: 'console',
    spec: {
      serviceRef: { name: 'analytics' },
      roles: ['sql_console_read_only'],
      allowedOrigins: 'a.example',
    },
  },
  { kind: 'Alert', name: 'cpu', spec: tileAlert('cpu') },
];

/** Applies every manifest (with `annotations`) and waits until each is Ready with an id; returns the ids. */
export async function applyAll(
  env: OperatorEnv,
  annotations: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<Record<string, string>> {
  for (const { kind, name, spec } of MANIFESTS) await env.of(kind).apply(name, spec, annotations);
  const ids: Record<string, string> = {};
  for (const { kind, name } of MANIFESTS) {
    const ready = await env
      .of<SluiceObject>(kind)
      .waitFor(name, `${kind} ${name} Ready with an id`, (o) => isReady(o) && !!o?.status?.id, timeoutMs);
    ids[`${kind}/${name}`] = ready.status!.id!;
  }
  return ids;
}

/** Creates `kind/name` with sluice's finalizer already on it, as anyone who may create the object can. */
export async function applyWithFinalizer(
  env: OperatorEnv,
  kind: string,
  name: string,
  spec: Record<string, unknown>,
  annotations: Record<string, string> = {},
): Promise<void> {
  await env.objects.create({
    apiVersion: 'sluice.dev/v1alpha1',
    kind,
    metadata: { name, namespace: env.namespace, annotations, finalizers: ['sluice.dev/cleanup'] },
    spec,
  } as never);
}

/**
 * What a tenant may write on its own object to pose as a lost create of another cluster: the owner-cluster
 * annotation, a create intent dated now and sluice's finalizer, all in the create.
 */
export async function applyCraftedLostCreate(
  env: OperatorEnv,
  name: string,
  cluster: string,
  spec: Record<string, unknown>,
): Promise<void> {
  await applyWithFinalizer(
    env,
    'DatabaseService',
    name,
    { ...baseSpec, deletionPolicy: 'Delete', ...spec },
    { 'sluice.dev/owner-cluster': cluster, 'sluice.dev/create-pending': new Date().toISOString() },
  );
}
