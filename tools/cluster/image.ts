// The operator's image built from the project's Dockerfile without a Docker engine or a registry: buildah builds
// it from two base images made here, and the result is kept as an OCI archive named by a hash of its inputs, so
// a run where nothing changed loads it without building.
//
// The local bases stand in for the Dockerfile's defaults (see docs/development.md):
// - build base: Node 24 from the npm registry's `node` package, this machine's npm, and Debian's dash, env, C
//   library and this machine's CA certificates: enough for the build stage's `npm ci` and `npm run build`;
// - runtime base: Node 24 at /nodejs/bin/node (where distroless puts it), its shared libraries, CA certificates
//   and passwd/group naming the nonroot user 65532; no shell, no package manager, nothing else.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, setPriority, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './assets.ts';
import { buildahArgs, onPath } from './node.ts';
import { releasePidLock, waitForPidLock } from './pid-lock.ts';

/** The repository the node's image store holds the operator under (a fully qualified name, as the CRI wants). */
export const OPERATOR_IMAGE_REPOSITORY = 'docker.io/library/sluice';

/** What the image is built from; a change to any of them changes the tag. */
const INPUTS = [
  'Dockerfile',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'bin',
  'src',
];

export interface OperatorImage {
  /** OCI archive naming `${repository}:${tag}`. */
  archive: string;
  repository: string;
  tag: string;
  /** False when the archive came from the cache. */
  built: boolean;
  /** Time spent here, building or not. */
  ms: number;
}

/** The cache root shared with `npm run envtest:setup` (SLUICE_CACHE_DIR moves it). */
function cacheRoot(): string {
  return process.env.SLUICE_CACHE_DIR
    ? resolve(process.env.SLUICE_CACHE_DIR)
    : join(homedir(), '.cache', 'sluice', 'envtest');
}

/**
 * Builds the Dockerfile with bases made here, or takes the archive a previous build left for the same inputs.
 * `node` is a Node 24 binary (tools/cluster/node24.ts). buildah runs as child processes awaited one at a time, so
 * the caller can start the node meanwhile.
 */
export async function operatorImage(opts: {
  node: string;
  log?: (msg: string) => void;
  /** Ends a build under way (its buildah is killed, its scratch removed): nobody needs the image after all. */
  signal?: AbortSignal;
}): Promise<OperatorImage> {
  const started = Date.now();
  const npm = npmPackageDir();
  const tag = inputsHash(opts.node, npm);
  const dir = join(cacheRoot(), 'image');
  const archive = join(dir, `sluice-${tag}.tar`);
  const image = { archive, repository: OPERATOR_IMAGE_REPOSITORY, tag };
  if (existsSync(archive)) return { ...image, built: false, ms: Date.now() - started };

  mkdirSync(dir, { recursive: true });
  // One build per machine: `npm test`'s runs ask for the image at once (the node's setup and the image test),
  // and the second waits for the first's archive instead of building it again beside it.
  const lock = join(dir, 'build.pid');
  await waitForPidLock(lock, {
    ...(opts.signal ? { signal: opts.signal } : {}),
    // A build takes minutes: a lock older than this was left by a run killed midway.
    staleAfterMs: 30 * 60_000,
    onWait: (holder) => opts.log?.(`waiting for the image that process ${holder} builds ...`),
  });
  try {
    // Built meanwhile by the process this one waited for.
    if (existsSync(archive)) return { ...image, built: false, ms: Date.now() - started };
    await buildArchive(archive, tag, npm, opts);
  } finally {
    releasePidLock(lock);
  }
  return { ...image, built: true, ms: Date.now() - started };
}

/** Builds the image tagged `tag` into `archive`, and removes the archives of earlier inputs beside it. */
async function buildArchive(
  archive: string,
  tag: string,
  npm: string,
  opts: { node: string; log?: (msg: string) => void; signal?: AbortSignal },
): Promise<void> {
  const dir = dirname(archive);
  const work = mkdtempSync(join(tmpdir(), 'sluice-image-'));
  try {
    const buildBase = 'localhost/sluice-build-base:local';
    const runtimeBase = 'localhost/sluice-runtime-base:local';
    const buildah = (args: string[]) => runBuildah(work, args, opts.signal);
    await makeBase(buildah, buildBase, (root) => fillBuildBase(root, opts.node, npm), {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: '/root',
      // This machine's CA bundle: the registry may be reached through a proxy that a private CA signs.
      NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt',
    });
    await makeBase(buildah, runtimeBase, (root) => fillRuntimeBase(root, opts.node), {});
    opts.log?.(`building ${OPERATOR_IMAGE_REPOSITORY}:${tag} with buildah ...`);
    const npmCache = join(homedir(), '.npm');
    mkdirSync(npmCache, { recursive: true });
    const name = `${OPERATOR_IMAGE_REPOSITORY}:${tag}`;
    await buildah([
      'bud',
      '--quiet',
      '--pull-never',
      '--network=host',
      '--layers=false',
      `--build-arg=BUILD_BASE=${buildBase}`,
      `--build-arg=RUNTIME_BASE=${runtimeBase}`,
      // npm's cache from this machine: `npm ci` downloads only what it has not seen.
      `--volume=${npmCache}:/root/.npm`,
      '--file',
      join(repoRoot, 'Dockerfile'),
      '--tag',
      name,
      repoRoot,
    ]);
    // Written aside and renamed: a run killed midway leaves no archive that looks complete.
    const partial = `${archive}.partial`;
    await buildah(['push', '--quiet', name, `oci-archive:${partial}:${name}`]);
    renameSync(partial, archive);
    // One image per cache: the archives of earlier inputs would only fill the disk.
    for (const file of readdirSync(dir)) {
      if (file.startsWith('sluice-') && join(dir, file) !== archive) rmSync(join(dir, file), { force: true });
    }
  } finally {
    // buildah's vfs storage holds a full copy of every stage; only the archive is kept.
    for (const mount of mountsUnder(work)) spawnSync('umount', ['-l', mount]);
    rmSync(work, { recursive: true, force: true });
  }
}

async function runBuildah(work: string, args: string[], signal?: AbortSignal): Promise<string> {
  const running = promisify(execFile)('buildah', [...buildahArgs(work), ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    ...(signal ? { signal } : {}),
  });
  // At the normal priority whoever asked: `npm test`'s short run, which may be the first to ask, runs niced,
  // and the node's files wait for this image. Raising a priority takes root; without it, the caller's stays.
  try {
    if (running.child.pid !== undefined) setPriority(running.child.pid, 0);
  } catch {
    // not root
  }
  const { stdout } = await running;
  return stdout;
}

/** A base image `FROM scratch` whose root filesystem `fill` writes, committed to buildah's storage as `name`. */
async function makeBase(
  buildah: (args: string[]) => Promise<string>,
  name: string,
  fill: (root: string) => void,
  env: Record<string, string>,
): Promise<void> {
  const container = (await buildah(['from', 'scratch'])).trim();
  try {
    fill((await buildah(['mount', container])).trim());
    for (const [key, value] of Object.entries(env))
      await buildah(['config', `--env=${key}=${value}`, container]);
    await buildah(['commit', '--quiet', container, name]);
  } finally {
    await buildah(['rm', container]).catch(() => undefined);
  }
}

function fillBuildBase(root: string, node: string, npm: string): void {
  copyWithLibraries(root, node, '/usr/local/bin/node');
  cpSync(npm, join(root, 'usr/local/lib/node_modules/npm'), { recursive: true });
  symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(root, 'usr/local/bin/npm'));
  // npm runs scripts with `sh -c`; the packages' bin scripts start with `#!/usr/bin/env node`.
  copyWithLibraries(root, '/bin/dash', '/bin/sh');
  copyWithLibraries(root, '/usr/bin/env', '/usr/bin/env');
  commonFiles(root, 'root:x:0:0:root:/root:/bin/sh\n', 'root:x:0:\n');
  mkdirSync(join(root, 'root'), { recursive: true });
}

function fillRuntimeBase(root: string, node: string): void {
  copyWithLibraries(root, node, '/nodejs/bin/node');
  commonFiles(
    root,
    'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n',
    'root:x:0:\nnonroot:x:65532:\n',
  );
  mkdirSync(join(root, 'home/nonroot'), { recursive: true });
  execFileSync('chown', ['65532:65532', join(root, 'home/nonroot')]);
}

/** CA certificates, users and groups, and a world-writable /tmp, as both distroless and Debian images have. */
function commonFiles(root: string, passwd: string, group: string): void {
  mkdirSync(join(root, 'etc/ssl/certs'), { recursive: true });
  cpSync('/etc/ssl/certs/ca-certificates.crt', join(root, 'etc/ssl/certs/ca-certificates.crt'));
  writeFileSync(join(root, 'etc/passwd'), passwd);
  writeFileSync(join(root, 'etc/group'), group);
  mkdirSync(join(root, 'tmp'), { recursive: true });
  chmodSync(join(root, 'tmp'), 0o1777);
}

/** Copies an executable to `to` below `root`, with the shared libraries it loads at their own paths. */
function copyWithLibraries(root: string, from: string, to: string): void {
  mkdirSync(dirname(join(root, to)), { recursive: true });
  cpSync(from, join(root, to), { dereference: true });
  for (const library of sharedLibraries(from)) {
    const target = join(root, library);
    if (existsSync(target)) continue;
    mkdirSync(dirname(target), { recursive: true });
    cpSync(library, target, { dereference: true });
  }
}

function sharedLibraries(executable: string): string[] {
  const out = execFileSync('ldd', [executable], { encoding: 'utf8' });
  return [...out.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1]!);
}

/** The npm that runs this process (its package directory), copied into the build base. */
function npmPackageDir(): string {
  const cli = execFileSync('sh', ['-c', 'readlink -f "$(command -v npm)"'], { encoding: 'utf8' }).trim();
  return resolve(dirname(cli), '..');
}

/** The tag: a hash of the Dockerfile's inputs, the Node and npm put into the bases, and this builder. */
function inputsHash(node: string, npm: string): string {
  const hash = createHash('sha256');
  const add = (path: string) => {
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path).sort()) add(join(path, entry));
      return;
    }
    hash.update(relative(repoRoot, path)).update('\0').update(readFileSync(path)).update('\0');
  };
  for (const input of INPUTS) add(join(repoRoot, input));
  add(import.meta.filename);
  hash.update(execFileSync(node, ['--version'], { encoding: 'utf8' }));
  hash.update(readFileSync(join(npm, 'package.json')));
  return hash.digest('hex').slice(0, 16);
}

function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .filter((mount) => mount === dir || mount.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
}

/** An image as a container runtime reads it: its root filesystem, and how it starts its process. */
export interface UnpackedImage {
  /** The layers unpacked in order. */
  root: string;
  entrypoint: string[];
  cmd: string[];
  env: Record<string, string>;
  user?: string;
}

interface OciDescriptor {
  mediaType: string;
  digest: string;
}

/**
 * Unpacks the OCI archive `operatorImage` leaves into `dir`: the manifest's layers, in order, into `dir/root`.
 * A layer that deletes a lower layer's file (a whiteout) is refused: the Dockerfile's final stage only adds.
 */
export function unpackImage(archive: string, dir: string): UnpackedImage {
  const oci = join(dir, 'oci');
  const root = join(dir, 'root');
  mkdirSync(oci, { recursive: true });
  mkdirSync(root, { recursive: true });
  execFileSync('tar', ['-xf', archive, '-C', oci]);
  const blob = (descriptor: OciDescriptor) => join(oci, 'blobs', ...descriptor.digest.split(':'));
  const json = <T>(descriptor: OciDescriptor) => JSON.parse(readFileSync(blob(descriptor), 'utf8')) as T;
  const index = JSON.parse(readFileSync(join(oci, 'index.json'), 'utf8')) as { manifests: OciDescriptor[] };
  const manifest = json<{ config: OciDescriptor; layers: OciDescriptor[] }>(index.manifests[0]!);
  for (const layer of manifest.layers) {
    const names = execFileSync('tar', ['-tf', blob(layer)], { encoding: 'utf8', maxBuffer: 256 << 20 });
    const whiteout = names.split('\n').find((name) => name.split('/').at(-1)?.startsWith('.wh.'));
    if (whiteout) throw new Error(`${archive}: layer ${layer.digest} deletes ${whiteout}`);
    execFileSync('tar', ['-xf', blob(layer), '-C', root]);
  }
  const { config } = json<{
    config: { Entrypoint?: string[]; Cmd?: string[]; Env?: string[]; User?: string };
  }>(manifest.config);
  return {
    root,
    entrypoint: config.Entrypoint ?? [],
    cmd: config.Cmd ?? [],
    env: Object.fromEntries(
      (config.Env ?? []).map((entry) => [
        entry.slice(0, entry.indexOf('=')),
        entry.slice(entry.indexOf('=') + 1),
      ]),
    ),
    ...(config.User ? { user: config.User } : {}),
  };
}

/** Why this machine cannot build the operator's image (buildah's storage mounts need root), or undefined. */
export function imageBuildUnavailableReason(): string | undefined {
  if (process.getuid?.() !== 0) return 'building the image with buildah needs root';
  if (!onPath('buildah')) return 'buildah is not installed (apt-get install buildah)';
  return undefined;
}
