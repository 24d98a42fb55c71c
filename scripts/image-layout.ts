// `npm run image:layout [-- <dir>]`: the container image's file layout without a Docker engine. Runs the
// Dockerfile's own instructions (FROM stages, WORKDIR, ENV, COPY, RUN) with a directory per stage standing in
// for its root filesystem, RUN steps under the Node on PATH (the image test puts Node 24 there), and reports
// the final stage: its root, ENTRYPOINT, CMD, USER and size. The base images' own files are not reproduced:
// the final stage's /nodejs/bin/node is whatever Node the caller runs it with.
import { execSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = join(import.meta.dirname, '..');

export interface ImageLayout {
  /** Directory standing in for the final stage's root filesystem. */
  root: string;
  entrypoint: string[];
  cmd: string[];
  user?: string;
  env: Record<string, string>;
  /** Bytes under `root`. */
  bytes: number;
}

interface Stage {
  name: string;
  root: string;
  workdir: string;
  env: Record<string, string>;
}

/** Dockerfile instructions, continuation lines joined, comments and blank lines dropped. */
function instructions(text: string): { op: string; args: string }[] {
  const joined = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [op, ...rest] = line.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(' ') };
    });
}

/** The build arguments declared before the first FROM (the base images), with their defaults. */
export function imageBuildArgs(
  dockerfile = new URL('../Dockerfile', import.meta.url),
): Record<string, string> {
  const all = instructions(readFileSync(dockerfile, 'utf8'));
  const args: Record<string, string> = {};
  for (const { op, args: declared } of all.slice(
    0,
    all.findIndex((i) => i.op === 'FROM'),
  )) {
    if (op !== 'ARG') continue;
    const [name, value] = declared.split('=', 2);
    args[name!] = value ?? '';
  }
  return args;
}

/**
 * The node flags of the image's ENTRYPOINT (between the node binary and the script), so what runs the operator
 * elsewhere (the benchmarks) runs it as the image does.
 */
export function imageNodeFlags(dockerfile = new URL('../Dockerfile', import.meta.url)): string[] {
  const entrypoint = instructions(readFileSync(dockerfile, 'utf8')).findLast((i) => i.op === 'ENTRYPOINT');
  if (!entrypoint) throw new Error('Dockerfile: no ENTRYPOINT');
  const [, ...rest] = JSON.parse(entrypoint.args) as string[];
  return rest.filter((arg) => arg.startsWith('--'));
}

/**
 * The environment the image's final stage sets (its ENV lines after the last FROM), so what runs the operator
 * elsewhere (the benchmarks) runs it with the same settings, e.g. the C library's malloc tuning.
 */
export function imageEnv(dockerfile = new URL('../Dockerfile', import.meta.url)): Record<string, string> {
  const all = instructions(readFileSync(dockerfile, 'utf8'));
  const env: Record<string, string> = {};
  for (const { op, args } of all.slice(all.findLastIndex((i) => i.op === 'FROM')))
    if (op === 'ENV') Object.assign(env, envAssignments(args));
  return env;
}

/** `KEY=value KEY2="value 2"` of an ENV instruction. */
function envAssignments(args: string): Record<string, string> {
  return Object.fromEntries(
    [...args.matchAll(/(\w+)=("[^"]*"|\S+)/g)].map(([, key, value]) => [key!, value!.replace(/^"|"$/g, '')]),
  );
}

/** Top-level names .dockerignore excludes from the build context. */
function ignoredNames(): Set<string> {
  const file = join(repoRoot, '.dockerignore');
  if (!existsSync(file)) return new Set();
  return new Set(
    readFileSync(file, 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#')),
  );
}

export function diskUsage(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, entry) => sum + diskUsage(join(path, entry)), 0);
}

export function buildImageLayout(
  opts: { outDir?: string; dockerfile?: string; log?: (line: string) => void } = {},
): ImageLayout {
  const outDir = opts.outDir ?? mkdtempSync(join(tmpdir(), 'sluice-image-'));
  const log = opts.log ?? (() => {});
  const ignored = ignoredNames();
  const stages: Stage[] = [];
  let entrypoint: string[] = [];
  let cmd: string[] = [];
  let user: string | undefined;
  const current = () => {
    const stage = stages.at(-1);
    if (!stage) throw new Error('Dockerfile: instruction before FROM');
    return stage;
  };
  const hostPath = (stage: Stage, path: string) => join(stage.root, posix.resolve(stage.workdir, path));

  for (const { op, args } of instructions(
    readFileSync(opts.dockerfile ?? join(repoRoot, 'Dockerfile'), 'utf8'),
  )) {
    switch (op) {
      case 'FROM': {
        const [, name] = /\s+AS\s+(\S+)$/i.exec(args) ?? [];
        const root = join(outDir, `stage-${stages.length}${name ? `-${name}` : ''}`);
        mkdirSync(root, { recursive: true });
        stages.push({ name: name ?? String(stages.length), root, workdir: '/', env: {} });
        log(`FROM ${args}`);
        break;
      }
      case 'WORKDIR': {
        const stage = current();
        stage.workdir = posix.resolve(stage.workdir, args);
        mkdirSync(hostPath(stage, '.'), { recursive: true });
        break;
      }
      case 'ENV': {
        Object.assign(current().env, envAssignments(args));
        break;
      }
      case 'COPY': {
        const stage = current();
        const words = args.split(/\s+/);
        const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
        const [dest, ...sources] = words.filter((w) => !w.startsWith('--')).reverse();
        const source = from ? stages.find((s) => s.name === from) : undefined;
        if (from && !source) throw new Error(`COPY --from=${from}: no such stage`);
        const target = hostPath(stage, dest!);
        for (const src of sources.reverse()) {
          if (!source && ignored.has(src.split('/')[0]!))
            throw new Error(`COPY ${src}: excluded by .dockerignore`);
          const origin = source ? hostPath(source, src) : join(repoRoot, src);
          const intoDir = dest!.endsWith('/') || sources.length > 1 || statSync(origin).isDirectory();
          const to = intoDir && !statSync(origin).isDirectory() ? join(target, basename(origin)) : target;
          mkdirSync(dirname(to), { recursive: true });
          cpSync(origin, to, {
            recursive: true,
            filter: (path) => source !== undefined || !ignored.has(basename(path)) || path === origin,
          });
        }
        log(`COPY ${args}`);
        break;
      }
      case 'RUN': {
        const stage = current();
        log(`RUN ${args}`);
        execSync(args, {
          cwd: hostPath(stage, '.'),
          env: { ...process.env, ...stage.env },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        break;
      }
      case 'USER':
        user = args;
        break;
      case 'ENTRYPOINT':
        entrypoint = JSON.parse(args) as string[];
        break;
      case 'CMD':
        cmd = JSON.parse(args) as string[];
        break;
      case 'EXPOSE':
      case 'LABEL':
      case 'ARG':
        break;
      default:
        throw new Error(`Dockerfile: ${op} is not supported by scripts/image-layout.ts`);
    }
  }
  const final = current();
  return {
    root: final.root,
    entrypoint,
    cmd,
    ...(user ? { user } : {}),
    env: final.env,
    bytes: diskUsage(final.root),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const layout = buildImageLayout({
    outDir: process.argv[2],
    log: (line) => console.error(`[image] ${line}`),
  });
  console.log(JSON.stringify({ ...layout, megabytes: +(layout.bytes / 1048576).toFixed(1) }, null, 2));
}
