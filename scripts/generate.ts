// Writes crds/<plural>.sluice.dev.yaml from the kinds' zod schemas (src/kinds), and from the same kind registry the
// chart's CRD and RBAC templates, the kustomize base's CRDs and RBAC and the Argo CD health checks
// (src/install). The CRD and install tests fail when they are stale.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { renderCrdFiles } from '../src/kinds/shared/render.ts';
import { renderInstallFiles } from '../src/install/render.ts';
import { reasonTables, withReasonTable } from '../src/install/reasons-doc.ts';
import { GRANT_SCHEMAS, KINDS } from '../src/kinds/index.ts';

const root = join(import.meta.dirname, '..');
const dir = join(root, 'crds');
mkdirSync(dir, { recursive: true });
for (const { fileName, yaml } of renderCrdFiles(KINDS, GRANT_SCHEMAS)) {
  writeFileSync(join(dir, fileName), yaml);
  console.log(`wrote crds/${fileName}`);
}

// Wholly generated directories are emptied first, so a kind or fixture that went away leaves nothing behind.
for (const generated of [
  'charts/sluice/templates/crds',
  'deploy/generated',
  'deploy/argocd/resource_customizations',
])
  rmSync(join(root, generated), { recursive: true, force: true });
const files = renderInstallFiles(KINDS, GRANT_SCHEMAS);
for (const { path, content } of files) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}
console.log(`wrote ${files.length} install files (charts/sluice, deploy/generated, deploy/argocd)`);

// The reasons each kind's page lists, from the one table of reasons and the kinds' own (a test fails when stale).
for (const { path, table } of reasonTables(KINDS)) {
  const file = join(root, path);
  if (!existsSync(file))
    throw new Error(`${path}: a kind with reasons of its own needs its page, with the reasons markers`);
  const page = withReasonTable(path, readFileSync(file, 'utf8'), table);
  writeFileSync(file, await format(page, { ...(await resolveConfig(file)), filepath: file }));
}
console.log('wrote the reason tables of docs/kinds');
