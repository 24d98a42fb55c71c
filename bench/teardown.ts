// `npm run bench:teardown [-- --services 20 --transition-ms 15000]`: N services (deletionPolicy Delete) and N
// kafka pipes (each on its own service) made Ready, then all deleted at once, the emulator at the cloud's real
// rate limit and state steps, the operator at its default quota. Prints the time until every object is gone
// against the least the deletes can take, the cloud calls per object by route, and 429s.
// Minutes by nature (the quota); `--services 2 --transition-ms 1000` is a smoke run.
import { callsByRoute } from './cloud-log.ts';
import {
  applyObjectsAndWait,
  benchObjects,
  clearCloudCalls,
  cloudCalls,
  figure,
  isMain,
  main,
  objectPath,
  pool,
  sleep,
  type Benchmark,
  type Cluster,
} from './harness.ts';
import { REAL_CLOUD_FLAGS, startRealCloud } from './real-cloud.ts';

export const teardown: Benchmark = {
  name: 'teardown',
  flags: REAL_CLOUD_FLAGS,
  async run(cluster, args) {
    const cloud = await startRealCloud(cluster, 'teardown', args);
    const { stack, services, stepMs, requests, windowSeconds, label: name } = cloud;
    const objects = benchObjects(services * 2, 'pairs').map((object) =>
      object.kind === 'DatabaseService'
        ? { ...object, spec: { ...object.spec, deletionPolicy: 'Delete' } }
        : object,
    );
    let seconds: number;
    let calls: Awaited<ReturnType<typeof cloudCalls>>;
    try {
      await applyObjectsAndWait(cluster, stack, objects, args['timeout-s']!);
      await clearCloudCalls(stack);
      const startedAt = performance.now();
      await pool(objects, 16, ({ kind, name }) =>
        cluster.kube('DELETE', objectPath(kind, stack.namespace, name)).then(() => undefined),
      );
      const kinds = [...new Set(objects.map((object) => object.kind))];
      await untilNoneLeft(cluster, stack.namespace, kinds, Number(args['timeout-s']) * 1000);
      seconds = (performance.now() - startedAt) / 1000;
      calls = await cloudCalls(stack);
    } finally {
      await stack.stop();
    }
    const count = objects.length;
    // Every service is stopped and deleted, every pipe deleted, at the quota's rate; then the last service's
    // stop and delete steps (stopping, deleting) still take their time.
    const writes = services * 3;
    const boundSeconds = (writes * windowSeconds) / requests + (2 * stepMs) / 1000;
    return [
      figure(name, 'time until every object is gone', seconds, { unit: 's' }),
      figure(name, `lower bound (${writes} writes at the quota, then two state steps)`, boundSeconds, {
        unit: 's',
      }),
      figure(name, 'time ÷ lower bound', seconds / boundSeconds),
      figure(name, 'cloud calls per object (not 429)', calls.answered / count),
      figure(name, 'cloud reads per object', calls.reads / count),
      ...[...callsByRoute(calls.calls)].map(([route, n]) =>
        figure(name, `cloud calls per object: ${route}`, n / count),
      ),
      figure(name, '429s earned', calls.tooMany, { max: 0 }),
    ];
  },
};

/** Polls the namespace's objects of `kinds` until none is left (their finalizers released). */
async function untilNoneLeft(
  cluster: Cluster,
  namespace: string,
  kinds: readonly string[],
  timeoutMs: number,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const left = await Promise.all(
      kinds.map(async (kind) => {
        const list = await cluster.kube<{ items: unknown[] }>('GET', objectPath(kind, namespace));
        return list.items.length;
      }),
    );
    if (left.every((n) => n === 0)) return;
    if (performance.now() > deadline) throw new Error(`${left.join(' + ')} objects left after the timeout`);
    await sleep(250);
  }
}

if (isMain(import.meta.url)) await main(teardown);
