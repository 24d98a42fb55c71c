// Installs the project's CRDs (every YAML/JSON file in a directory, usually
// <repo>/crds) into a cluster and waits until the apiserver serves them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ApiextensionsV1Api,
  KubernetesObjectApi,
  PatchStrategy,
  loadAllYaml,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';

const FIELD_MANAGER = 'sluice-test-harness';

function manifestsIn(dir: string): KubernetesObject[] {
  const files = readdirSync(dir)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort();
  return files.flatMap((f) =>
    (loadAllYaml(readFileSync(join(dir, f), 'utf8')) as (KubernetesObject | null)[]).filter(
      (o): o is KubernetesObject => !!o?.kind,
    ),
  );
}

/**
 * Server-side applies every manifest in `dir` (so re-running against an
 * existing cluster updates rather than conflicts), then waits for each CRD's
 * Established condition: until then, requests for its kind would 404.
 * Returns the names of the CRDs applied.
 */
export async function applyCrdDir(kc: KubeConfig, dir: string, timeoutMs = 30_000): Promise<string[]> {
  const objects = manifestsIn(dir);
  const client = KubernetesObjectApi.makeApiClient(kc);
  for (const obj of objects) {
    await client.patch(obj, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
  }
  const crdNames = objects
    .filter((o) => o.kind === 'CustomResourceDefinition' && o.metadata?.name)
    .map((o) => o.metadata!.name!);
  await waitEstablished(kc, crdNames, timeoutMs);
  return crdNames;
}

export async function waitEstablished(kc: KubeConfig, names: string[], timeoutMs = 30_000): Promise<void> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  const deadline = Date.now() + timeoutMs;
  for (const name of names) {
    for (;;) {
      const crd = await api.readCustomResourceDefinition({ name });
      const established = crd.status?.conditions?.some(
        (c) => c.type === 'Established' && c.status === 'True',
      );
      if (established) break;
      if (Date.now() > deadline) throw new Error(`CRD ${name} not Established after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
