// The shared harness of the benchmarks (bench/<name>.ts): the control plane, namespaces, the emulator and
// the operator in this process, bulk applies, Ready tracking, apiserver request counts, and the table and
// JSON result every benchmark prints and writes. Numbers, not assertions.
import { spawn } from 'node:child_process';
import { stringify } from 'yaml';
import { mkdirSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { pathToFileURL } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { startEmulator, type Emulator } from '../src/emulator/server.ts';
import type { CallRecord } from '../src/emulator/call-log.ts';
import type { RateLimitOption } from '../src/emulator/rate-limit.ts';
import { KINDS as SLUICE_KINDS } from '../src/kinds/index.ts';
import type { OperatorFlags } from '../src/operator/config.ts';
import { Informer } from '../src/kube/informer.ts';
import { kubeRequestJson } from '../src/kube/kube-http.ts';
import type { ManagedObject } from '../src/managed/index.ts';
import { imageEnv, imageNodeFlags } from '../scripts/image-layout.ts';
import { benchObjects, mixSecrets, type BenchObject, type Mix } from './mixes.ts';
import { startControlPlane, type ControlPlane } from '../tools/cluster/control-plane.ts';
import { chartCredentials, kubectlBin } from '../tools/cluster/install.ts';
import { mapConcurrently } from '../src/base/map-concurrently.ts';
import { limitCpu } from '../tools/cluster/cpu-limit.ts';

/** Every sluice kind's resource, from the kind registry. */
export const KINDS: Record<string, { group: string; version: string; plural: string }> = Object.fromEntries(
  SLUICE_KINDS.map(({ kind, group, version, plural }) => [kind, { group, version, plural }]),
);
export type BenchKind = string;

export { benchObjects, type BenchObject, type Mix } from './mixes.ts';

/** One figure of a benchmark: the value, its target and whether it is met (undefined: no target). */
export interface Figure {
  benchmark: string;
  figure: string;
  value: number;
  unit?: string;
  target?: string;
  pass?: boolean;
}

export const figure = (
  benchmark: string,
  name: string,
  value: number,
  { unit, max }: { unit?: string; max?: number } = {},
): Figure => ({
  benchmark,
  figure: name,
  value,
  ...(unit ? { unit } : {}),
  ...(max !== undefined ? { target: `≤ ${max}${unit ? ` ${unit}` : ''}`, pass: value <= max } : {}),
});

export interface Cluster {
  plane: ControlPlane;
  kubeConfig: KubeConfig;
  /** JSON request to the apiserver, counted in `requests` (the benchmark's own load). */
  kube<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T>;
  requests: number;
  stop(): Promise<void>;
}

export async function startCluster(): Promise<Cluster> {
  return clusterOf(await startControlPlane());
}

/** The benchmarks' view of a control plane started elsewhere (with a node, say). */
export function clusterOf(plane: ControlPlane): Cluster {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(plane.kubeconfig);
  const cluster: Cluster = {
    plane,
    kubeConfig,
    requests: 0,
    kube: (method, path, body, contentType) => {
      cluster.requests++;
      return kubeRequestJson(kubeConfig, { method, path, body, ...(contentType ? { contentType } : {}) });
    },
    stop: () => plane.stop(),
  };
  return cluster;
}

/** One series of `apiserver_request_total`: who was asked what. */
export interface RequestKind {
  verb: string;
  resource: string;
  /** `status` for a status write; empty for the object itself. */
  subresource: string;
  /** A dry run (`?dryRun=All`): checked by the apiserver, not stored. */
  dryRun: boolean;
  /** The answer's HTTP status when it refused (a 409 conflict, say); undefined when it succeeded. */
  refused?: string;
}

/**
 * A request kind as one key (and table row): `PATCH databaseservices/status`, `POST secrets (dry run)`,
 * `PATCH databaseservices → 409`.
 */
export function requestKey({ verb, resource, subresource, dryRun, refused }: RequestKind): string {
  const what = `${verb} ${resource}${subresource ? `/${subresource}` : ''}${dryRun ? ' (dry run)' : ''}`;
  return refused ? `${what} → ${refused}` : what;
}

/**
 * The apiserver's own `apiserver_request_total`, by verb, resource, subresource, dry run and refusal
 * (`requestKey`).
 */
export async function apiserverRequests(
  cluster: Cluster,
): Promise<Map<string, { kind: RequestKind; count: number }>> {
  const options: https.RequestOptions = {};
  await cluster.kubeConfig.applyToHTTPSOptions(options);
  const server = cluster.kubeConfig.getCurrentCluster()!.server;
  const text = await new Promise<string>((resolve, reject) => {
    https
      .get(`${server}/metrics`, options, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve(body));
        response.on('error', reject);
      })
      .on('error', reject);
  });
  const counts = new Map<string, { kind: RequestKind; count: number }>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const label = (name: string) => new RegExp(`[{,]${name}="([^"]*)"`).exec(line)?.[1] ?? '';
    const kind: RequestKind = {
      verb: label('verb'),
      resource: label('resource'),
      subresource: label('subresource'),
      dryRun: label('dry_run') !== '',
      ...(Number(label('code')) >= 400 ? { refused: label('code') } : {}),
    };
    const key = requestKey(kind);
    const count = (counts.get(key)?.count ?? 0) + Number(line.split(' ').at(-1));
    counts.set(key, { kind, count });
  }
  return counts;
}

/**
 * Counts the requests the operator sends, as the apiserver counts them, from `since` on: every verb on
 * sluice kinds, Secrets and Events except the benchmark's own creates of the objects and the LIST/WATCH of
 * informers (a constant few per run, not per object). `byKind`: by `requestKey`, most first.
 */
export async function operatorRequests(
  cluster: Cluster,
  since: ReadonlyMap<string, { count: number }> = new Map(),
): Promise<{
  total: number;
  byKind: Record<string, number>;
  counts: Map<string, { kind: RequestKind; count: number }>;
}> {
  const counts = await apiserverRequests(cluster);
  const byKind: [string, number][] = [];
  let total = 0;
  for (const [key, { kind, count }] of counts) {
    const { verb, resource } = kind;
    const sluice = Object.values(KINDS).some((k) => k.plural === resource);
    const ours =
      (sluice || ['secrets', 'events'].includes(resource)) &&
      !['LIST', 'WATCH'].includes(verb) &&
      !(verb === 'POST' && sluice);
    const delta = count - (since.get(key)?.count ?? 0);
    if (!ours || delta === 0) continue;
    byKind.push([key, delta]);
    total += delta;
  }
  byKind.sort(([a, m], [b, n]) => n - m || a.localeCompare(b));
  return { total, byKind: Object.fromEntries(byKind), counts };
}

/** The operator's requests per object, a line per request kind and the total, as a benchmark prints them. */
export function requestsPerObjectTable(
  requests: { total: number; byKind: Record<string, number> },
  objects: number,
): string {
  const rows = [...Object.entries(requests.byKind), ['total', requests.total] as const];
  const width = Math.max(...rows.map(([key]) => key.length));
  return rows
    .map(([key, n]) => `  ${key.padEnd(width)}  ${(n / objects).toFixed(2).padStart(6)}  (${n})`)
    .join('\n');
}

let namespaces = 0;

/** A fresh namespace with the cloud credentials Secret and the Secrets the objects of the mixes reference. */
export async function createNamespace(
  cluster: Cluster,
  prefix: string,
  emulator?: Emulator,
): Promise<string> {
  const namespace = `${prefix}-${++namespaces}-${Date.now() % 100_000}`;
  await cluster.kube('POST', '/api/v1/namespaces', { metadata: { name: namespace } });
  const secret = (name: string, stringData: Record<string, string>) =>
    cluster.kube('POST', `/api/v1/namespaces/${namespace}/secrets`, { metadata: { name }, stringData });
  for (const [name, data] of Object.entries(mixSecrets())) await secret(name, data);
  if (emulator) await secret('cloud', chartCredentials(emulator));
  return namespace;
}

/** Secrets no sluice object uses, in the namespace the operator watches, before anything is measured. */
export async function createUnrelatedSecrets(
  cluster: Cluster,
  namespace: string,
  count: number,
  kib: number,
): Promise<void> {
  const blob = Buffer.alloc(kib * 1024, 'unrelated ').toString('base64');
  const names = Array.from({ length: count }, (_, i) => `unrelated-${i}`);
  await pool(names, 4, (name) =>
    cluster.kube('POST', `/api/v1/namespaces/${namespace}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace },
      data: { blob },
    }),
  );
}

export interface StackOptions {
  /** The emulator's management API limit per key; `'off'` (the default) lifts the alerting limit as well. */
  rateLimit?: RateLimitOption;
  /** The emulator's alerting API limit per token, when `rateLimit` is on; else the real 100 per 60 s. */
  alertsRateLimit?: RateLimitOption;
  /** The emulator's time per state step (default 0: at once, still asynchronous). */
  transitionMs?: number;
  /** The emulator keeps its resources in this file (to be restarted on them). */
  stateFile?: string;
  flags?: Partial<OperatorFlags>;
  /** What runs the operator: bin/sluice.js (tsx, or the compiled dist/ once built) or a compiled cli.js. */
  entry?: string;
  /** Hold the operator to this share of one core (0.5: half a core), as a container CPU limit would. */
  cpu?: number;
}

export interface Stack {
  emulator: Emulator;
  namespace: string;
  operator: OperatorProcess;
  stop(): Promise<void>;
}

export const WATCH_CATCH_UP_MS = 3_000;

/**
 * The emulator (--transition-ms 0 unless `transitionMs` says otherwise) in this process and the operator as its own process, as it runs in
 * production, watching one new namespace. In this process the operator would share one thread with the
 * emulator and the benchmark's own watches, and be measured for their work too.
 */
export async function startStack(
  cluster: Cluster,
  prefix: string,
  options: StackOptions = {},
): Promise<Stack> {
  const emulator = await startEmulator({
    port: 0,
    transitionMs: options.transitionMs ?? 0,
    logger: false,
    ...(options.stateFile ? { stateFile: options.stateFile } : {}),
    rateLimit: options.rateLimit ?? 'off',
    ...(options.alertsRateLimit ? { alertsRateLimit: options.alertsRateLimit } : {}),
  });
  const namespace = await createNamespace(cluster, prefix, emulator);
  const operator = await startOperatorProcess(cluster, namespace, options.flags, options.entry, options.cpu);
  // A burst reaches a running operator, not one that has just opened its watches: the apiserver holds back
  // a new watch's events until its watch cache has caught up with the list's resourceVersion (about 2 s
  // here, measured), which a benchmark starting at once would count as the operator's time.
  await sleep(WATCH_CATCH_UP_MS);
  return {
    emulator,
    namespace,
    operator,
    stop: async () => {
      await operator.stop();
      await emulator.stop();
    },
  };
}

export interface OperatorProcess {
  pid: number;
  stop(): Promise<void>;
  /** Exits nobody asked for so far (a crash, a lost Lease): stop() is the only exit a benchmark expects. */
  unexpectedExits(): number;
}

/**
 * `sluice run` watching `namespace` with the cloud credentials `createNamespace` put there, management and
 * alerting quota off unless `flags` say otherwise (the emulator is unlimited but in bench:quota); resolves once
 * its informers are synced (`/readyz`).
 */
export async function startOperatorProcess(
  cluster: Cluster,
  namespace: string,
  flags: Partial<OperatorFlags> = {},
  entry = 'bin/sluice.js',
  cpu?: number,
): Promise<OperatorProcess> {
  const probePort = await freePort();
  const all: Partial<OperatorFlags> = {
    kubeconfig: cluster.plane.kubeconfig,
    namespace,
    credentialsSecret: `${namespace}/cloud`,
    metricsBindAddress: '0',
    healthProbeBindAddress: `127.0.0.1:${probePort}`,
    managementQuota: 'off',
    alertingQuota: 'off',
    logLevel: (process.env.BENCH_LOG as OperatorFlags['logLevel']) ?? 'warn',
    ...flags,
  };
  const args = Object.entries(all).map(
    ([flag, value]) => `--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}=${String(value)}`,
  );
  // The image's node flags and environment, as it runs in production; plus e.g. BENCH_NODE_ARGS='--cpu-prof
  // --cpu-prof-dir=/tmp/prof' to profile the operator alone.
  const nodeArgs = [...imageNodeFlags(), ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [])];
  const child = spawn(process.execPath, [...nodeArgs, entry, 'run', ...args], {
    env: { ...process.env, ...imageEnv() },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const releaseCpu = cpu === undefined ? () => {} : limitCpu(child.pid!, cpu);
  let stopping = false;
  let unexpected = 0;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      if (!stopping) unexpected++;
      releaseCpu();
      resolve();
    }),
  );
  const stop = async () => {
    stopping = true;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = performance.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`the operator exited with ${child.exitCode} before it was ready`);
    const ready = await fetch(`http://127.0.0.1:${probePort}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return { pid: child.pid!, stop, unexpectedExits: () => unexpected };
    if (performance.now() > deadline) {
      await stop();
      throw new Error('the operator was not ready within 60 s');
    }
    await sleep(100);
  }
}

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The emulator's call log (kept calls) and counts since it was last cleared. */
export async function cloudCalls(
  stack: Stack,
): Promise<{ calls: CallRecord[]; answered: number; tooMany: number; reads: number; writes: number }> {
  const log = (await (await fetch(`${stack.emulator.url}/_emulator/calls`)).json()) as {
    calls: CallRecord[];
  };
  const answered = log.calls.filter((call) => call.status !== 429);
  return {
    calls: log.calls,
    answered: answered.length,
    tooMany: log.calls.length - answered.length,
    reads: answered.filter((call) => call.method === 'GET').length,
    writes: answered.filter((call) => call.method !== 'GET').length,
  };
}

export const clearCloudCalls = (stack: Stack) =>
  fetch(`${stack.emulator.url}/_emulator/calls`, { method: 'DELETE' });

export const objectPath = (kind: BenchKind, namespace: string, name = '') =>
  `/apis/${KINDS[kind]!.group}/${KINDS[kind]!.version}/namespaces/${namespace}/${KINDS[kind]!.plural}${name ? `/${name}` : ''}`;

/** Runs `work` over `items` with at most `concurrency` in flight. */
export async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>) {
  await mapConcurrently(items, concurrency, work);
}

/**
 * Creates the objects (by default 16 in flight: a burst, as `kubectl apply -f dir/` of many files would send
 * it).
 */
export async function applyAll(
  cluster: Cluster,
  namespace: string,
  objects: readonly BenchObject[],
  appliedAt?: Map<string, number>,
  inFlight = 16,
): Promise<void> {
  await pool(objects, inFlight, async ({ kind, name, spec }) => {
    appliedAt?.set(`${kind}/${name}`, performance.now());
    await cluster.kube('POST', objectPath(kind, namespace), {
      apiVersion: `${KINDS[kind]!.group}/${KINDS[kind]!.version}`,
      kind,
      metadata: { name, namespace },
      spec,
    });
  });
}

const isReady = (object: ManagedObject) =>
  object.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** Watches the benchmark's kinds in a namespace (one LIST and WATCH each) and notes when each is Ready. */
export class ReadyTracker {
  readonly readyAt = new Map<string, number>();
  /** When the watch first saw each object: its apply time when a whole burst is handed over at once. */
  readonly seenAt = new Map<string, number>();
  private readonly informers: Informer<ManagedObject>[];
  private waiters: Array<() => void> = [];

  constructor(cluster: Cluster, namespace: string) {
    this.informers = Object.entries(KINDS).map(([kind, resource]) => {
      const informer = new Informer<ManagedObject>({ kubeConfig: cluster.kubeConfig, resource, namespace });
      informer.subscribe((key) => {
        const object = informer.cache.get(key);
        const id = `${kind}/${key.slice(key.indexOf('/') + 1)}`;
        if (object && !this.seenAt.has(id)) this.seenAt.set(id, performance.now());
        if (object && isReady(object) && !this.readyAt.has(id)) {
          this.readyAt.set(id, performance.now());
          this.waiters.splice(0).forEach((wake) => wake());
        }
      });
      informer.start();
      return informer;
    });
  }

  /**
   * Resolves once the watches have listed and the apiserver sends their events without holding them back
   * (a new watch's first events wait for its watch cache to catch up): start the clock after this.
   */
  async ready(): Promise<void> {
    while (!this.informers.every((informer) => informer.hasSynced())) await sleep(50);
    await sleep(WATCH_CATCH_UP_MS);
  }

  /** Resolves once `count` objects are Ready; rejects after `timeoutMs`. */
  async waitFor(count: number, timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (this.readyAt.size < count) {
      if (performance.now() > deadline) {
        throw new Error(`only ${this.readyAt.size} of ${count} Ready after ${timeoutMs / 1000} s`);
      }
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 1_000);
      });
    }
  }

  stop = () => Promise.all(this.informers.map((informer) => informer.stop()));
}

/**
 * How a benchmark hands its burst over: `16` creates in flight (as `kubectl apply -f dir/` of many files would
 * send them); `kubectl`: one `kubectl apply --server-side` of every object (it sends them one after the other);
 * `all`: every create in flight at once, the burst as one batch.
 */
export type BurstShape = '16' | 'kubectl' | 'all';

export function burstShape(value: string | undefined): BurstShape {
  if (value === '16' || value === 'kubectl' || value === 'all') return value;
  throw new Error(`--apply must be 16, kubectl or all, got ${String(value)}`);
}

/**
 * One `kubectl apply --server-side -f -` of every object (it sends them one after the other as fast as the
 * apiserver answers). Asynchronous, so the benchmark's watches keep noting Ready meanwhile.
 */
export async function kubectlApplyAll(
  cluster: Cluster,
  namespace: string,
  objects: readonly BenchObject[],
): Promise<void> {
  const yaml = objects
    .map(({ kind, name, spec }) =>
      stringify({
        apiVersion: `${KINDS[kind]!.group}/${KINDS[kind]!.version}`,
        kind,
        metadata: { name, namespace },
        spec,
      }),
    )
    .join('---\n');
  const args = ['apply', '--kubeconfig', cluster.plane.kubeconfig, '--server-side', '-f', '-'];
  const child = spawn(kubectlBin(), args, { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.stdin.end(yaml);
  const code = await exited;
  if (code !== 0) throw new Error(`kubectl apply failed (exit ${code}): ${stderr.trim()}`);
}

/** Applies `count` mixed objects into the stack's namespace and waits until all are Ready. */
export async function applyAndWait(
  cluster: Cluster,
  stack: Stack,
  count: number,
  timeoutSeconds: string,
  mix: Mix = 'pairs',
  shape: BurstShape = '16',
) {
  return applyObjectsAndWait(cluster, stack, benchObjects(count, mix), timeoutSeconds, shape);
}

/**
 * Applies `objects` into the stack's namespace and waits until all are Ready. `appliedAt` is when each create
 * was sent, or with `shape` `kubectl` (which sends them itself) when the watch first saw each object.
 */
export async function applyObjectsAndWait(
  cluster: Cluster,
  stack: Stack,
  objects: readonly BenchObject[],
  timeoutSeconds: string,
  shape: BurstShape = '16',
) {
  const count = objects.length;
  const tracker = new ReadyTracker(cluster, stack.namespace);
  let appliedAt = new Map<string, number>();
  let startedAt = NaN;
  try {
    await tracker.ready();
    // Objects of the namespace already Ready (an earlier burst) are not the ones waited for.
    const readyBefore = tracker.readyAt.size;
    startedAt = performance.now();
    if (shape === 'kubectl') {
      await kubectlApplyAll(cluster, stack.namespace, objects);
      appliedAt = tracker.seenAt;
    } else {
      await applyAll(cluster, stack.namespace, objects, appliedAt, shape === 'all' ? objects.length : 16);
    }
    await tracker.waitFor(readyBefore + count, Number(timeoutSeconds) * 1000);
  } finally {
    await tracker.stop();
  }
  const lastReadyAt = Math.max(...tracker.readyAt.values());
  return { objects, appliedAt, seenAt: tracker.seenAt, readyAt: tracker.readyAt, startedAt, lastReadyAt };
}

export function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Prints the figures as a table. */
export function printTable(figures: readonly Figure[]): void {
  const rows = figures.map((f) => [
    f.benchmark,
    f.figure,
    `${round(f.value)}${f.unit ? ` ${f.unit}` : ''}`,
    f.target ?? '',
    f.pass === undefined ? '' : f.pass ? 'pass' : 'FAIL',
  ]);
  const header = ['benchmark', 'figure', 'value', 'target', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  for (const row of [header, ...rows]) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  '));
}

const round = (value: number) =>
  Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 10 ? value.toFixed(1) : value.toFixed(2);

/** Writes `bench/results/<name>.json`: the figures and the parameters that produced them. */
export function writeResult(name: string, parameters: Record<string, unknown>, figures: readonly Figure[]) {
  const dir = new URL('./results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const result = { benchmark: name, at: new Date().toISOString(), parameters, figures };
  writeFileSync(new URL(`${name}.json`, dir), `${JSON.stringify(result, null, 2)}\n`);
}

/** A benchmark: run on a cluster with its parsed flags, returning its figures. */
export interface Benchmark {
  name: string;
  /** Flags and their defaults (all strings, as `parseArgs` reads them). */
  flags: Record<string, string>;
  run(cluster: Cluster, args: Record<string, string>): Promise<Figure[]>;
}

/** Whether the module at `url` is the script node was started with (not imported by `bench/all.ts`). */
export const isMain = (url: string) =>
  process.argv[1] !== undefined && url === pathToFileURL(process.argv[1]).href;

/** Runs one benchmark as a script: its own control plane, its table, its JSON result. */
export async function main(benchmark: Benchmark, argv = process.argv.slice(2)): Promise<void> {
  const { parseArgs } = await import('node:util');
  const options = Object.fromEntries(
    Object.entries(benchmark.flags).map(([name, value]) => [
      name,
      { type: 'string' as const, default: value },
    ]),
  );
  const { values } = parseArgs({ args: argv, options });
  const cluster = await startCluster();
  try {
    const args = values as Record<string, string>;
    const figures = await benchmark.run(cluster, args);
    printTable(figures);
    writeResult(benchmark.name, args, figures);
  } finally {
    await cluster.stop();
  }
}
