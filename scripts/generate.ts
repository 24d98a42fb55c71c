// Writes crds/<plural>.sluice.dev.yaml from the zod schemas in src/api. The CRD test fails when they are stale.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderCrdFiles } from '../src/api/render.ts';
import { KINDS } from '../src/kinds.ts';

const dir = join(import.meta.dirname, '..', 'crds');
mkdirSync(dir, { recursive: true });
for (const { fileName, yaml } of renderCrdFiles(KINDS)) {
  writeFileSync(join(dir, fileName), yaml);
  console.log(`wrote crds/${fileName}`);
}
