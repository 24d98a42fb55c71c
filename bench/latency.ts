// `npm run bench:latency [-- --objects 1000 --edits 50]`: with N objects cached and Ready, a user edits one
// DatabaseService's spec at a time; measured is the time from sending the edit to the cloud PATCH arriving
// at the emulator (both clocks are this process's).
import {
  applyAndWait,
  clearCloudCalls,
  cloudCalls,
  figure,
  isMain,
  main,
  objectPath,
  percentile,
  sleep,
  startStack,
  type Benchmark,
} from './harness.ts';

const MERGE_PATCH = 'application/merge-patch+json';

export const latency: Benchmark = {
  name: 'latency',
  flags: { objects: '1000', edits: '50', 'timeout-s': '600' },
  async run(cluster, args) {
    const count = Number(args.objects);
    const stack = await startStack(cluster, 'latency');
    const { objects } = await applyAndWait(cluster, stack, count, args['timeout-s']!);

    const services = objects.filter((o) => o.kind === 'DatabaseService');
    const latencies: number[] = [];
    for (let i = 0; i < Number(args.edits); i++) {
      const { name } = services[i % services.length]!;
      const path = objectPath('DatabaseService', stack.namespace, name);
      const { status } = await cluster.kube<{ status: { id: string } }>('GET', path);
      await clearCloudCalls(stack);
      const editedAt = Date.now();
      await cluster.kube('PATCH', path, { spec: { name: `edited ${i}` } }, MERGE_PATCH);
      const patch = async () =>
        (await cloudCalls(stack)).calls.find((c) => c.method === 'PATCH' && c.path.endsWith(status.id));
      let call = await patch();
      const deadline = editedAt + 30_000;
      while (!call && Date.now() < deadline) {
        await sleep(5);
        call = await patch();
      }
      if (call) latencies.push(Date.parse(call.timestamp) - editedAt);
    }
    await stack.stop();

    const name = `latency (${count} objects, ${latencies.length} edits)`;
    return [
      figure(name, 'spec edit → cloud PATCH p50', percentile(latencies, 0.5), { unit: 'ms', max: 100 }),
      figure(name, 'spec edit → cloud PATCH p99', percentile(latencies, 0.99), { unit: 'ms' }),
    ];
  },
};

if (isMain(import.meta.url)) await main(latency);
