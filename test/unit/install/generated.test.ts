import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { operatorRules } from '../../../src/install/rbac.ts';
import { renderInstallFiles } from '../../../src/install/render.ts';
import { KINDS } from '../../../src/kinds/index.ts';

const root = join(import.meta.dirname, '..', '..', '..');
const GENERATED_DIRS = [
  'charts/sluice/templates/crds',
  'deploy/generated',
  'deploy/argocd/resource_customizations',
];

const filesUnder = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)));

describe('generated install files (chart templates, kustomize base, Argo CD health checks)', () => {
  const files = renderInstallFiles();

  it('match the committed files (run `npm run generate` when this fails)', () => {
    for (const { path, content } of files) expect(readFileSync(join(root, path), 'utf8'), path).toBe(content);
  });

  it('leave nothing stale behind in the wholly generated directories', () => {
    const expected = new Set(files.map((f) => f.path));
    const extra = GENERATED_DIRS.flatMap(filesUnder).filter((p) => !expected.has(p));
    expect(extra).toEqual([]);
  });

  it('derive RBAC from the kind registry: every kind, its status and its finalizers', () => {
    const resources = operatorRules(KINDS).watched.flatMap((r) => r.resources);
    for (const { plural } of KINDS)
      expect(resources).toEqual(expect.arrayContaining([plural, `${plural}/status`, `${plural}/finalizers`]));
  });
});
