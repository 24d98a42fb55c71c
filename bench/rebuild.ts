// `npm run bench:rebuild [-- --services 100 --pipes-per-service 2]`: a cluster rebuilt from Git. A first
// cluster (`--cluster-name bench`, quota lifted: it is not what is measured) provisions N services with M
// kafka pipes each; then the cluster is lost (every object and connection Secret gone, with its status, uids
// and create intents) and the same manifests are applied to a new operator of the same name, the emulator at
// the cloud's real rate limit and the operator at its default quota. Prints the time until every object is
// Ready again against the lists a rebuild needs (the services list and each service's pipes list, at the
// quota's rate), the cloud calls by route, creates, writes and 429s. Targets: ≤ 1.2, no create, no write,
// no 429. `--services 2` is a smoke run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../src/emulator/server.ts';
import { callsByRoute } from './cloud-log.ts';
import {
  applyObjectsAndWait,
  clearCloudCalls,
  cloudCalls,
  figure,
  isMain,
  main,
  objectPath,
  pool,
  sleep,
  startOperatorProcess,
  startStack,
  WATCH_CATCH_UP_MS,
  type Benchmark,
  type BenchObject,
  type Cluster,
  type Stack,
} from './harness.ts';
import { servicesWithPipes } from './mixes.ts';

const CLUSTER_NAME = 'bench';

export const rebuild: Benchmark = {
  name: 'rebuild',
  flags: {
    services: '100',
    'pipes-per-service': '2',
    requests: '10',
    'window-s': '10',
    'timeout-s': '900',
  },
  async run(cluster, args) {
    const services = Number(args.services);
    const perService = Number(args['pipes-per-service']);
    const requests = Number(args.requests);
    const windowSeconds = Number(args['window-s']);
    const name = `rebuild (${services} services + ${services * perService} pipes, ${requests}/${windowSeconds} s)`;
    const dir = mkdtempSync(join(tmpdir(), 'sluice-rebuild-'));
    const stateFile = join(dir, 'cloud.json');
    const objects = servicesWithPipes(services, perService);

    // The first cluster makes everything; the cloud is kept in the state file.
    const first = await startStack(cluster, 'rebuild', { stateFile, flags: { clusterName: CLUSTER_NAME } });
    const { namespace } = first;
    const port = Number(new URL(first.emulator.url).port);
    try {
      await applyObjectsAndWait(cluster, first, objects, args['timeout-s']!);
    } finally {
      await first.stop();
    }
    await loseCluster(cluster, namespace, objects);

    // The same cloud, now at its real rate limit; a new operator of the same name; the same manifests.
    const emulator = await startEmulator({
      port,
      stateFile,
      transitionMs: 0,
      logger: false,
      rateLimit: { requests, windowSeconds },
    });
    const operator = await startOperatorProcess(cluster, namespace, {
      clusterName: CLUSTER_NAME,
      managementQuota: `${requests}/${windowSeconds}s`,
    });
    await sleep(WATCH_CATCH_UP_MS);
    const stack: Stack = {
      emulator,
      namespace,
      operator,
      stop: async () => {
        await operator.stop();
        await emulator.stop();
      },
    };
    let seconds: number;
    let calls: Awaited<ReturnType<typeof cloudCalls>>;
    try {
      await clearCloudCalls(stack);
      const { startedAt, lastReadyAt } = await applyObjectsAndWait(
        cluster,
        stack,
        objects,
        args['timeout-s']!,
      );
      seconds = (lastReadyAt - startedAt) / 1000;
      calls = await cloudCalls(stack);
    } finally {
      await stack.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    const answered = calls.calls.filter((call) => call.status !== 429);
    const creates = answered.filter((call) => call.method === 'POST').length;
    // One list of the services, one of each service's pipes: what finding every owned object must read.
    const lists = 1 + services;
    const boundSeconds = (lists * windowSeconds) / requests;
    return [
      figure(name, 'time to all Ready', seconds, { unit: 's' }),
      figure(
        name,
        `list calls needed ÷ rate (${lists} lists at ${requests}/${windowSeconds} s)`,
        boundSeconds,
        {
          unit: 's',
        },
      ),
      figure(name, 'time ÷ (list calls needed ÷ rate)', seconds / boundSeconds, { max: 1.2 }),
      figure(name, 'cloud calls (not 429)', calls.answered),
      ...[...callsByRoute(calls.calls)].map(([route, n]) => figure(name, `cloud calls: ${route}`, n)),
      figure(name, 'creates', creates, { max: 0 }),
      figure(name, 'writes', calls.writes, { max: 0 }),
      figure(name, '429s earned', calls.tooMany, { max: 0 }),
    ];
  },
};

/**
 * The cluster is lost: every object goes without its finalizer running (nothing reaches the cloud), with
 * its status, uid and create intent, and so does every connection Secret. What remains is the cloud.
 */
async function loseCluster(cluster: Cluster, namespace: string, objects: readonly BenchObject[]) {
  await pool(objects, 16, async ({ kind, name }) => {
    const path = objectPath(kind, namespace, name);
    await cluster.kube('PATCH', path, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    await cluster.kube('DELETE', path);
  });
  // Connection Secrets are owned by their DatabaseService (the control plane runs no garbage collector).
  const secrets = await cluster.kube<{
    items: { metadata: { name: string; ownerReferences?: { kind: string }[] } }[];
  }>('GET', `/api/v1/namespaces/${namespace}/secrets`);
  const owned = secrets.items.filter((secret) =>
    secret.metadata.ownerReferences?.some((owner) => owner.kind === 'DatabaseService'),
  );
  await pool(owned, 16, ({ metadata }) =>
    cluster.kube('DELETE', `/api/v1/namespaces/${namespace}/secrets/${metadata.name}`).then(() => undefined),
  );
  for (const kind of new Set(objects.map((object) => object.kind))) {
    for (;;) {
      const list = await cluster.kube<{ items: unknown[] }>('GET', objectPath(kind, namespace));
      if (list.items.length === 0) break;
      await sleep(100);
    }
  }
}

if (isMain(import.meta.url)) await main(rebuild);
