// The container image without a Docker engine: scripts/image-layout.ts runs the Dockerfile's steps (with Node
// 24 on PATH, as in node:24) into a directory, and the operator starts from that layout under Node 24 with
// nothing else: no PATH, no shell, no dev dependencies, no TypeScript.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImageLayout, diskUsage, imageNodeFlags, type ImageLayout } from '../../scripts/image-layout.ts';
import { node24 } from '../support/node24.ts';

const repoRoot = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe('container image layout (the Dockerfile steps, run without Docker)', () => {
  let node: string;
  let layout: ImageLayout;
  let app: string;

  beforeAll(() => {
    node = node24();
    const path = `${dirname(node)}:${process.env.PATH}`;
    const saved = process.env.PATH;
    process.env.PATH = path;
    try {
      layout = buildImageLayout();
    } finally {
      process.env.PATH = saved;
    }
    app = join(layout.root, 'app');
    console.log(
      `[image] layout ${(layout.bytes / 1048576).toFixed(1)} MiB (node_modules ${(diskUsage(join(app, 'node_modules')) / 1048576).toFixed(1)} MiB) at ${layout.root}`,
    );
  }, 600_000);
  afterAll(() => {
    if (layout) rmSync(dirname(layout.root), { recursive: true, force: true });
  });

  /** ENTRYPOINT + CMD + args as the container runtime would exec them, with Node 24 as /nodejs/bin/node. */
  const runImage = (args?: string[]) => {
    const [binary, ...rest] = [...layout.entrypoint, ...(args ?? layout.cmd)];
    expect(binary).toBe('/nodejs/bin/node');
    return execFileSync(
      node,
      rest.map((a) => (a.startsWith('/') ? join(layout.root, a) : a)),
      { cwd: app, encoding: 'utf8', env: { ...layout.env } },
    );
  };

  it('starts `sluice run --help` under Node 24 with no PATH and no shell', () => {
    const help = runImage(['run', '--help']);
    expect(help).toMatch(/^Usage: sluice run \[options\]/);
    expect(help).toContain('--leader-elect');
    expect(runImage(['version']).trim()).toBe(pkg.version);
  });

  it('starts node with the image flags the benchmarks measure (a small young generation)', () => {
    expect(layout.entrypoint).toEqual(['/nodejs/bin/node', ...imageNodeFlags(), '/app/bin/sluice.js']);
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
    expect(layout.user).toBe('65532:65532');
    for (const file of ['charts/sluice/templates/deployment.yaml', 'deploy/operator.yaml']) {
      const text = readFileSync(join(repoRoot, file), 'utf8');
      expect(text, file).toMatch(/runAsUser: 65532\n\s+runAsGroup: 65532/);
    }
  });
});
