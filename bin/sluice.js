#!/usr/bin/env node
// Runs the compiled CLI from dist/ when `npm run build` made it (the container image), otherwise the TypeScript
// sources through tsx, so `npx sluice …` works straight after `npm ci` with no build step.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
