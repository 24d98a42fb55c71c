// The operator's container image, started as a container runtime would start it. Where this machine can build
// it (root and buildah, as CI has), it is the image buildah builds from the Dockerfile (tools/cluster/image.ts):
// the one the node project runs, built once per machine for both, and unpacked here layer by layer. Elsewhere,
// scripts/image-layout.ts's run of the Dockerfile's steps (with Node 24 on PATH, as in node:24) stands in for
// it. Either way the operator starts from the image alone, under Node 24: no shell, no dev dependencies, no
// TypeScript.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImageLayout, diskUsage, imageNodeFlags } from '../../scripts/image-layout.ts';
import {
  imageBuildUnavailableReason,
  operatorImage,
  unpackImage,
  type UnpackedImage,
} from '../../tools/cluster/image.ts';
import { node24 } from '../support/node24.ts';

const repoRoot = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** The image buildah builds, unpacked into `dir`; undefined where this machine cannot build it. */
async function builtImage(node: string, dir: string): Promise<UnpackedImage | undefined> {
  if (imageBuildUnavailableReason() !== undefined) return undefined;
  const image = await operatorImage({ node, log: (msg) => console.log(`[image] ${msg}`) });
  console.log(
    `[image] ${image.repository}:${image.tag} ${image.built ? 'built' : 'found'} in ${(image.ms / 1000).toFixed(1)} s`,
  );
  return unpackImage(image.archive, dir);
}

/** The Dockerfile's steps run into `dir` with Node 24 first on PATH. */
function imageLayout(node: string, dir: string): UnpackedImage {
  const saved = process.env.PATH;
  process.env.PATH = `${dirname(node)}:${saved}`;
  try {
    return buildImageLayout({ outDir: dir });
  } finally {
    process.env.PATH = saved;
  }
}

describe('the container image (the Dockerfile built, then started as a runtime starts it)', () => {
  /** The Node 24 that runs the operator: the image's own where it holds one. */
  let node: string;
  let image: UnpackedImage;
  let dir: string;
  let app: string;

  beforeAll(async () => {
    const host = node24();
    dir = mkdtempSync(join(tmpdir(), 'sluice-image-test-'));
    image = (await builtImage(host, dir)) ?? imageLayout(host, dir);
    app = join(image.root, 'app');
    const own = join(image.root, 'nodejs', 'bin', 'node');
    node = existsSync(own) ? own : host;
    console.log(
      `[image] ${(diskUsage(image.root) / 1048576).toFixed(1)} MiB (node_modules ${(diskUsage(join(app, 'node_modules')) / 1048576).toFixed(1)} MiB) at ${image.root}, started with ${node}`,
    );
  }, 600_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** ENTRYPOINT + CMD + args as the container runtime would exec them, with Node 24 as /nodejs/bin/node. */
  const runImage = (args?: string[]) => {
    const [binary, ...rest] = [...image.entrypoint, ...(args ?? image.cmd)];
    expect(binary).toBe('/nodejs/bin/node');
    return execFileSync(
      node,
      rest.map((a) => (a.startsWith('/') ? join(image.root, a) : a)),
      { cwd: app, encoding: 'utf8', env: { ...image.env } },
    );
  };

  it('starts `sluice run --help` under Node 24 from the image alone, which holds no shell', () => {
    expect(existsSync(join(image.root, 'bin', 'sh'))).toBe(false);
    expect(execFileSync(node, ['--version'], { encoding: 'utf8' })).toMatch(/^v24\./);
    const help = runImage(['run', '--help']);
    expect(help).toMatch(/^Usage: sluice run \[options\]/);
    expect(help).toContain('--leader-elect');
    expect(runImage(['version']).trim()).toBe(pkg.version);
  });

  it('starts node with the image flags the benchmarks measure (a small young generation)', () => {
    expect(image.entrypoint).toEqual(['/nodejs/bin/node', ...imageNodeFlags(), '/app/bin/sluice.js']);
    expect(imageNodeFlags()).toContain('--max-semi-space-size=2');
  });

  it('holds compiled JavaScript and production dependencies only', () => {
    expect(readdirSync(app).sort()).toEqual(['bin', 'dist', 'node_modules', 'package.json']);
    expect(existsSync(join(app, 'dist', 'cli.js'))).toBe(true);
    const typescript = readdirSync(join(app, 'dist'), { recursive: true }).filter((f) =>
      /\.ts$/.test(String(f)),
    );
    expect(typescript).toEqual([]);
    for (const dep of Object.keys(pkg.dependencies))
      expect(existsSync(join(app, 'node_modules', dep)), dep).toBe(true);
    // Nothing the lockfile marks dev-only (vitest, typescript, tsx, eslint, testcontainers, ...).
    const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const devOnly = Object.entries(lock.packages).filter(([path, p]) => path && p.dev);
    expect(devOnly.length).toBeGreaterThan(100);
    expect(devOnly.filter(([path]) => existsSync(join(app, path))).map(([path]) => path)).toEqual([]);
    for (const tool of ['typescript', 'tsx', 'vitest']) expect(tool in pkg.devDependencies).toBe(true);
  });

  it('runs as the non-root uid the chart and the kustomize base run it as', () => {
    expect(image.user).toBe('65532:65532');
    for (const file of ['charts/sluice/templates/deployment.yaml', 'deploy/operator.yaml']) {
      const text = readFileSync(join(repoRoot, file), 'utf8');
      expect(text, file).toMatch(/runAsUser: 65532\n\s+runAsGroup: 65532/);
    }
  });
});
