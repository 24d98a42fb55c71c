// scripts/image-layout.ts (`npm run image:layout`) on a Dockerfile of its own: each instruction it reads does
// what a builder does with it. The project's Dockerfile itself is built by buildah and started in image.test.ts
// (or run through this script where buildah cannot build).
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildImageLayout } from '../../scripts/image-layout.ts';

const repoRoot = join(import.meta.dirname, '..', '..');

describe('the image layout script', () => {
  const dirs: string[] = [];
  const layoutOf = (dockerfile: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-layout-test-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'Dockerfile'), dockerfile);
    return buildImageLayout({ outDir: join(dir, 'out'), dockerfile: join(dir, 'Dockerfile') });
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('runs a stage’s steps in its WORKDIR with its ENV, and copies between stages and from the context', () => {
    const layout = layoutOf(`
FROM builder AS build
WORKDIR /app
ENV GREETING=hello \\
    OTHER="two words"
COPY package.json ./
RUN echo "$GREETING from $(pwd | sed 's#.*/##')" > made.txt && wc -c < package.json > size.txt
FROM runtime
WORKDIR /srv
ENV NODE_ENV=production
COPY --from=build /app/made.txt /app/size.txt ./
COPY bin ./bin
USER 65532:65532
ENTRYPOINT ["/nodejs/bin/node", "--max-semi-space-size=2", "/srv/bin/sluice.js"]
CMD ["run"]
`);
    const srv = join(layout.root, 'srv');
    expect(readdirSync(srv).sort()).toEqual(['bin', 'made.txt', 'size.txt']);
    expect(readFileSync(join(srv, 'made.txt'), 'utf8')).toBe('hello from app\n');
    expect(Number(readFileSync(join(srv, 'size.txt'), 'utf8'))).toBe(
      readFileSync(join(repoRoot, 'package.json')).length,
    );
    expect(existsSync(join(srv, 'bin', 'sluice.js'))).toBe(true);
    // The final stage's settings only: the build stage's ENV does not reach it.
    expect(layout.env).toEqual({ NODE_ENV: 'production' });
    expect(layout.user).toBe('65532:65532');
    expect(layout.entrypoint).toEqual(['/nodejs/bin/node', '--max-semi-space-size=2', '/srv/bin/sluice.js']);
    expect(layout.cmd).toEqual(['run']);
  });

  it('refuses what a builder would not do: a context path .dockerignore excludes, an unknown stage', () => {
    expect(() => layoutOf('FROM base\nCOPY node_modules ./\n')).toThrow(
      'COPY node_modules: excluded by .dockerignore',
    );
    expect(() => layoutOf('FROM base\nCOPY --from=nowhere /a ./\n')).toThrow(
      'COPY --from=nowhere: no such stage',
    );
    expect(() => layoutOf('FROM base\nHEALTHCHECK NONE\n')).toThrow(
      'Dockerfile: HEALTHCHECK is not supported by scripts/image-layout.ts',
    );
  });
});
