// What a user sees with kubectl: every kind in the `sluice` category, printer columns that tell state at a
// glance, and `kubectl explain` documenting every field, from the CRDs as the apiserver serves them.
import { KubernetesObjectApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP } from '../../../src/kinds/shared/common.ts';
import { customResourceDefinition, grantResourceDefinition } from '../../../src/kinds/shared/crd.ts';
import { kubectlBin, run } from '../../../tools/cluster/install.ts';
import { createTestNamespace, type TestNamespace } from '../../harness/namespace.ts';
import { KINDS } from '../../../src/kinds/index.ts';
import { GRANT_SCHEMAS } from '../../../src/kinds/index.ts';
import { clusterSkipReason, testKubeconfigPath } from '../../harness/test-cluster.ts';

type Node = { type?: string; properties?: Record<string, Node>; items?: Node };

/** Dotted paths of every object in a schema that has fields of its own (what `kubectl explain` lists). */
function* objectPaths(node: Node, path: string): Generator<[string, Node]> {
  if (node.properties) yield [path, node];
  for (const [key, child] of Object.entries(node.properties ?? {}))
    yield* objectPaths(child, `${path}.${key}`);
  if (node.items) yield* objectPaths(node.items, path);
}

describe.skipIf(clusterSkipReason())('kubectl on the sluice kinds', () => {
  let ns: TestNamespace;
  const kubectl = (...args: string[]) => run(kubectlBin(), ['--kubeconfig', testKubeconfigPath()!, ...args]);

  beforeAll(async () => {
    ns = await createTestNamespace('kubectl');
  });
  afterAll(async () => ns?.delete());

  it('lists every kind, and the grants, under the category sluice', () => {
    const names = kubectl('api-resources', '--categories=sluice', '-o', 'name').trim().split('\n').sort();
    expect(names).toEqual([...KINDS, ...GRANT_SCHEMAS].map((k) => `${k.plural}.${GROUP}`).sort());
  });

  it('shows a row that is Ready but not Synced with the Synced reason, and the Secret whose credentials it uses', async () => {
    await KubernetesObjectApi.makeApiClient(ns.kc).create({
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'DatabaseService',
      metadata: { name: 'not-synced', namespace: ns.name },
      spec: {
        name: 'not synced',
        provider: 'aws',
        region: 'us-east-1',
        credentialsRef: { name: 'team-key' },
      },
    } as never);
    const at = new Date().toISOString();
    const condition = (type: string, status: string, reason: string) => ({
      type,
      status,
      reason,
      message: reason,
      lastTransitionTime: at,
    });
    const status = {
      credentials: 'team-key',
      conditions: [condition('Ready', 'True', 'Available'), condition('Synced', 'False', 'CloudRefused')],
    };
    const where = ['databaseservice', 'not-synced', '-n', ns.name];
    kubectl('patch', ...where, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status }));
    // Cells by the header's offsets: a column the object has no value for is blank.
    const [header, row] = kubectl('get', ...where).split('\n') as [string, string];
    const cell = (column: string) => row.slice(header.indexOf(` ${column} `) + 1).split(/\s{2,}/)[0];
    expect(['READY', 'REASON', 'SYNCED', 'SYNCED-REASON', 'CREDENTIALS'].map(cell)).toEqual([
      'True',
      'Available',
      'False',
      'CloudRefused',
      'team-key',
    ]);
  });

  it('shows Ready, its reason, the state and the cloud id in kubectl get, and more with -o wide', async () => {
    await KubernetesObjectApi.makeApiClient(ns.kc).create({
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'DatabaseService',
      metadata: { name: 'columns', namespace: ns.name },
      spec: { name: 'columns', provider: 'aws', region: 'us-east-1' },
    } as never);
    const header = (output: string) =>
      output
        .split('\n')[0]!
        .trim()
        .split(/\s{2,}/);
    expect(header(kubectl('get', 'sluice', '-n', ns.name))).toEqual([
      'NAME',
      'STATE',
      'READY',
      'REASON',
      'SYNCED',
      'SYNCED-REASON',
      'CREDENTIALS',
      'DRIFT',
      'ID',
      'AGE',
    ]);
    expect(header(kubectl('get', 'databaseservices', '-n', ns.name, '-o', 'wide'))).toEqual([
      'NAME',
      'NAME',
      'STATE',
      'REPLICAS',
      'MIN-MEM',
      'MAX-MEM',
      'IDLE',
      'READY',
      'REASON',
      'SYNCED',
      'SYNCED-REASON',
      'CREDENTIALS',
      'DRIFT',
      'MESSAGE',
      'ID',
      'POLICY',
      'AGE',
    ]);
  });

  const definitions = [
    ...KINDS.map((kind) => ({ kind, crd: customResourceDefinition(kind) })),
    ...GRANT_SCHEMAS.map((kind) => ({ kind, crd: grantResourceDefinition(kind) })),
  ];
  for (const { kind, crd: definition } of definitions) {
    it(`kubectl explain documents every field of ${kind.kind}`, () => {
      const crd = definition as {
        spec: { versions: { schema: { openAPIV3Schema: Node } }[] };
      };
      const undocumented: string[] = [];
      for (const [path, node] of objectPaths(crd.spec.versions[0]!.schema.openAPIV3Schema, kind.plural)) {
        const text = kubectl('explain', path);
        for (const field of Object.keys(node.properties!)) {
          if (path === kind.plural && field === 'metadata') continue;
          // A field line, an enum line for enums, then the indented description.
          const documented = new RegExp(`^  ${field}\\t<[^>]+>.*\\n(?: +enum: .*\\n)? {4}\\S`, 'm');
          if (!documented.test(text)) undocumented.push(`${path}.${field}`);
        }
      }
      expect(undocumented).toEqual([]);
    });
  }
});
