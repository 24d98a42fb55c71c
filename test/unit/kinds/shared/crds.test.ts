import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { customResourceDefinition } from '../../../../src/kinds/shared/crd.ts';
import { renderCrdFiles } from '../../../../src/kinds/shared/render.ts';
import { KINDS } from '../../../../src/kinds/index.ts';

type Node = { [key: string]: unknown };
const crdsDir = join(import.meta.dirname, '..', '..', '..', '..', 'crds');

/** Visits every schema node below a CRD's openAPIV3Schema with its dotted path. */
function* schemaNodes(node: Node, path: string): Generator<[string, Node]> {
  yield [path, node];
  for (const [key, child] of Object.entries((node.properties as Record<string, Node>) ?? {})) {
    yield* schemaNodes(child, `${path}.${key}`);
  }
  if (node.items) yield* schemaNodes(node.items as Node, `${path}[]`);
}

const openApiSchemaOf = (crd: Node) =>
  ((crd.spec as Node).versions as Node[])[0]!.schema as { openAPIV3Schema: Node };

describe('generated CRDs', () => {
  it('match the committed crds/ files (run `npm run generate` when this fails)', () => {
    for (const { fileName, yaml } of renderCrdFiles(KINDS)) {
      expect(readFileSync(join(crdsDir, fileName), 'utf8'), fileName).toBe(yaml);
    }
  });

  for (const kind of KINDS) {
    const { openAPIV3Schema } = openApiSchemaOf(customResourceDefinition(kind));

    it(`${kind.kind}: every field has a description, so kubectl explain documents it`, () => {
      const undocumented = [...schemaNodes(openAPIV3Schema, kind.kind)]
        .filter(([path, node]) => !node.description && !path.endsWith('.metadata'))
        .map(([path]) => path);
      expect(undocumented).toEqual([]);
    });

    it(`${kind.kind}: is structural (no $ref, no combinators, no additionalProperties beside properties)`, () => {
      for (const [path, node] of schemaNodes(openAPIV3Schema, kind.kind)) {
        expect(node, path).not.toHaveProperty('$ref');
        expect(node, path).not.toHaveProperty('anyOf');
        expect(node, path).toHaveProperty('type');
        if (node.properties) expect(node, path).not.toHaveProperty('additionalProperties');
        if (node.type === 'integer') expect(node.format, path).toBe('int64');
      }
    });
  }
});
