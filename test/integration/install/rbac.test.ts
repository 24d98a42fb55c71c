// The operator with only the chart's RBAC: the chart's ServiceAccount, Roles and bindings are installed for
// real, a token is minted for the ServiceAccount with the TokenRequest API, and `sluice run` starts with the
// Deployment's own arguments and a kubeconfig holding nothing but that token. Then every rule is taken away
// in turn to show that the lifecycle needs it.
//
// This file starts its own control plane: it enables the OwnerReferencesPermissionEnforcement admission
// plugin (on in OpenShift and many hardened clusters), under which owning a connection Secret with
// blockOwnerDeletion needs `update` on <kind>/finalizers.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION } from '../../../src/kinds/shared/common.ts';
import { startEmulator, type Emulator } from '../../../src/emulator/server.ts';
import { startControlPlane, type ControlPlane } from '../../../tools/cluster/control-plane.ts';
import {
  chartCredentials,
  find,
  helmTemplate,
  kubectlApply,
  operatorArgs,
  parseManifests,
  serviceAccountKubeconfig,
  spawnSluiceRun,
  type Manifest,
  type RunningSluice,
} from '../../../tools/cluster/install.ts';
import { clusterSkipReason } from '../../harness/test-cluster.ts';
import { kafkaPipe } from '../../../tools/fixtures/pipe.ts';

const RELEASE_NS = 'sluice-system';
const APPS_NS = 'apps';
const RELEASE = 'sluice';
/** Bounds a step that neither happens nor is refused; a step that works takes a few seconds. */
const STEP_TIMEOUT_MS = 45_000;

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}
type Step = 'ok' | 'ready' | 'events' | 'pipe-ready' | 'pipe-delete' | 'delete';

/** Installs everything the chart renders except the Deployment (there is no kubelet to run it). */
function installChart(kubeconfig: string, objects: Manifest[]): void {
  kubectlApply(
    kubeconfig,
    objects.filter((o) => o.kind !== 'Deployment'),
  );
}

describe.skipIf(clusterSkipReason())('the chart RBAC is all the operator needs', () => {
  let cp: ControlPlane;
  let emulator: Emulator;
  let admin: KubeConfig;
  let dir: string;
  let objects: Manifest[];
  let counter = 0;
  const logFiles: string[] = [];

  beforeAll(async () => {
    cp = await startControlPlane({
      apiserverArgs: ['--enable-admission-plugins=OwnerReferencesPermissionEnforcement'],
    });
    admin = new KubeConfig();
    admin.loadFromString(cp.kubeconfigYaml);
    dir = mkdtempSync(join(tmpdir(), 'sluice-rbac-'));
    emulator = await startEmulator({ port: 0, transitionMs: 0, rateLimit: 'off', logger: false });
    const core = admin.makeApiClient(CoreV1Api);
    for (const name of [RELEASE_NS, APPS_NS]) await core.createNamespace({ body: { metadata: { name } } });
    objects = parseManifests(
      helmTemplate({
        release: RELEASE,
        namespace: RELEASE_NS,
        values: {
          // Two replicas: leader election on, so the Lease rule is exercised too.
          replicas: 2,
          credentials: chartCredentials(emulator),
          operator: { pollInterval: '200ms', managementQuota: 'off' },
        },
      }),
    );
    installChart(cp.kubeconfig, objects);
  }, 90_000);

  afterAll(async () => {
    await emulator?.stop();
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** `sluice run` with the chart's arguments, as the ServiceAccount (probe and metrics ports moved to free ones). */
  async function startOperator(args: string[], serviceAccount: string): Promise<RunningSluice> {
    const kubeconfig = join(dir, `kubeconfig-${serviceAccount}`);
    writeFileSync(kubeconfig, await serviceAccountKubeconfig(admin, RELEASE_NS, serviceAccount), {
      mode: 0o600,
    });
    const logFile = join(dir, `operator-${++counter}.log`);
    logFiles.push(logFile);
    return spawnSluiceRun({ args, kubeconfig, logFile });
  }

  /**
   * Waits until `test` holds (true) or `denied` says the step can no longer happen (false): a step is judged
   * on state, and the timeout only bounds a step that neither happens nor is denied.
   */
  async function until(
    test: () => Promise<boolean>,
    denied: () => boolean,
    timeoutMs = STEP_TIMEOUT_MS,
  ): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await test()) return true;
      if (denied()) return false;
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  }

  /**
   * True once the operator has logged the apiserver refusing it something (`… is forbidden: …`). With one rule
   * taken away and every other one granted, that refusal is the missing rule, and the step that needs it
   * cannot happen (the message does not always name the resource: a refused blockOwnerDeletion names none).
   */
  function refusedIn(logFile: string): () => boolean {
    return () => readFileSync(logFile, 'utf8').includes('is forbidden');
  }

  /**
   * The DatabaseService and Pipe lifecycles, created and deleted by an admin, reconciled by the operator: the
   * service Ready with its connection Secret and Events recorded, a Pipe into it Ready, then the Pipe and the
   * service (deletionPolicy Delete) gone from Kubernetes and from the cloud.
   * Returns the first step that did not happen.
   */
  async function lifecycle(namespace: string, refused: (step: Step) => boolean = () => false): Promise<Step> {
    const denied = (step: Step) => () => refused(step);
    const objectsApi = KubernetesObjectApi.makeApiClient(admin);
    const core = admin.makeApiClient(CoreV1Api);
    const name = `rbac-${++counter}`;
    const service = { apiVersion: API_VERSION, kind: 'DatabaseService', metadata: { name, namespace } };
    const pipe = { apiVersion: API_VERSION, kind: 'Pipe', metadata: { name: `${name}-orders`, namespace } };
    const read = async (ref: typeof service) => {
      try {
        return (await objectsApi.read(ref as never)) as unknown as {
          status?: { id?: string; conditions?: { type: string; status: string }[] };
        };
      } catch (error) {
        if ((error as { code?: number }).code === 404) return undefined;
        throw error;
      }
    };
    const isReady = async (ref: typeof service) =>
      !!(await read(ref))?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    const secretExists = async () => {
      try {
        await core.readNamespacedSecret({ name: `${name}-connection`, namespace });
        return true;
      } catch {
        return false;
      }
    };
    const cloudDeletes = async (route: string) => {
      const { calls } = await fetch(`${emulator.url}/_emulator/calls`).then(
        (r) => r.json() as Promise<{ calls: { method: string; route: string }[] }>,
      );
      return calls.filter((c) => c.method === 'DELETE' && c.route.endsWith(route)).length;
    };

    await objectsApi.create({
      ...service,
      spec: { name: `rbac test ${counter}`, provider: 'aws', region: 'us-east-1', deletionPolicy: 'Delete' },
    } as never);
    if (!(await until(async () => (await isReady(service)) && (await secretExists()), denied('ready'))))
      return 'ready';
    const created = async () => {
      const events = await core.listNamespacedEvent({
        namespace,
        fieldSelector: `involvedObject.name=${name}`,
      });
      return events.items.some((e) => e.reason === 'Created');
    };
    if (!(await until(created, denied('events')))) return 'events';

    // A Pipe into the service, with its Kafka credentials in a Secret of the namespace.
    await core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: `${name}-kafka` },
        stringData: { username: 'ingest', password: 'kafka-pass' },
      },
    });
    await objectsApi.create({
      ...pipe,
      spec: kafkaPipe(`orders ${counter}`, { service: name, credentialsSecret: `${name}-kafka` }),
    } as never);
    if (!(await until(() => isReady(pipe), denied('pipe-ready')))) return 'pipe-ready';
    const pipeDeletes = await cloudDeletes(':pipeId');
    await objectsApi.delete(pipe as never);
    if (!(await until(async () => (await read(pipe)) === undefined, denied('pipe-delete'))))
      return 'pipe-delete';
    if ((await cloudDeletes(':pipeId')) !== pipeDeletes + 1) return 'pipe-delete';

    const serviceDeletes = await cloudDeletes(':serviceId');
    await objectsApi.delete(service as never);
    if (!(await until(async () => (await read(service)) === undefined, denied('delete')))) return 'delete';
    return (await cloudDeletes(':serviceId')) === serviceDeletes + 1 ? 'ok' : 'delete';
  }

  it('runs the DatabaseService and Pipe lifecycles with the ServiceAccount token and the Deployment arguments only', async () => {
    const args = operatorArgs(objects);
    expect(args).toEqual(
      expect.arrayContaining([
        'run',
        '--leader-elect',
        `--credentials-secret=${RELEASE_NS}/${RELEASE}-cloud`,
      ]),
    );
    const operator = await startOperator(args, RELEASE);
    try {
      expect(await lifecycle(APPS_NS)).toBe('ok');
      const lease = await KubernetesObjectApi.makeApiClient(admin).read({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: RELEASE, namespace: RELEASE_NS },
      });
      expect(lease).toBeTruthy();
    } finally {
      await operator.stop();
    }
  }, 120_000);

  /** Every rule of the chart's roles, with the step of the lifecycle that breaks without it. */
  const cases: { role: 'ClusterRole' | 'Role'; index: number; rule: string; breaks: Step }[] = [];
  /** The operator's own roles: its watched kinds (cluster-wide) and its Lease. */
  const roleName = { ClusterRole: RELEASE, Role: `${RELEASE}-leader-election` } as const;
  const breaksAt = (rule: Rule): Step => (rule.resources.includes('events') ? 'events' : 'ready');
  {
    const rendered = parseManifests(
      helmTemplate({ release: RELEASE, namespace: RELEASE_NS, values: { replicas: 2 } }),
    );
    for (const role of ['ClusterRole', 'Role'] as const) {
      const rules = (find(rendered, role, roleName[role])?.rules ?? []) as Rule[];
      rules.forEach((rule, index) =>
        cases.push({
          role,
          index,
          rule: `${rule.resources.join(',')} (${rule.verbs.join(', ')})`,
          breaks: breaksAt(rule),
        }),
      );
    }
  }

  it.each(cases)(
    'without the $role rule on $rule the lifecycle fails at "$breaks"',
    async ({ role, index, breaks }) => {
      const reduced = structuredClone(objects);
      const target = find(reduced, role, roleName[role])!;
      (target.rules as Rule[]).splice(index, 1);
      installChart(cp.kubeconfig, reduced);
      const operator = await startOperator(operatorArgs(objects), RELEASE);
      try {
        // Every step before `breaks` must happen; `breaks` itself ends when it happens (a failure of this
        // test) or when the operator reports the apiserver refusing it the removed rule.
        const refused = refusedIn(operator.logFile);
        expect(await lifecycle(APPS_NS, (step) => step === breaks && refused())).toBe(breaks);
      } finally {
        await operator.stop();
        installChart(cp.kubeconfig, objects);
      }
    },
    120_000,
  );

  it('without clusterName, reading the kube-system namespace is the one cluster-wide right it adds; without it the operator stops at start, naming --cluster-name', async () => {
    const identity = find(objects, 'ClusterRole', `${RELEASE}-cluster-identity`)!;
    expect(identity.rules).toEqual([
      { apiGroups: [''], resources: ['namespaces'], resourceNames: ['kube-system'], verbs: ['get'] },
    ]);
    const reduced = structuredClone(objects);
    find(reduced, 'ClusterRole', `${RELEASE}-cluster-identity`)!.rules = [];
    installChart(cp.kubeconfig, reduced);
    const operator = await startOperator(operatorArgs(objects), RELEASE);
    try {
      const exited = await until(
        () => Promise.resolve(operator.child.exitCode !== null),
        () => false,
      );
      expect(exited).toBe(true);
      expect(readFileSync(operator.logFile, 'utf8')).toContain('set --cluster-name');
    } finally {
      await operator.stop();
      installChart(cp.kubeconfig, objects);
    }
  }, 120_000);

  it('runs the lifecycle in namespaced mode (watchNamespace) with Roles only', async () => {
    const { organizationId, keyId, keySecret } = emulator.credentials;
    const scoped = parseManifests(
      helmTemplate({
        release: 'scoped',
        namespace: RELEASE_NS,
        values: {
          watchNamespace: 'team',
          // A named cluster needs no cluster-wide read of its identity.
          clusterName: 'team-cluster',
          credentials: { organizationId, keyId, keySecret, managementUrl: emulator.url },
          operator: { pollInterval: '200ms', managementQuota: 'off' },
          crds: { enabled: false },
        },
      }),
    );
    expect(scoped.filter((o) => o.kind.startsWith('Cluster'))).toEqual([]);
    await admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'team' } } });
    installChart(cp.kubeconfig, scoped);
    const operator = await startOperator(operatorArgs(scoped), 'scoped-sluice');
    try {
      expect(await lifecycle('team')).toBe('ok');
    } finally {
      await operator.stop();
    }
    // Not a word of the credentials in what the operator printed.
    for (const file of logFiles) expect(readFileSync(file, 'utf8')).not.toContain(keySecret);
  }, 120_000);
});
