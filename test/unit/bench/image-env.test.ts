import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { imageEnv } from '../../../scripts/image-layout.ts';

const dockerfile = (text: string) => {
  const file = join(mkdtempSync(join(tmpdir(), 'sluice-dockerfile-')), 'Dockerfile');
  writeFileSync(file, text);
  return pathToFileURL(file);
};

describe('imageEnv (the environment the benchmarks run the operator with)', () => {
  it("is the final stage's ENV, not a build stage's", () => {
    const file = dockerfile(
      [
        'FROM node:24 AS build',
        'ENV BUILD_ONLY=1',
        'FROM gcr.io/distroless/nodejs24-debian12',
        '# a comment',
        'ENV NODE_ENV=production',
        'ENV A=1 B="two words" \\',
        '    C=3',
        'ENTRYPOINT ["/nodejs/bin/node", "/app/bin/sluice.js"]',
      ].join('\n'),
    );
    expect(imageEnv(file)).toEqual({ NODE_ENV: 'production', A: '1', B: 'two words', C: '3' });
  });

  it("reads the project's Dockerfile", () => {
    expect(imageEnv()).toMatchObject({ NODE_ENV: 'production' });
  });
});
