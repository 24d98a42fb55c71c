// `node --import tsx --import ./tools/reconcile-trace/register.mjs …`: sluice's sources load traced (hooks.mjs).
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url, {
  data: { sourceRoot: new URL('../../src/', import.meta.url).href, excluded: ['emulator/'] },
});
