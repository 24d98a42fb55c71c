/** Admission policies a platform team might install, for tests of what sluice does when a write is refused. */
import type { OperatorEnv } from './support.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type ResourceRule = { apiGroups: string[]; apiVersions: string[]; operations: string[]; resources: string[] };

/** A ValidatingAdmissionPolicy denying, in the env's namespace, what `rules` match unless `expression` holds. */
export async function admissionPolicy(
  env: OperatorEnv,
  name: string,
  rules: ResourceRule[],
  expression: string,
  message: string,
): Promise<() => Promise<void>> {
  const ref = (kind: string) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name } });
  await env.objects.create({
    ...ref('ValidatingAdmissionPolicy'),
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: rules },
      validations: [{ expression, message }],
    },
  } as never);
  await env.objects.create({
    ...ref('ValidatingAdmissionPolicyBinding'),
    spec: {
      policyName: name,
      validationActions: ['Deny'],
      matchResources: {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': env.namespace } },
      },
    },
  } as never);
  return async () => {
    await env.objects.delete(ref('ValidatingAdmissionPolicyBinding'));
    await env.objects.delete(ref('ValidatingAdmissionPolicy'));
  };
}

/**
 * A ValidatingAdmissionPolicy refusing Secret writes in one namespace (as a platform team's policy would);
 * `realOnly` lets server-side dry runs through, so only the real write is refused.
 */
export async function refuseSecretWrites(env: OperatorEnv, realOnly = false): Promise<() => Promise<void>> {
  const remove = await admissionPolicy(
    env,
    `refuse-secrets-${env.namespace}`,
    [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['secrets'] }],
    realOnly ? 'request.dryRun == true' : 'false',
    'Secrets are frozen in this namespace',
  );
  // The policy takes effect once the apiserver has compiled it: wait until a probe Secret is refused.
  const probe = { metadata: { name: 'policy-probe' }, stringData: { x: 'y' } };
  for (let i = 0; ; i++) {
    try {
      await env.core.createNamespacedSecret({ namespace: env.namespace, body: probe, dryRun: 'All' });
      if (realOnly) {
        await env.core.createNamespacedSecret({ namespace: env.namespace, body: probe });
        await env.core.deleteNamespacedSecret({ namespace: env.namespace, name: 'policy-probe' });
      }
    } catch {
      if (!realOnly || i > 0) break;
    }
    if (i > 100) throw new Error('the admission policy never took effect');
    await sleep(100);
  }
  return async () => {
    await remove();
    // Lifted once a probe Secret can be created again (for real when only real writes were refused).
    for (let i = 0; i < 100; i++) {
      try {
        await env.core.createNamespacedSecret({
          namespace: env.namespace,
          body: probe,
          ...(realOnly ? {} : { dryRun: 'All' }),
        });
        if (realOnly)
          await env.core.deleteNamespacedSecret({ namespace: env.namespace, name: 'policy-probe' });
        return;
      } catch {
        await sleep(100);
      }
    }
  };
}
