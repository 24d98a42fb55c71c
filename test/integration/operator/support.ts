import { execFile, type ChildProcess, type StdioOptions } from 'node:child_process';
import { promisify } from 'node:util';
import {
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { pino } from 'pino';
import { expect } from 'vitest';
import { AlertingClient } from '../../../src/cloud/alerting-client.ts';
import { ManagementClient } from '../../../src/cloud/management-client.ts';
import type { DatabaseService } from '../../../src/kinds/database-service/schema.ts';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../../src/emulator/server.ts';
import { OperatorConfig, type OperatorFlags } from '../../../src/operator/config.ts';
import { startOperator, type RunningOperator } from '../../../src/operator/run.ts';
import { ExportConfig } from '../../../src/export/config.ts';
import { runExport } from '../../../src/export/run.ts';
import { createTestNamespace, type TestNamespace } from '../../harness/namespace.ts';
import { releaseFinalizers } from '../../../src/uninstall/release.ts';
import { GRANT_SCHEMAS, KINDS } from '../../../src/kinds/index.ts';
import { testKubeconfigPath } from '../../harness/test-cluster.ts';
import { spawnSluiceRun } from '../../../tools/cluster/operator-process.ts';
import { kubectlBin } from '../../../tools/cluster/install.ts';
import { suiteValue } from '../../support/suite-value.ts';
import type { CallRecord } from '../../../src/emulator/call-log.ts';
import { until, untilValue } from '../../support/wait.ts';
import { untilObject } from '../../support/watch-wait.ts';

export type { CallRecord };

export const CREDENTIALS_SECRET = 'cloud-credentials';

/**
 * How many times faster than real time a test on compressed time runs, in the operator (`--time-scale`) and
 * the emulator (`timeScale`) together: the real algorithm, with 10 requests per 1 s and 100 per 6 s.
 */
export const TIME_SCALE = 10;

export interface QuotaMode {
  mode: string;
  lifted: boolean;
  emulator: EmulatorOptions;
  operator: Partial<OperatorFlags>;
}

/**
 * The cloud's real limits and the operator's default quotas (10 requests / 10 s per key, 100 / 60 s per
 * alerting token), at real time: where work queued behind quota waits shows. The tests that keep each promise
 * at these defaults are listed in docs/development.md.
 */
export const REAL_QUOTA_MODE: QuotaMode = {
  mode: "the cloud's real limits and the operator's default quotas",
  lifted: false,
  emulator: { rateLimit: undefined },
  operator: { managementQuota: undefined, alertingQuota: undefined },
};

/** The same limits and quotas on time ten times faster (10 / 1 s, 100 / 6 s) in the emulator and the operator. */
export const COMPRESSED_QUOTA_MODE: QuotaMode = {
  mode: `the real limits and default quotas on ${TIME_SCALE}× time`,
  lifted: false,
  emulator: { rateLimit: undefined, timeScale: TIME_SCALE },
  operator: { managementQuota: undefined, alertingQuota: undefined, timeScale: TIME_SCALE },
};

/** The two quota settings end-to-end tests run under: lifted, and the real quotas on compressed time. */
export const QUOTA_MODES: readonly QuotaMode[] = [
  { mode: 'quota lifted', lifted: true, emulator: {}, operator: {} },
  COMPRESSED_QUOTA_MODE,
];

/** A credentials Secret's data: the emulator's management key (with `alerting`, its alerts token too) for `url`. */
function credentialsData(emulator: Emulator, { url = emulator.url, alerting = false } = {}) {
  const { organizationId, keyId, keySecret, alertsToken } = emulator.credentials;
  const management = { organizationId, keyId, keySecret, managementUrl: url };
  return alerting ? { ...management, alertsUrl: url, alertsToken } : management;
}

/** The plural of a sluice kind's resource (or CloudIdGrant's), as its URL names it. */
function pluralOf(kind: string): string {
  const found = [...KINDS, ...GRANT_SCHEMAS].find((k) => k.kind === kind);
  if (!found) throw new Error(`no sluice kind ${kind}`);
  return found.plural;
}

/** One namespace on the real apiserver, one emulator, one operator watching only that namespace. */
export interface OperatorEnv {
  namespace: string;
  kc: KubeConfig;
  /** The kubeconfig file of the cluster this env runs in, for operators and CLIs. */
  kubeconfigPath: string;
  emulator: Emulator;
  /** A client of the same organization, for out-of-band changes and for looking at the cloud. */
  cloud: ManagementClient;
  /** An alerting client of the same token, unthrottled, for out-of-band changes to alerts. */
  alerting: AlertingClient;
  objects: KubernetesObjectApi;
  core: CoreV1Api;
  operator?: RunningOperator;
  /** Every log line of the in-process operators of this env, at debug level. */
  logs: string[];
  startOperator(flags?: Partial<OperatorFlags>): Promise<RunningOperator>;
  stopOperator(): Promise<void>;
  apply(
    name: string,
    spec: Partial<DatabaseService['spec']>,
    annotations?: Record<string, string>,
  ): Promise<void>;
  patchSpec(name: string, spec: Record<string, unknown>): Promise<void>;
  annotate(name: string, annotations: Record<string, string | null>): Promise<void>;
  remove(name: string): Promise<void>;
  removeUntilGone(...names: string[]): Promise<void>;
  get(name: string): Promise<DatabaseService | undefined>;
  waitFor(
    name: string,
    what: string,
    test: (r: DatabaseService | undefined) => boolean,
    timeoutMs?: number,
  ): Promise<DatabaseService>;
  secret(name: string): Promise<Record<string, string> | undefined>;
  /** The same operations for any sluice kind. */
  of<T extends SluiceObject>(kind: string): KindOperations<T>;
  /** Creates or replaces an Opaque Secret in the test namespace. */
  putSecret(name: string, values: Record<string, string>): Promise<void>;
  /** Writes a credentials Secret `name` with the emulator's key for `url` (the emulator's by default). */
  putCredentials(name: string, options?: { url?: string; alerting?: boolean }): Promise<void>;
  /** Forces a cloud object into a state through the emulator's control route. */
  forceState(body: Record<string, unknown>): Promise<void>;
  /** Sets the clock behind the emulator's `createdAt`/`updatedAt` (`{}` restores the host's clock). */
  setClock(setting: { offsetMs?: number; precision?: 'millisecond' | 'second' }): Promise<void>;
  /** Adds a fault through the emulator's control route (`DELETE` clears them all when `fault` is omitted). */
  fault(fault?: Record<string, unknown>): Promise<void>;
  /**
   * `sluice run` as a child process for this namespace, for tests that kill it; `flags` come last, so they
   * override the defaults (the env's credentials, quotas off, log level warn).
   */
  spawnOperator(flags?: string[], stdio?: StdioOptions): ChildProcess;
  calls(): Promise<CallRecord[]>;
  clearCalls(): Promise<void>;
  /**
   * Reconciles of `kind` the in-process operator has finished (`controller_runtime_reconcile_total`, every
   * result): what it did, not what the cluster shows.
   */
  reconciles(kind: string): Promise<number>;
  /**
   * Resolves once the operator has finished `perObject` (default 2) more reconciles of `kind` than when
   * called for each object of the kind in the namespace: the positive signal that it looked again, which a
   * test that asserts something did NOT happen waits for (with a short sync interval, each object's drift
   * check comes round about as often as any other's).
   */
  lookedAgain(kind: string, perObject?: number, timeoutMs?: number): Promise<void>;
  /**
   * Resolves once the in-process operator is idle: every controller's queue empty and no reconcile running,
   * twice in a row. Whatever it had been woken for before the call (a cloud change, a watch event), it has
   * done; a delayed retry is not waited for.
   */
  idle(timeoutMs?: number): Promise<void>;
  /**
   * Asks for a reconcile of one object with a fresh read of the cloud (`sluice.dev/reconcile-requested-at`)
   * and waits until its status says it was handled: the operator has looked at the cloud since the call, so
   * whatever it would write, it has written.
   */
  freshLook(kind: string, name: string, timeoutMs?: number): Promise<void>;
  /**
   * Makes the operator reconcile `name` `times` more times without asking for a fresh read (an annotation
   * that means nothing to sluice changes) and waits after each until a reconcile of `kind` has finished: the
   * positive signal for an object whose status cannot show a fresh look (being deleted, or refused).
   */
  reconciledAgain(kind: string, name: string, times?: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export const baseSpec = { provider: 'aws', region: 'us-east-1' } as const;

/** What the tests read of any sluice object. */
export interface SluiceObject {
  metadata: { name: string; uid?: string; generation?: number; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
  status?: {
    id?: string;
    observedGeneration?: number;
    conditions?: { type: string; status: string; reason: string; message?: string }[];
    [field: string]: unknown;
  };
}

export interface KindOperations<T extends SluiceObject> {
  apply(name: string, spec: Record<string, unknown>, annotations?: Record<string, string>): Promise<void>;
  patchSpec(name: string, spec: Record<string, unknown>): Promise<void>;
  annotate(name: string, annotations: Record<string, string | null>): Promise<void>;
  remove(name: string): Promise<void>;
  /** Deletes each object, then waits until every one is gone (its finalizer's work done). */
  removeUntilGone(...names: string[]): Promise<void>;
  get(name: string): Promise<T | undefined>;
  waitFor(name: string, what: string, test: (r: T | undefined) => boolean, timeoutMs?: number): Promise<T>;
}

export interface EnvPlacement {
  /** Another env whose emulator (one organization) this one uses too; the emulator stays that env's to stop. */
  sharing?: OperatorEnv;
  /** The kubeconfig file of another cluster to run in (default the shared test cluster). */
  kubeconfigPath?: string;
  /** An exact namespace name, for the same namespace in two clusters. */
  namespace?: string;
  /** The cloud URL the credentials Secret names (default the emulator's), e.g. a recording proxy's. */
  cloudUrl?: string;
}

export async function startOperatorEnv(
  prefix: string,
  emulatorOptions: EmulatorOptions = {},
  { sharing, kubeconfigPath = testKubeconfigPath()!, namespace, cloudUrl }: EnvPlacement = {},
): Promise<OperatorEnv> {
  const on = kubeconfigPath === testKubeconfigPath() ? undefined : new KubeConfig();
  on?.loadFromFile(kubeconfigPath);
  const ns: TestNamespace = await createTestNamespace(prefix, {
    ...(on ? { on } : {}),
    ...(namespace ? { name: namespace } : {}),
  });
  const emulator =
    sharing?.emulator ??
    (await startEmulator({
      port: 0,
      transitionMs: 0,
      rateLimit: 'off',
      logger: false,
      ...emulatorOptions,
    }));
  const { credentials } = emulator;
  const core = ns.kc.makeApiClient(CoreV1Api);
  const objects = KubernetesObjectApi.makeApiClient(ns.kc);
  await core.createNamespacedSecret({
    namespace: ns.name,
    body: {
      metadata: { name: CREDENTIALS_SECRET },
      stringData: credentialsData(emulator, { url: cloudUrl ?? emulator.url, alerting: true }),
    },
  });
  const cloud = new ManagementClient({ baseUrl: emulator.url, ...credentials }, { quota: false });
  const alerting = new AlertingClient(
    { baseUrl: emulator.url, token: credentials.alertsToken },
    { quota: false },
  );
  const kindOperations = <T extends SluiceObject>(kind: string): KindOperations<T> => {
    const ref = (name: string) => ({
      apiVersion: 'sluice.dev/v1alpha1',
      kind,
      metadata: { name, namespace: ns.name },
    });
    const mergePatch = (body: object) =>
      objects.patch(body as never, undefined, undefined, 'test', undefined, PatchStrategy.MergePatch);
    const get = async (name: string) => {
      try {
        return (await objects.read(ref(name))) as unknown as T;
      } catch (error) {
        if ((error as { code?: number }).code === 404) return undefined;
        throw error;
      }
    };
    const operations: KindOperations<T> = {
      async apply(name, spec, annotations = {}) {
        await objects.create({
          ...ref(name),
          metadata: { ...ref(name).metadata, annotations },
          spec,
        } as never);
      },
      async patchSpec(name, spec) {
        await mergePatch({ ...ref(name), spec });
      },
      async annotate(name, annotations) {
        await mergePatch({ ...ref(name), metadata: { ...ref(name).metadata, annotations } });
      },
      async remove(name) {
        await objects.delete(ref(name));
      },
      async removeUntilGone(...names) {
        for (const name of names) await objects.delete(ref(name));
        for (const name of names)
          await operations.waitFor(name, `${kind} ${name} gone`, (o) => o === undefined);
      },
      get,
      waitFor(name, what, test, timeoutMs = 20_000) {
        const place = {
          group: 'sluice.dev',
          version: 'v1alpha1',
          plural: pluralOf(kind),
          namespace: ns.name,
          name,
        };
        return untilObject(ns.kc, place, what, test, timeoutMs);
      },
    };
    return operations;
  };
  const services = kindOperations<DatabaseService & SluiceObject>('DatabaseService');
  let freshLooks = 0;
  let nudges = 0;
  const controlUrl = (path: string) => `${emulator.url}/_emulator/${path}`;
  /** A POST to one of the emulator's control routes; a refusal fails the test naming the route. */
  const postControl = async (path: string, body: object) => {
    const response = await fetch(controlUrl(path), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`POST ${path} failed: ${response.status} ${await response.text()}`);
  };

  /** The sum of a metric's series of the in-process operator whose labels start with `labels`. */
  const metricSum = async (name: string, labels = '') => {
    const url = env.operator?.metrics?.url;
    if (!url) throw new Error('no in-process operator with a metrics server is running');
    const text = await (await fetch(`${url}/metrics`)).text();
    const series = new RegExp(`^${name}\\{${labels}[^}]*\\} (\\d+)$`, 'gm');
    return [...text.matchAll(series)].reduce((sum, m) => sum + Number(m[1]), 0);
  };

  const env: OperatorEnv = {
    namespace: ns.name,
    kc: ns.kc,
    kubeconfigPath,
    emulator,
    cloud,
    alerting,
    objects,
    core,
    logs: [],
    async startOperator(flags = {}) {
      const config = OperatorConfig.parse({
        kubeconfig: kubeconfigPath,
        namespace: ns.name,
        credentialsSecret: `${ns.name}/${CREDENTIALS_SECRET}`,
        pollInterval: '200ms',
        metricsBindAddress: ':0',
        healthProbeBindAddress: ':0',
        managementQuota: 'off',
        alertingQuota: 'off',
        // The env's namespace is its administrator's: it may name cloud objects made outside sluice by id.
        plainIdNamespaces: ns.name,
        ...flags,
      });
      // Every line at debug level (trace when asked) is kept, so tests can prove no secret ever reaches the log.
      const logger = pino(
        { level: flags.logLevel === 'trace' ? 'trace' : 'debug' },
        {
          write: (line: string) => {
            env.logs.push(line);
            if (process.env.SLUICE_TEST_LOG) process.stdout.write(line);
          },
        },
      );
      env.operator = await startOperator(config, logger);
      return env.operator;
    },
    async stopOperator() {
      await env.operator?.stop();
      env.operator = undefined;
    },
    async apply(name, spec, annotations = {}) {
      await services.apply(name, { ...baseSpec, ...spec }, annotations);
    },
    patchSpec: services.patchSpec,
    annotate: services.annotate,
    remove: services.remove,
    removeUntilGone: services.removeUntilGone,
    get: services.get,
    waitFor: services.waitFor,
    of: kindOperations,
    async putSecret(name, values) {
      const body = { metadata: { name }, stringData: values };
      try {
        await core.replaceNamespacedSecret({ name, namespace: ns.name, body });
      } catch (error) {
        if ((error as { code?: number }).code !== 404) throw error;
        await core.createNamespacedSecret({ namespace: ns.name, body });
      }
    },
    putCredentials(name, options) {
      return env.putSecret(name, credentialsData(emulator, options));
    },
    forceState: (body) => postControl('state', body),
    setClock: (setting) => postControl('clock', setting),
    async secret(name) {
      try {
        const secret = await core.readNamespacedSecret({ name, namespace: ns.name });
        return Object.fromEntries(
          Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
        );
      } catch (error) {
        if ((error as { code?: number }).code === 404) return undefined;
        throw error;
      }
    },
    async fault(fault) {
      await fetch(controlUrl('faults'), {
        method: fault ? 'POST' : 'DELETE',
        ...(fault ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(fault) } : {}),
      });
    },
    spawnOperator(flags = [], stdio = 'ignore') {
      return spawnSluiceRun({
        kubeconfig: kubeconfigPath,
        namespace: ns.name,
        credentialsSecret: `${ns.name}/${CREDENTIALS_SECRET}`,
        flags: [`--plain-id-namespaces=${ns.name}`, ...flags],
        stdio,
      });
    },
    async calls() {
      const response = await fetch(controlUrl('calls'));
      return ((await response.json()) as { calls: CallRecord[] }).calls;
    },
    async clearCalls() {
      await fetch(controlUrl('calls'), { method: 'DELETE' });
    },
    async reconciles(kind) {
      return metricSum('controller_runtime_reconcile_total', `controller="${kind.toLowerCase()}",`);
    },
    async freshLook(kind, name, timeoutMs = 60_000) {
      const at = `fresh-look-${++freshLooks}`;
      const operations = kindOperations<SluiceObject>(kind);
      await operations.annotate(name, { 'sluice.dev/reconcile-requested-at': at });
      await operations.waitFor(
        name,
        `the fresh look ${at} handled`,
        (o) => o?.status?.lastHandledReconcileAt === at,
        timeoutMs,
      );
    },
    async reconciledAgain(kind, name, times = 1, timeoutMs = 60_000) {
      for (let i = 0; i < times; i++) {
        const from = await env.reconciles(kind);
        const nudge = `nudge-${++nudges}`;
        await kindOperations(kind).annotate(name, { 'example.com/nudge': nudge });
        await untilValue(
          `a reconcile of ${kind} after ${nudge} of ${name}`,
          () => env.reconciles(kind),
          (n) => n > from,
          timeoutMs,
        );
      }
    },
    async lookedAgain(kind, perObject = 2, timeoutMs = 60_000) {
      const from = await env.reconciles(kind);
      const { items } = await objects.list('sluice.dev/v1alpha1', kind, ns.name);
      const count = perObject * Math.max(1, items.length);
      await untilValue(
        `${count} more reconciles of ${kind}`,
        () => env.reconciles(kind),
        (n) => n >= from + count,
        timeoutMs,
      );
    },
    async idle(timeoutMs = 60_000) {
      const busy = async () =>
        (await metricSum('workqueue_depth')) + (await metricSum('controller_runtime_active_workers'));
      let idleLooks = 0;
      await until(
        'the operator idle',
        async () => ((await busy()) === 0 ? ++idleLooks : (idleLooks = 0)) >= 2,
        timeoutMs,
        100,
      );
    },
    async close() {
      await env.stopOperator();
      await cloud.close();
      await alerting.close();
      if (!sharing) await emulator.stop();
      await discardNamespace(ns);
    },
  };
  return env;
}

export const condition = (resource: SluiceObject | DatabaseService | undefined, type: string) =>
  resource?.status?.conditions?.find((c) => c.type === type);

export const isReady = (resource: SluiceObject | DatabaseService | undefined) =>
  condition(resource, 'Ready')?.status === 'True';

/** Ready, and the cloud object's id recorded in status. */
export const isReadyWithId = (resource: SluiceObject | undefined) =>
  isReady(resource) && resource?.status?.id !== undefined;

/** Calls that changed something in the cloud (everything but GETs). */
export const writes = (calls: CallRecord[]) => calls.filter((c) => c.method !== 'GET');

/**
 * The crash a create must survive: with the answer of every `route` POST held back by the emulator, a spawned
 * operator creates `name` and is killed with SIGKILL once `created()` (what the cloud holds) reaches `count`,
 * so it dies knowing no id. Then the fault and the call log are cleared and an in-process operator starts.
 * Returns the object as the crash left it and as it is once Ready with an id.
 */
export async function crashDuringCreate(
  env: OperatorEnv,
  target: { kind: string; name: string; spec: Record<string, unknown> },
  create: { route: string; created: () => number; count: number },
  restartFlags: Partial<OperatorFlags> = {},
): Promise<{ orphaned: SluiceObject; ready: SluiceObject }> {
  const objects = env.of<SluiceObject>(target.kind);
  await env.fault({ method: 'POST', route: create.route, phase: 'response', latencyMs: 60_000 });
  const child = env.spawnOperator();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await objects.apply(target.name, target.spec);
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && create.created() < create.count)
      await new Promise((r) => setTimeout(r, 50));
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
  if (create.created() !== create.count) {
    throw new Error(`the cloud holds ${create.created()} instead of ${create.count} after the crash`);
  }
  const orphaned = (await objects.get(target.name))!;
  await env.fault();
  await env.clearCalls();
  await env.startOperator(restartFlags);
  const ready = await objects.waitFor(target.name, 'Ready after restart', isReadyWithId);
  return { orphaned, ready };
}

/**
 * `crashDuringCreate` beside a look-alike someone else made first (`foreignId`, the same name): the crash
 * leaves two in the cloud, and once restarted the object adopts the one its own create made, never the
 * look-alike, without another POST. Returns the crash's result and the cloud object that is the operator's.
 */
export async function crashBesideLookAlike<T extends { id: string }>(
  env: OperatorEnv,
  target: { kind: string; name: string; spec: Record<string, unknown> },
  cloud: { route: string; named: () => T[]; foreignId: string },
  restartFlags: Partial<OperatorFlags> = {},
): Promise<{ orphaned: SluiceObject; ready: SluiceObject; ours: T }> {
  const { route, named, foreignId } = cloud;
  const crash = await crashDuringCreate(
    env,
    target,
    { route, created: () => named().length, count: 2 },
    restartFlags,
  );
  const ours = named().find((o) => o.id !== foreignId)!;
  expect(crash.ready.status!.id).toBe(ours.id);
  expect(named()).toHaveLength(2);
  expect((await env.calls()).filter((c) => c.method === 'POST' && c.route === route)).toHaveLength(0);
  return { ...crash, ours };
}

export interface SuiteEnvOptions {
  /** The emulator's options (default: no transition delays, no rate limit). */
  emulator?: EmulatorOptions;
  /** The in-process operator's flags, or `false` for a suite that starts its operator itself. */
  operator?: Partial<OperatorFlags> | false;
  /** How long starting may take (default: the hook timeout). */
  timeoutMs?: number;
}

/**
 * One operator environment (`startOperatorEnv`) for the enclosing suite, its operator running: started before
 * the suite's tests and closed after them, used by name in its hooks and tests.
 */
export function useOperatorEnv(
  prefix: string,
  { emulator = {}, operator = {}, timeoutMs }: SuiteEnvOptions = {},
): OperatorEnv {
  return suiteValue(
    `the operator environment '${prefix}'`,
    async () => {
      const env = await startOperatorEnv(prefix, emulator);
      try {
        if (operator) await env.startOperator(operator);
      } catch (error) {
        await env.close();
        throw error;
      }
      return env;
    },
    (env) => env.close(),
    timeoutMs,
  );
}

/** A Secret `name` in `env`'s namespace holding `owner`'s management key: two namespaces, one key's budget. */
export async function putSameKey(env: OperatorEnv, name: string, owner: OperatorEnv): Promise<void> {
  await env.putSecret(name, credentialsData(owner.emulator));
}

/**
 * `sluice export` of `env`'s namespace with its credentials Secret, as the README shows it; `flags` add to
 * that (kinds, quota, includeManaged). Returns the exit code, the manifests written and what it said.
 */
export async function exportFrom(
  env: OperatorEnv,
  flags: Record<string, unknown> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  const stderr: string[] = [];
  const code = await runExport(
    ExportConfig.parse({
      kubeconfig: env.kubeconfigPath,
      credentialsSecret: `${env.namespace}/${CREDENTIALS_SECRET}`,
      namespace: env.namespace,
      ...flags,
    }),
    { stdout: (text) => (stdout += text), stderr: (line) => stderr.push(line) },
  );
  return { code, stdout, stderr: stderr.join('\n') };
}

/**
 * Starts `env`'s operator with its own credentials Secret in a namespace of its own (as `sluice-system` holds
 * it in an install), so deleting `env`'s namespace leaves the operator its key. The namespace goes on `close`.
 */
export async function startOperatorOutside(
  env: OperatorEnv,
  flags: Partial<OperatorFlags> = {},
): Promise<{ close(): Promise<void> }> {
  const home = await createTestNamespace('operator-home');
  const own = await env.core.readNamespacedSecret({ name: CREDENTIALS_SECRET, namespace: env.namespace });
  await env.core.createNamespacedSecret({
    namespace: home.name,
    body: { metadata: { name: CREDENTIALS_SECRET }, data: own.data ?? {} },
  });
  await env.startOperator({ credentialsSecret: `${home.name}/${CREDENTIALS_SECRET}`, ...flags });
  return { close: () => discardNamespace(home) };
}

/**
 * Deletes a namespace whose operator has stopped, its sluice finalizers taken off first (with `sluice
 * uninstall`'s code): left on, nothing would ever run them, and the namespace would stay Terminating for the
 * rest of the run while the namespace controller looks at every resource type in it again every few seconds.
 */
async function discardNamespace(ns: TestNamespace): Promise<void> {
  await releaseFinalizers({ kubeConfig: ns.kc, kinds: KINDS, namespaces: [ns.name], log: () => undefined });
  await ns.delete();
}

/**
 * Waits until `env`'s namespace is gone (deleted by the namespace controller); a timeout says what still
 * holds it, as `holding` describes it.
 */
export async function untilNamespaceGone(
  env: OperatorEnv,
  holding: () => Promise<string>,
  timeoutMs = 90_000,
): Promise<void> {
  await untilValue(
    `namespace ${env.namespace} gone`,
    () =>
      env.core.readNamespace({ name: env.namespace }).then(
        async (ns) => `${ns.status?.phase}, held by ${await holding()}`,
        (error: { code?: number }) => (error.code === 404 ? 'gone' : `error ${error.code}`),
      ),
    (state) => state === 'gone',
    timeoutMs,
    500,
  );
}

/**
 * `kubectl` against `env`'s cluster and namespace, as a procedure in the docs runs it; its stdout. Not
 * execFileSync: the operator runs in this process, and a blocking `--wait` would wait for it forever.
 */
export function kubectlIn(env: OperatorEnv): (...args: string[]) => Promise<string> {
  return async (...args) =>
    (
      await promisify(execFile)(
        kubectlBin(),
        ['--kubeconfig', env.kubeconfigPath, '-n', env.namespace, ...args],
        { encoding: 'utf8', timeout: 120_000 },
      )
    ).stdout;
}

const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/**
 * The cluster is lost: the operator stops, and `objects` go without their finalizers running (nothing
 * reaches the cloud), with their status, uids and intents, and so do `secrets`. What remains is the cloud.
 */
export async function loseObjects(
  env: OperatorEnv,
  objects: readonly { kind: string; name: string }[],
  secrets: readonly string[],
): Promise<void> {
  await env.stopOperator();
  for (const { kind, name } of [...objects].reverse()) {
    const ref = { apiVersion: 'sluice.dev/v1alpha1', kind, metadata: { name, namespace: env.namespace } };
    if ((await env.of(kind).get(name)) === undefined) continue;
    await env.objects.patch(
      { ...ref, metadata: { ...ref.metadata, finalizers: null } } as never,
      undefined,
      undefined,
      'test',
      undefined,
      PatchStrategy.MergePatch,
    );
    await env.objects.delete(ref).catch(() => undefined);
    await env.of(kind).waitFor(name, 'gone', (o) => o === undefined);
  }
  for (const name of secrets) {
    // A credentials Secret's finalizer goes too: a lost cluster keeps nothing.
    const patch = { metadata: { finalizers: null } };
    await env.core
      .patchNamespacedSecret({ name, namespace: env.namespace, body: patch }, MERGE_PATCH)
      .catch(() => undefined);
    await env.core.deleteNamespacedSecret({ name, namespace: env.namespace }).catch(() => undefined);
    await until(`Secret ${name} gone`, async () => (await env.secret(name)) === undefined);
  }
}
