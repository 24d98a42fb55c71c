// `npm run bench:latency [-- --objects 1000 --edits 50 --mix all]`: with N objects of every kind cached and
// Ready, a user edits one object's spec at a time, kinds in turn; measured is the time from sending the edit to
// the cloud write (PATCH, PUT) arriving at the emulator (both clocks are this process's).
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
  type Mix,
} from './harness.ts';
import { chaosKind } from '../tools/chaos/kinds.ts';

const MERGE_PATCH = 'application/merge-patch+json';

export const latency: Benchmark = {
  name: 'latency',
  flags: { objects: '1000', edits: '50', mix: 'all', 'timeout-s': '600' },
  async run(cluster, args) {
    const count = Number(args.objects);
    const stack = await startStack(cluster, 'latency');
    const { objects } = await applyAndWait(cluster, stack, count, args['timeout-s']!, args.mix as Mix);
    // Each kind with a cloud field that can change in turn, each object edited once.
    const editable = objects.filter((object) => chaosKind(object.kind).rename);
    const order = [...new Set(editable.map((object) => object.kind))].map((kind) =>
      editable.filter((object) => object.kind === kind),
    );
    const latencies: number[] = [];
    for (let i = 0; i < Number(args.edits); i++) {
      const object = order[i % order.length]![Math.floor(i / order.length)];
      if (!object) break;
      const edit = chaosKind(object.kind).rename!(object.spec);
      await clearCloudCalls(stack);
      const editedAt = Date.now();
      await cluster.kube(
        'PATCH',
        objectPath(object.kind, stack.namespace, object.name),
        { spec: edit },
        MERGE_PATCH,
      );
      // Nothing else writes in a settled run: the first write to the cloud is the edit's.
      const write = async () => (await cloudCalls(stack)).calls.find((c) => c.method !== 'GET');
      let call = await write();
      const deadline = editedAt + 30_000;
      while (!call && Date.now() < deadline) {
        await sleep(5);
        call = await write();
      }
      if (call) latencies.push(Date.parse(call.timestamp) - editedAt);
    }
    await stack.stop();

    const name = `latency (${count} objects, ${latencies.length} edits of ${order.length} kinds)`;
    return [
      figure(name, 'spec edit → cloud write p50', percentile(latencies, 0.5), { unit: 'ms', max: 100 }),
      figure(name, 'spec edit → cloud write p99', percentile(latencies, 0.99), { unit: 'ms' }),
    ];
  },
};

if (isMain(import.meta.url)) await main(latency);
