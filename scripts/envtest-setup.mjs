#!/usr/bin/env node
// Builds the test control plane (kube-apiserver, kube-controller-manager, etcd,
// kubectl), helm and OpenTofu from the Go modules under test/envtest/, into a cache
// outside the repository:
//   ${SLUICE_CACHE_DIR:-~/.cache/sluice/envtest}/<k8s-version>/bin
//
// Why from source: this machine (and CI) has no Docker and cannot download
// release binaries; only the Go module proxy is reachable. envtest's binaries
// are the same upstream main packages, so we build those.
//
// Idempotent, per Go module: a stamp file per build job (stamps/<job>) records
// a hash of that module's inputs (its go.mod/go.sum and Go sources, not those
// of modules nested below it), the build recipe and the Go toolchain version.
// A job whose stamp matches and whose binaries exist is not built, so changing
// one module (say argocd-health) rebuilds only that module, never the big
// Kubernetes build; with nothing to build the script returns in well under a
// second. When KUBEBUILDER_ASSETS is set, those binaries are used and nothing
// is built at all.
//
// The last line printed is always `KUBEBUILDER_ASSETS=<dir>`.

import { createHash } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const envtestDir = join(repoRoot, 'test', 'envtest');
const helmDir = join(envtestDir, 'helm');
const argocdHealthDir = join(envtestDir, 'argocd-health');
const kstatusDir = join(envtestDir, 'kstatus');
const tofuDir = join(envtestDir, 'tofu');

/**
 * The Kubernetes binaries, all built from test/envtest/go.mod at one Kubernetes version: binary name => Go
 * package. To add one, add a line here (and its package to go.mod's `tool` block, then `go mod tidy`).
 */
const KUBERNETES_BINARIES = {
  'kube-apiserver': 'k8s.io/kubernetes/cmd/kube-apiserver',
  'kube-controller-manager': 'k8s.io/kubernetes/cmd/kube-controller-manager',
  kubectl: 'k8s.io/kubernetes/cmd/kubectl',
  // Upstream etcdmain; its version string is a constant in go.etcd.io/etcd/api/v3/version, so the -X flags
  // only affect the Kubernetes binaries.
  etcd: './cmd/etcd',
  // The one-node cluster (`npm run cluster -- --node`).
  kubelet: 'k8s.io/kubernetes/cmd/kubelet',
  'kube-scheduler': 'k8s.io/kubernetes/cmd/kube-scheduler',
  'kube-proxy': 'k8s.io/kubernetes/cmd/kube-proxy',
};

/**
 * Binaries the harness needs; helm is for the demo and chart tests, argocd-health runs the Argo CD health
 * checks under gopher-lua, kstatus reads status as Flux and kpt do (sigs.k8s.io/cli-utils), tofu runs the real
 * API's official client (its Terraform provider) against the emulator.
 */
const BINARIES = [...Object.keys(KUBERNETES_BINARIES), 'helm', 'argocd-health', 'kstatus', 'tofu'];

/** Bump when the way a job is built changes in a way its inputs do not show. */
const RECIPE_VERSION = 2;

function log(msg) {
  process.stderr.write(`[envtest-setup] ${msg}\n`);
}

/** Reads the version a go.mod requires for `modulePath`. */
function requiredVersion(goModPath, modulePath) {
  const text = readFileSync(goModPath, 'utf8');
  const escaped = modulePath.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const m = text.match(new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\S+)`, 'm'));
  if (!m) throw new Error(`${relative(repoRoot, goModPath)} does not require ${modulePath}`);
  return m[1];
}

/** Go ldflags that make the binaries report their real release version. */
function k8sLdflags(version) {
  const [, major, minor] = version.match(/^v(\d+)\.(\d+)\./) ?? [];
  const flags = ['-s', '-w'];
  // kube-apiserver reports component-base's version; kubectl's client side
  // reports client-go's. Both default to v0.0.0-master without these.
  for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']) {
    flags.push(
      `-X ${pkg}.gitVersion=${version}`,
      `-X ${pkg}.gitMajor=${major}`,
      `-X ${pkg}.gitMinor=${minor}`,
      `-X ${pkg}.gitTreeState=clean`,
    );
  }
  return flags.join(' ');
}

function helmLdflags(helmVersion, clientGoVersion) {
  // helm derives the default Kubernetes version for `helm template`/lint from
  // the client-go it was built with (v0.Y.Z => 1.Y), as its Makefile does.
  const [, cgMinor] = clientGoVersion.match(/^v0\.(\d+)\./) ?? [];
  const flags = [
    '-s',
    '-w',
    `-X helm.sh/helm/v3/internal/version.version=${helmVersion}`,
    '-X helm.sh/helm/v3/internal/version.gitTreeState=clean',
  ];
  if (cgMinor) {
    for (const pkg of ['helm.sh/helm/v3/pkg/lint/rules', 'helm.sh/helm/v3/pkg/chartutil']) {
      flags.push(`-X ${pkg}.k8sVersionMajor=1`, `-X ${pkg}.k8sVersionMinor=${cgMinor}`);
    }
  }
  return flags.join(' ');
}

/**
 * Files whose content decides what a module builds (no binaries, no vendor), without the modules nested in
 * it: a directory with its own go.mod is another job's input.
 */
function inputFiles(dir, top = true) {
  if (!top && existsSync(join(dir, 'go.mod'))) return [];
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...inputFiles(p, false));
    else if (/^(go\.mod|go\.sum)$|\.go$/.test(entry.name)) out.push(p);
  }
  return out.sort();
}

function goEnv() {
  return {
    ...process.env,
    // Never let go.mod's `go`/`toolchain` lines trigger a toolchain download:
    // only the module proxy is reachable, and the installed Go must do.
    GOTOOLCHAIN: 'local',
    // Static binaries: no libc coupling between build and run machines.
    CGO_ENABLED: '0',
    // go.sum is committed; a build must not silently edit it.
    GOFLAGS: '-mod=readonly -buildvcs=false',
  };
}

function goVersion() {
  return execFileSync('go', ['version'], { env: goEnv(), encoding: 'utf8' }).trim();
}

function computeStamp(job, go) {
  const h = createHash('sha256');
  h.update(go);
  const { GOTOOLCHAIN, CGO_ENABLED, GOFLAGS } = goEnv();
  // Relative dirs: moving the checkout must not force a rebuild.
  h.update(
    JSON.stringify({
      recipe: RECIPE_VERSION,
      env: { GOTOOLCHAIN, CGO_ENABLED, GOFLAGS },
      job: { ...job, dir: relative(repoRoot, job.dir) },
    }),
  );
  for (const f of inputFiles(job.dir)) {
    h.update(relative(repoRoot, f));
    h.update(readFileSync(f));
  }
  return h.digest('hex');
}

/** Builds in flight, stopped when another one fails. */
const running = new Set();

/**
 * One `go build` per Go module, so the go command schedules all compiles
 * and links of that module in one graph. Packages are built into a
 * directory (`-o dir/`), each binary named after its package.
 */
function buildJobs(k8sVersion) {
  const helmVersion = requiredVersion(join(helmDir, 'go.mod'), 'helm.sh/helm/v3');
  const clientGo = requiredVersion(join(helmDir, 'go.mod'), 'k8s.io/client-go');
  return [
    {
      name: 'kubernetes',
      binaries: Object.keys(KUBERNETES_BINARIES),
      dir: envtestDir,
      pkgs: Object.values(KUBERNETES_BINARIES),
      ldflags: k8sLdflags(k8sVersion),
    },
    {
      name: 'helm',
      binaries: ['helm'],
      dir: helmDir,
      pkgs: ['helm.sh/helm/v3/cmd/helm'],
      ldflags: helmLdflags(helmVersion, clientGo),
    },
    {
      name: 'argocd-health',
      binaries: ['argocd-health'],
      dir: argocdHealthDir,
      pkgs: ['.'],
      ldflags: '-s -w',
    },
    {
      name: 'kstatus',
      binaries: ['kstatus'],
      dir: kstatusDir,
      pkgs: ['.'],
      ldflags: '-s -w',
    },
    // OpenTofu serves only the official client's lifecycle test, which also needs the provider's binary: the Go
    // module proxy does not serve the provider, so it is built where SLUICE_CLICKHOUSE_PROVIDER names one, and
    // a machine without (CI) spends no build on a test that would skip.
    ...(process.env.SLUICE_CLICKHOUSE_PROVIDER ? [tofuJob] : []),
  ];
}

/** OpenTofu (MPL) rather than Terraform 1.5.7: the provider's write-only webhook headers need 1.11 or newer. */
const tofuJob = {
  name: 'tofu',
  binaries: ['tofu'],
  dir: tofuDir,
  pkgs: ['github.com/opentofu/opentofu/cmd/tofu'],
  // A release build reports its version without the "-dev" suffix, as OpenTofu's own release does.
  ldflags: '-s -w -X github.com/opentofu/opentofu/version.dev=no',
};

function goBuild(job, outDir) {
  const started = Date.now();
  const what = job.binaries.join(', ');
  log(`building ${what} in ${relative(repoRoot, job.dir)} ...`);
  const child = spawn(
    'go',
    ['build', '-trimpath', `-ldflags=${job.ldflags}`, '-o', `${outDir}/`, ...job.pkgs],
    {
      cwd: job.dir,
      env: goEnv(),
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  running.add(child);
  child.once('exit', () => running.delete(child));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) {
        log(`built ${what} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
        resolve();
      } else
        reject(new Error(`go build in ${relative(repoRoot, job.dir)} failed (${signal ?? `exit ${code}`})`));
    });
  });
}

function printResult(binDir) {
  for (const b of BINARIES) {
    const p = join(binDir, b);
    if (existsSync(p))
      log(`${b.padEnd(15)} ${(statSync(p).size / 1048576).toFixed(1).padStart(6)} MiB  ${p}`);
  }
  process.stdout.write(`KUBEBUILDER_ASSETS=${binDir}\n`);
}

async function main() {
  if (process.env.KUBEBUILDER_ASSETS) {
    const dir = resolve(process.env.KUBEBUILDER_ASSETS);
    const missing = ['kube-apiserver', 'kube-controller-manager', 'etcd'].filter(
      (b) => !existsSync(join(dir, b)),
    );
    if (missing.length) {
      log(`KUBEBUILDER_ASSETS=${dir} lacks: ${missing.join(', ')}`);
      process.exit(1);
    }
    log('KUBEBUILDER_ASSETS is set: using those binaries, building nothing');
    printResult(dir);
    return;
  }

  const k8sVersion = requiredVersion(join(envtestDir, 'go.mod'), 'k8s.io/kubernetes');
  const cacheRoot = process.env.SLUICE_CACHE_DIR
    ? resolve(process.env.SLUICE_CACHE_DIR)
    : join(homedir(), '.cache', 'sluice', 'envtest');
  const versionDir = join(cacheRoot, k8sVersion);
  const binDir = join(versionDir, 'bin');
  const stampDir = join(versionDir, 'stamps');

  const go = goVersion();
  const jobs = buildJobs(k8sVersion).map((job) => ({ job, stamp: computeStamp(job, go) }));
  const stampFile = (job) => join(stampDir, job.name);
  const stale = jobs.filter(
    ({ job, stamp }) =>
      !(existsSync(stampFile(job)) && readFileSync(stampFile(job), 'utf8').trim() === stamp) ||
      !job.binaries.every((b) => existsSync(join(binDir, b))),
  );
  if (stale.length === 0) {
    log(`up to date (Kubernetes ${k8sVersion})`);
    printResult(binDir);
    return;
  }

  // Build into a private staging dir and move each binary in at the end (a rename, so a concurrent reader
  // sees the old file or the new one, never half of one); an interrupted build leaves bin/ as it was.
  mkdirSync(binDir, { recursive: true });
  mkdirSync(stampDir, { recursive: true });
  const staging = join(versionDir, `bin.tmp-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  try {
    // The modules share almost no packages, so building them side by side fills the cores while one waits
    // on downloads or its linker.
    await Promise.all(stale.map(({ job }) => goBuild(job, staging)));
    for (const { job, stamp } of stale) {
      const missing = job.binaries.filter((b) => !existsSync(join(staging, b)));
      if (missing.length) throw new Error(`go build produced no ${missing.join(', ')}`);
      rmSync(stampFile(job), { force: true });
      for (const b of job.binaries) renameSync(join(staging, b), join(binDir, b));
      writeFileSync(stampFile(job), `${stamp}\n`);
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  printResult(binDir);
}

main().catch((err) => {
  for (const child of running) child.kill('SIGTERM');
  log(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
