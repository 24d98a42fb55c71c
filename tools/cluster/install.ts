// The install paths as a user runs them, for tests and the demo: `helm template` / `helm install`,
// `kubectl kustomize`, `kubectl apply`, and a kubeconfig holding only a ServiceAccount's token.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments, stringify } from 'yaml';
import { assetsDir, repoRoot } from './assets.ts';
import { renderKubeconfig } from './kubeconfig.ts';

export const chartDir = join(repoRoot, 'charts', 'sluice');
export const helmBin = () => join(assetsDir(), 'helm');
export const kubectlBin = () => join(assetsDir(), 'kubectl');

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

/** Runs a binary; on failure the error carries its stderr (never the input, which may hold secrets). */
export function run(bin: string, args: string[], input?: string): string {
  try {
    return execFileSync(bin, args, {
      encoding: 'utf8',
      input,
      stdio: ['pipe', 'pipe', 'pipe'],
      maxBuffer: 64 << 20,
    });
  } catch (error) {
    throw runFailure(bin, args, error);
  }
}

/** `run` without blocking the event loop, for a process that serves others meanwhile. */
export async function runAsync(bin: string, args: string[]): Promise<string> {
  try {
    return (await promisify(execFile)(bin, args, { encoding: 'utf8', maxBuffer: 64 << 20 })).stdout;
  } catch (error) {
    throw runFailure(bin, args, error);
  }
}

function runFailure(bin: string, args: string[], error: unknown): Error {
  const { stderr, status, code } = error as { stderr?: string; status?: number; code?: number | string };
  return new Error(`${bin.split('/').pop()} ${args[0]} failed (exit ${status ?? code}): ${stderr?.trim()}`, {
    cause: error,
  });
}

/** Runs helm with a values file (mode 0600 in a private temp dir, removed afterwards: values can hold keys). */
export function helmWithValues(args: string[], values: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-values-'));
  try {
    const file = join(dir, 'values.yaml');
    // YAML 1.1, as helm reads it: strings like "off" or "yes" must be quoted or they become booleans.
    writeFileSync(file, stringify(values, { version: '1.1' }), { mode: 0o600 });
    return run(helmBin(), [...args, '--values', file]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The image the tests and the demo give the chart, which requires one: nothing pulls it (there is no kubelet;
 * the demo runs the operator from source with the chart's arguments).
 */
export const LOCAL_IMAGE = { repository: 'localhost/sluice', tag: 'dev' };

export interface TemplateOptions {
  release?: string;
  namespace: string;
  values?: Record<string, unknown>;
}

/** `helm template` of charts/sluice: the YAML text. */
export function helmTemplate({ release = 'sluice', namespace, values = {} }: TemplateOptions): string {
  return helmWithValues(['template', release, chartDir, '--namespace', namespace], {
    image: LOCAL_IMAGE,
    ...values,
  });
}

export function parseManifests(text: string): Manifest[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Manifest | null)
    .filter((o): o is Manifest => !!o?.kind);
}

/** YAML 1.1, as kubectl reads it: a dashboard tile's `y` stays a string, not the bool YAML 1.1 makes of it. */
export const toYaml = (objects: readonly Manifest[]) =>
  objects.map((o) => stringify(o, { version: '1.1' })).join('---\n');

/** `kubectl apply -f -`; `dryRun: true` asks the apiserver to validate and admit without persisting. */
export function kubectlApply(
  kubeconfig: string,
  objects: readonly Manifest[] | string,
  opts: { dryRun?: boolean } = {},
): string {
  const input = typeof objects === 'string' ? objects : toYaml(objects);
  return run(
    kubectlBin(),
    [
      'apply',
      '--kubeconfig',
      kubeconfig,
      ...(opts.dryRun ? ['--dry-run=server'] : []),
      '--server-side',
      '--field-manager=sluice-test',
      '--force-conflicts',
      '-f',
      '-',
    ],
    input,
  );
}

export function find(objects: readonly Manifest[], kind: string, name?: string): Manifest | undefined {
  return objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
}

interface PodSpec {
  serviceAccountName?: string;
  containers: { name: string; args?: string[] }[];
}

/** The operator Deployment's pod template. */
export function operatorPodTemplate(objects: readonly Manifest[]): {
  metadata?: Record<string, unknown>;
  spec: PodSpec;
} {
  const deployment = find(objects, 'Deployment');
  if (!deployment) throw new Error('no Deployment in the manifests');
  return (deployment.spec as { template: { metadata?: Record<string, unknown>; spec: PodSpec } }).template;
}

/** The `sluice` arguments the Deployment starts the container with (first one: `run`). */
export function operatorArgs(objects: readonly Manifest[]): string[] {
  return operatorPodTemplate(objects).spec.containers[0]!.args ?? [];
}

/**
 * A kubeconfig for the same cluster that authenticates as a ServiceAccount with a token from the TokenRequest
 * API, as the kubelet would mount it into the operator's pod: the identity has only the rights RBAC gives it.
 */
export async function serviceAccountKubeconfig(
  admin: KubeConfig,
  namespace: string,
  serviceAccount: string,
): Promise<string> {
  const core = admin.makeApiClient(CoreV1Api);
  const request = await core.createNamespacedServiceAccountToken({
    name: serviceAccount,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('admin kubeconfig has no current cluster');
  const caPem = cluster.caData ? Buffer.from(cluster.caData, 'base64').toString('utf8') : '';
  return renderKubeconfig({
    name: `${namespace}-${serviceAccount}`,
    server: cluster.server,
    caPem,
    token: request.status!.token,
  });
}

export interface RunningSluice {
  child: ChildProcess;
  logFile: string;
  /** SIGTERM, SIGKILL after 5 s; resolves once the process has exited. */
  stop(): Promise<void>;
}

/**
 * `sluice run` from this checkout's sources (never a stale dist/) with a Deployment's arguments, as the identity
 * in `kubeconfig`, stdout and stderr to `logFile`. The probe and metrics servers move to the given addresses
 * (default: free ports), since the Deployment's ports may be taken on this machine.
 */
export function spawnSluiceRun(opts: {
  args: string[];
  kubeconfig: string;
  logFile: string;
  metricsAddress?: string;
  probeAddress?: string;
}): RunningSluice {
  const log = openSync(opts.logFile, 'w');
  let child: ChildProcess;
  try {
    child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(repoRoot, 'src', 'cli.ts'),
        ...opts.args,
        `--kubeconfig=${opts.kubeconfig}`,
        `--metrics-bind-address=${opts.metricsAddress ?? '127.0.0.1:0'}`,
        `--health-probe-bind-address=${opts.probeAddress ?? '127.0.0.1:0'}`,
      ],
      { cwd: repoRoot, stdio: ['ignore', log, log] },
    );
  } finally {
    closeSync(log);
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    logFile: opts.logFile,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The chart's `credentials` values for an emulator: the operator's default Secret, created by the chart. */
export function chartCredentials(emulator: {
  url: string;
  credentials: { organizationId: string; keyId: string; keySecret: string; alertsToken: string };
}): Record<string, string> {
  const { organizationId, keyId, keySecret, alertsToken } = emulator.credentials;
  return {
    organizationId,
    keyId,
    keySecret,
    managementUrl: emulator.url,
    alertsUrl: emulator.url,
    alertsToken,
  };
}
