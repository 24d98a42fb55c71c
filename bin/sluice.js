#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx sluice …` works straight after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
