// One chaos scenario: a namespace, an emulator and a `sluice run` child; `creates` objects of mixed kinds
// applied in a seeded random order while the operator is killed, the cloud fails or the apiserver restarts;
// then everything is compared: cloud against manifests, call log against Retry-After, output against secrets.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import { mulberry32 } from '../../src/emulator/faults.ts';
import { startEmulator } from '../../src/emulator/server.ts';
import { ownership, retryAfterViolations, secretScan, type ObjectState } from './checks.ts';
import { CHAOS_KINDS, chaosKind, generateManifests, type CloudResource, type Manifest } from './kinds.ts';
import { ChaosOperator } from './operator.ts';
import { startCuttableProxy } from './proxy.ts';

export interface ChaosScenario {
  name: string;
  kubeconfig: string;
  creates: number;
  /** kill -9s of the operator at random moments while the creates are applied. */
  kills?: number;
  /** Share of cloud calls (0..1) answered with a fault, spread evenly over FAULT_KINDS. */
  faultRate?: number;
  /** Times the operator's connections to the apiserver (its watches with them) are cut, at random moments. */
  cuts?: number;
  /** Restarts the apiserver halfway through the creates; renames and deletions follow at once. */
  restartApiserver?: () => Promise<void>;
  seed?: number;
  /** The creates are spread over this long (the kills too). */
  spreadMs?: number;
  timeoutMs?: number;
  log?: (message: string) => void;
}

export interface ChaosResult {
  scenario: string;
  objects: number;
  kills: number;
  /** Exits of the operator nobody asked for (a lost leader lease), each followed by a start. */
  exits: number;
  faultsInjected: number;
  restarts: number;
  /** Cuts of the operator's apiserver connections, and how many connections they cut. */
  cuts: number;
  connectionsCut: number;
  /** Objects renamed and deleted right after the apiserver restart. */
  renamed: number;
  deleted: number;
  duplicates: string[];
  orphans: string[];
  mismatched: string[];
  /** Objects Ready with the spec's generation observed, of `objects`. */
  converged: number;
  /** Longest time from an object's last change (create or edit) to Ready, in ms. */
  maxConvergeMs: number;
  /** 429s the cloud answered: each one's Retry-After is checked against the later calls of its key. */
  rateLimited: number;
  retryAfterViolations: string[];
  secretFindings: string[];
}

const RETRY_AFTER_S = 2;
/** Cloud faults a run injects, in equal shares: every failure a client of a remote API must survive. */
export const FAULT_KINDS: Record<string, Record<string, unknown>> = {
  '500': { status: 500 },
  '429': { status: 429, retryAfter: RETRY_AFTER_S },
  'connection reset': { drop: true },
  timeout: { hang: true },
  'response lost': { phase: 'response', drop: true },
};

const GROUP = 'sluice.dev/v1alpha1';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Listed {
  metadata: { name: string; generation?: number; deletionTimestamp?: string };
  spec: Record<string, unknown>;
  status?: { id?: string; observedGeneration?: number; conditions?: { type: string; status: string }[] };
}

export async function runChaos(scenario: ChaosScenario): Promise<ChaosResult> {
  const log = scenario.log ?? (() => {});
  const random = mulberry32(scenario.seed ?? 1);
  const kc = new KubeConfig();
  kc.loadFromFile(scenario.kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const namespace = `chaos-${randomBytes(3).toString('hex')}`;
  const emulator = await startEmulator({
    port: 0,
    transitionMs: 20,
    rateLimit: 'off',
    logger: false,
    seed: scenario.seed ?? 1,
  });
  const control = (path: string, init?: RequestInit) => fetch(`${emulator.url}/_emulator/${path}`, init);
  // The operator reaches the apiserver through a proxy that can cut its connections.
  const server = new URL(kc.getCurrentCluster()!.server);
  const proxy = await startCuttableProxy(Number(server.port));
  const dir = mkdtempSync(join(tmpdir(), 'sluice-chaos-'));
  const operatorKubeconfig = join(dir, 'kubeconfig');
  const proxied = new KubeConfig();
  proxied.loadFromOptions({
    clusters: kc.clusters.map((c) => ({ ...c, server: `https://127.0.0.1:${proxy.port}` })),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
  writeFileSync(operatorKubeconfig, proxied.exportConfig(), { mode: 0o600 });
  const operator = new ChaosOperator({
    kubeconfig: operatorKubeconfig,
    namespace,
    credentialsSecret: `${namespace}/cloud`,
    // A quota scheduler (generous, so it adds no waits) is what makes a 429's Retry-After hold the whole key.
    // Short windows: a restarted process waits out one window of its predecessor's budget.
    flags: ['--log-level=debug', '--management-quota=10000/1s', '--alerting-quota=10000/1s'],
  });
  try {
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    const { organizationId, keyId, keySecret, alertsToken } = emulator.credentials;
    const secrets: Record<string, Record<string, string>> = {
      cloud: {
        organizationId,
        keyId,
        keySecret,
        alertsToken,
        managementUrl: emulator.url,
        alertsUrl: emulator.url,
      },
      ...Object.assign({}, ...CHAOS_KINDS.map((k) => k.secrets)),
    };
    for (const [name, stringData] of Object.entries(secrets))
      await core.createNamespacedSecret({ namespace, body: { metadata: { name }, stringData } });

    const faultShare = (scenario.faultRate ?? 0) / Object.keys(FAULT_KINDS).length;
    let taken = 0;
    for (const fault of scenario.faultRate ? Object.values(FAULT_KINDS) : []) {
      // Faults are matched in order and a draw that misses falls through, so later ones need a larger rate.
      const rate = faultShare / (1 - taken);
      taken += faultShare;
      await control('faults', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...fault, rate }),
      });
    }

    await operator.start();
    const manifests = generateManifests(scenario.creates);
    const order = manifests.map((m) => ({ m, r: random() })).sort((a, b) => a.r - b.r);
    const changedAt = new Map<string, number>();
    const key = (m: Pick<Manifest, 'kind' | 'name'>) => `${m.kind}/${m.name}`;
    const ref = (m: Pick<Manifest, 'kind' | 'name'>) => ({
      apiVersion: GROUP,
      kind: m.kind,
      metadata: { name: m.name, namespace },
    });
    const withRetry = async (what: string, call: () => Promise<unknown>) => {
      // The apiserver may be restarting: a refused write is tried again, a conflict means it was done.
      for (;;) {
        try {
          return await call();
        } catch (error) {
          const code = (error as { code?: number }).code;
          if (code === 409 || code === 404) return;
          if (code !== undefined && code < 500 && code !== 429) throw new Error(`${what}: ${String(error)}`);
          await sleep(200);
        }
      }
    };
    const spreadMs = scenario.spreadMs ?? 20_000;
    const removed = new Set<string>();
    const renamed = new Map<string, Record<string, unknown>>();
    const readyAt = new Map<string, number>();
    let restarts = 0;

    const applying = (async () => {
      for (const [index, { m }] of order.entries()) {
        if (scenario.restartApiserver && index === Math.floor(order.length / 2)) {
          log(`${scenario.name}: restarting kube-apiserver`);
          const restartStarted = Date.now();
          await scenario.restartApiserver();
          log(
            `${scenario.name}: kube-apiserver back after ${((Date.now() - restartStarted) / 1000).toFixed(1)} s`,
          );
          restarts += 1;
          // Right after the restart, while the operator's watches are being re-established: edits and deletions
          // it must not miss.
          const done = order.slice(0, index).map((o) => o.m);
          const share = (list: Manifest[]) => list.slice(0, Math.ceil(0.15 * list.length));
          for (const object of share(done.filter((o) => chaosKind(o.kind).rename))) {
            const patch = chaosKind(object.kind).rename!(object.spec);
            renamed.set(key(object), { ...object.spec, ...patch });
            changedAt.set(key(object), Date.now());
            readyAt.delete(key(object));
            await withRetry(`rename ${key(object)}`, () =>
              objects.patch(
                { ...ref(object), spec: patch } as never,
                undefined,
                undefined,
                'chaos',
                undefined,
                PatchStrategy.MergePatch,
              ),
            );
          }
          // Only objects nothing references: deleting a referenced one is a different test (the references').
          const unreferenced = done.filter(
            (o) =>
              !renamed.has(key(o)) && !manifests.some((r) => chaosKind(r.kind).references?.includes(o.kind)),
          );
          for (const object of share(unreferenced)) {
            removed.add(key(object));
            await withRetry(`delete ${key(object)}`, () => objects.delete(ref(object)));
          }
        }
        changedAt.set(key(m), Date.now());
        await withRetry(`create ${key(m)}`, () => objects.create({ ...ref(m), spec: m.spec } as never));
        await sleep(random() * ((2 * spreadMs) / order.length));
      }
    })();
    const killing = (async () => {
      const kills = scenario.kills ?? 0;
      for (let i = 0; i < kills; i++) {
        await sleep(200 + random() * ((2 * spreadMs) / Math.max(1, kills) - 200));
        await operator.killAndRestart();
      }
    })();
    let listed: (Listed & { kind: string })[] = [];
    const wantSpec = (k: string, spec: Record<string, unknown>) => renamed.get(k) ?? spec;
    const poll = async () => {
      const items: (Listed & { kind: string })[] = [];
      for (const kind of CHAOS_KINDS) {
        const list = await withRetry(`list ${kind.kind}`, () => objects.list(GROUP, kind.kind, namespace));
        items.push(
          ...((list as { items: Listed[] }).items ?? []).map((item) => ({ ...item, kind: kind.kind })),
        );
      }
      listed = items;
      for (const item of items) {
        const k = key({ kind: item.kind, name: item.metadata.name });
        const cloudName = chaosKind(item.kind).cloudName;
        const ready =
          item.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true &&
          item.status?.observedGeneration === item.metadata.generation &&
          cloudName(item.spec) === cloudName(wantSpec(k, item.spec));
        if (ready && !readyAt.has(k)) readyAt.set(k, Date.now());
      }
    };
    const converged = () =>
      manifests.every((m) => removed.has(key(m)) || readyAt.has(key(m))) &&
      listed.every((item) => !removed.has(key({ kind: item.kind, name: item.metadata.name })));
    let appliedAt: number | undefined = undefined;
    const polling = (async () => {
      // The time to converge counts from the last change: an apiserver restart on a loaded machine can take
      // most of a minute, during which nothing can converge.
      for (;;) {
        await poll();
        if (appliedAt !== undefined && converged()) return;
        if (appliedAt !== undefined && Date.now() > appliedAt + (scenario.timeoutMs ?? 120_000)) return;
        await sleep(250);
      }
    })();
    let cuts = 0;
    let connectionsCut = 0;
    const cutting = (async () => {
      for (let i = 0; i < (scenario.cuts ?? 0); i++) {
        await sleep(random() * ((2 * spreadMs) / (scenario.cuts ?? 1)));
        // A cut while the operator has no connection (being started again after an exit) would cut nothing.
        const waitedFrom = Date.now();
        while (proxy.clientConnections() === 0 && Date.now() - waitedFrom < 30_000) await sleep(100);
        connectionsCut += proxy.cutAll();
        cuts += 1;
      }
    })();
    await Promise.all([applying, killing, cutting]);
    appliedAt = Date.now();
    log(
      `${scenario.name}: ${order.length} applied, ${operator.kills} kills, ${operator.exits} exits restarted; waiting for convergence`,
    );
    await polling;

    const faults = (await (await control('faults')).json()) as { faults: { applied: number }[] };
    await control('faults', { method: 'DELETE' });
    const metrics = await operator.metrics();
    await operator.stop();

    const states: ObjectState[] = listed
      .filter((item) => !item.metadata.deletionTimestamp)
      .map((item) => {
        const manifest = { kind: item.kind, name: item.metadata.name };
        return {
          ...manifest,
          wantName: chaosKind(item.kind).cloudName(renamed.get(key(manifest)) ?? item.spec),
          id: item.status?.id,
          ready: readyAt.has(key(manifest)),
        };
      });
    const cloud = new Map<string, CloudResource[]>(CHAOS_KINDS.map((k) => [k.kind, k.cloud(emulator.store)]));
    const owned = ownership(states, cloud);
    const { calls } = (await (await control('calls')).json()) as {
      calls: Parameters<typeof retryAfterViolations>[0];
    };

    // Everything the run produced, and every secret it handled (the services' passwords included).
    const allSecrets = await core.listNamespacedSecret({ namespace });
    const secretValues = allSecrets.items.flatMap((s) =>
      Object.entries(s.data ?? {})
        .filter(([k]) => /password|secret|token|connectionString|accessKey/i.test(k))
        .map(([, v]) => Buffer.from(v, 'base64').toString('utf8')),
    );
    const events = await core.listNamespacedEvent({ namespace });
    const texts = {
      'operator output': operator.output.join(''),
      statuses: JSON.stringify(listed.map((item) => item.status)),
      Events: JSON.stringify(events.items),
      metrics,
    };
    const live = states.filter((s) => !removed.has(key(s)));
    return {
      scenario: scenario.name,
      objects: manifests.length,
      kills: operator.kills,
      exits: operator.exits,
      faultsInjected: faults.faults.reduce((sum, f) => sum + f.applied, 0),
      restarts,
      cuts,
      connectionsCut,
      renamed: renamed.size,
      deleted: removed.size,
      ...owned,
      // A deleted object counts as converged once it is gone.
      converged:
        live.filter((s) => s.ready).length +
        [...removed].filter((k) => !listed.some((i) => key({ kind: i.kind, name: i.metadata.name }) === k))
          .length,
      maxConvergeMs: Math.max(0, ...[...readyAt].map(([k, at]) => at - (changedAt.get(k) ?? at))),
      rateLimited: calls.filter((c) => c.status === 429).length,
      retryAfterViolations: retryAfterViolations(calls, RETRY_AFTER_S * 1000),
      secretFindings: secretScan(texts, secretValues),
    };
  } finally {
    await operator.stop();
    await emulator.stop();
    await proxy.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
