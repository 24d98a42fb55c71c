import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');

/**
 * The relative modules a file imports when it is loaded: its import and export declarations, type-only ones
 * included, but not an `import()` call, which loads its module only when it runs (a kind's controller).
 */
function staticImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  return source.statements.flatMap((statement) =>
    (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
    statement.moduleSpecifier &&
    ts.isStringLiteral(statement.moduleSpecifier)
      ? [statement.moduleSpecifier.text]
      : [],
  );
}

/** Every repository file `entry` loads through relative imports, type-only imports included. */
function moduleGraph(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const fileName of staticImports(file)) {
      if (!fileName.startsWith('.')) continue;
      const target = resolve(dirname(file), fileName);
      if (!existsSync(target)) throw new Error(`${relative(root, file)}: cannot resolve ${fileName}`);
      visit(target);
    }
  };
  visit(join(root, entry));
  return [...seen].map((file) => relative(root, file)).sort();
}

describe('the CRD and install generator (npm run generate)', () => {
  const graph = moduleGraph('scripts/generate.ts');

  it('loads the kinds from their descriptors and schemas: no controller, mapping, cloud client, operator or emulator file', () => {
    // src/cloud/schemas are the cloud API's zod shapes, whose bounds the CRDs reuse; the clients are elsewhere.
    const forbidden = graph.filter(
      (file) =>
        /^src\/(cloud-access|operator|emulator)\//.test(file) ||
        /^src\/kinds\/shared\/(cloud-calls|service-reference|service-tags|sluice-kind)\.ts$/.test(file) ||
        (file.startsWith('src/cloud/') && !file.startsWith('src/cloud/schemas/')) ||
        (file.startsWith('src/kinds/') &&
          !file.startsWith('src/kinds/shared/') &&
          !/^src\/kinds\/(index|[a-z-]+\/(schema|kind|reasons|fixtures))\.ts$/.test(file)),
    );
    expect(forbidden).toEqual([]);
  });

  it('reaches the schema of every kind (the graph above is the real one)', () => {
    expect(graph).toEqual(
      expect.arrayContaining([
        'src/kinds/index.ts',
        'src/kinds/pipe/kind.ts',
        'src/kinds/pipe/schema.ts',
        'src/install/render.ts',
      ]),
    );
  });
});
