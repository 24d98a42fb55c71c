// `npm run bench:scale [-- --count 2000 --concurrency 4 --mix pairs]`: a burst of N objects (half
// DatabaseServices, half kafka Pipes each into one of them; `--mix all`: every kind in turn) to all Ready,
// against the floor measured in the same run: a script that makes only the writes a correct operator cannot
// avoid (create the object, add the finalizer, create the connection Secret of a service, patch status once),
// with as many writers as the operator has workers.
import { kindNamed } from '../src/kinds.ts';
import {
  applyAll,
  applyAndWait,
  cloudCalls,
  createNamespace,
  figure,
  isMain,
  main,
  benchObjects,
  type Mix,
  objectPath,
  operatorRequests,
  percentile,
  pool,
  startStack,
  type Benchmark,
  type Cluster,
} from './harness.ts';

const MERGE_PATCH = 'application/merge-patch+json';

/** The floor: per object, the writes no correct operator avoids, started as soon as the object exists. */
async function floor(cluster: Cluster, count: number, writers: number, mix: Mix): Promise<number> {
  const namespace = await createNamespace(cluster, 'floor');
  const objects = benchObjects(count, mix);
  const created: typeof objects = [];
  const sleeping: Array<() => void> = [];
  const wake = () => sleeping.splice(0).forEach((resolve) => resolve());
  let applying = true;
  const started = performance.now();
  const writes = async () => {
    for (;;) {
      const object = created.shift();
      if (!object) {
        if (!applying) return;
        await new Promise<void>((resolve) => sleeping.push(resolve));
        continue;
      }
      const path = objectPath(object.kind, namespace, object.name);
      await cluster.kube('PATCH', path, { metadata: { finalizers: ['sluice.dev/finalizer'] } }, MERGE_PATCH);
      if (kindNamed(object.kind)?.connectionSecret) {
        await cluster.kube('POST', `/api/v1/namespaces/${namespace}/secrets`, {
          metadata: { name: `${object.name}-connection` },
          stringData: { username: 'default', password: 'floor-password', host: 'h', port: '9440' },
        });
      }
      const condition = { type: 'Ready', status: 'True', reason: 'Available', observedGeneration: 1 };
      await cluster.kube(
        'PATCH',
        `${path}/status`,
        {
          status: {
            id: object.name,
            conditions: [{ ...condition, lastTransitionTime: new Date().toISOString() }],
          },
        },
        MERGE_PATCH,
      );
    }
  };
  const writing = Promise.all(Array.from({ length: writers }, writes));
  await pool(objects, 16, async (object) => {
    await applyAll(cluster, namespace, [object]);
    created.push(object);
    wake();
  });
  applying = false;
  wake();
  await writing;
  return performance.now() - started;
}

export const scale: Benchmark = {
  name: 'scale',
  flags: { count: '2000', concurrency: '4', mix: 'pairs', 'timeout-s': '900' },
  async run(cluster, args) {
    const count = Number(args.count);
    const concurrency = Number(args.concurrency);
    const mix = args.mix as Mix;
    const floorMs = await floor(cluster, count, concurrency * 2, mix);

    const stack = await startStack(cluster, 'scale', { flags: { concurrency: String(concurrency) } });
    const before = await operatorRequests(cluster);
    const { appliedAt, readyAt, startedAt, lastReadyAt } = await applyAndWait(
      cluster,
      stack,
      count,
      args['timeout-s']!,
      mix,
    );
    const totalMs = lastReadyAt - startedAt;
    // The benchmark's own requests in between are its creates, which operatorRequests leaves out.
    const requests = await operatorRequests(cluster, before.counts);
    console.log('apiserver requests by the operator per object:');
    for (const [key, n] of Object.entries(requests.byVerb))
      console.log(`  ${key.padEnd(24)} ${(n / count).toFixed(2)} (${n})`);
    const cloud = await cloudCalls(stack);
    if (process.env.BENCH_DEBUG) {
      const since = (at: number) => ((at - startedAt) / 1000).toFixed(1);
      const ready = [...readyAt.values()].sort((a, b) => a - b);
      console.log(
        'applied by',
        since(Math.max(...appliedAt.values())),
        's; Ready at deciles:',
        [0.1, 0.5, 0.9, 0.95, 0.99, 1].map((q) => since(percentile(ready, q))).join(' '),
      );
      const late = [...readyAt].sort((a, b) => b[1] - a[1]).slice(0, 10);
      console.log(
        'last Ready:',
        late.map(([id, at]) => `${id} applied ${since(appliedAt.get(id)!)} ready ${since(at)}`).join('\n  '),
      );
    }
    const latencies = [...readyAt].map(([id, at]) => at - appliedAt.get(id)!);
    await stack.stop();

    // The issue sets the targets for its mix (half services, half pipes); other mixes are reported beside it.
    const issueMix = mix === 'pairs';
    const target = (max: number) => (issueMix ? { max } : {});
    const name = `scale (N=${count}${issueMix ? '' : `, ${mix} kinds`})`;
    return [
      figure(name, 'time to all Ready, operator', totalMs / 1000, { unit: 's' }),
      figure(name, 'time to all Ready, floor script', floorMs / 1000, { unit: 's' }),
      figure(name, 'operator time ÷ floor', totalMs / floorMs, target(1.3)),
      figure(name, 'apiserver requests per object', requests.total / count, target(5)),
      figure(name, 'p50 apply→Ready ÷ total time', percentile(latencies, 0.5) / totalMs, target(0.5)),
      figure(name, 'p50 apply→Ready', percentile(latencies, 0.5) / 1000, { unit: 's' }),
      figure(name, 'cloud calls per object', cloud.answered / count),
    ];
  },
};

if (isMain(import.meta.url)) await main(scale);
