// `npm run bench:idle [-- --objects 1000 --window-s 120 --sync-interval 10m]`: N objects Ready, then a quiet
// window in which the operator should write nothing anywhere and read the cloud no more than the drift
// checks of --sync-interval imply.
import { parseDurationMs } from '../src/base/duration.ts';
import {
  applyAndWait,
  clearCloudCalls,
  cloudCalls,
  figure,
  isMain,
  main,
  operatorRequests,
  sleep,
  startStack,
  type Benchmark,
  type Mix,
} from './harness.ts';

export const idle: Benchmark = {
  name: 'idle',
  flags: {
    objects: '1000',
    mix: 'all',
    'window-s': '120',
    'sync-interval': '10m',
    'settle-s': '10',
    'timeout-s': '600',
  },
  async run(cluster, args) {
    const count = Number(args.objects);
    const windowSeconds = Number(args['window-s']);
    const syncMs = parseDurationMs(args['sync-interval']!, 'sync-interval');
    const stack = await startStack(cluster, 'idle', { flags: { syncInterval: args['sync-interval']! } });
    await applyAndWait(cluster, stack, count, args['timeout-s']!, args.mix as Mix);
    // Let the reconciles triggered by the operator's own last writes finish before the window opens.
    await sleep(Number(args['settle-s']) * 1000);
    await clearCloudCalls(stack);
    const before = await operatorRequests(cluster);
    await sleep(windowSeconds * 1000);
    const kube = await operatorRequests(cluster, before.counts);
    const cloud = await cloudCalls(stack);
    await stack.stop();

    const kubeWrites = Object.entries(kube.byKind)
      .filter(([key]) => !key.startsWith('GET '))
      .reduce((sum, [, n]) => sum + n, 0);
    // Each object is checked once per sync interval: at most this many reads fall in the window.
    const implied = Math.ceil((count * windowSeconds * 1000) / syncMs);
    const name = `idle (${count} objects, ${windowSeconds} s)`;
    return [
      figure(name, 'cloud writes', cloud.writes, { max: 0 }),
      figure(name, 'kube writes', kubeWrites, { max: 0 }),
      figure(name, 'kube reads (GET)', kube.total - kubeWrites),
      figure(name, 'cloud reads', cloud.reads, { max: implied }),
    ];
  },
};

if (isMain(import.meta.url)) await main(idle);
