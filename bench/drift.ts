// `npm run bench:drift [-- --services 100 --pipes-per-service 2 --sync-interval 60s --window-s 150]`: N services
// with M kafka pipes each, Ready, then a quiet window of at least two sync intervals with the quota lifted: the
// cloud reads the drift checks cost per object per sync interval, and the writes (none: nothing drifted).
import { parseDurationMs } from '../src/base/duration.ts';
import { callsByRoute } from './cloud-log.ts';
import { servicesWithPipes } from './mixes.ts';
import {
  applyObjectsAndWait,
  clearCloudCalls,
  cloudCalls,
  figure,
  isMain,
  main,
  sleep,
  startStack,
  type Benchmark,
} from './harness.ts';

export const drift: Benchmark = {
  name: 'drift',
  flags: {
    services: '100',
    'pipes-per-service': '2',
    'sync-interval': '60s',
    'window-s': '150',
    'settle-s': '10',
    'timeout-s': '600',
  },
  async run(cluster, args) {
    const services = Number(args.services);
    const pipesPerService = Number(args['pipes-per-service']);
    const syncMs = parseDurationMs(args['sync-interval']!, '--sync-interval');
    const windowMs = Number(args['window-s']) * 1000;
    if (!(windowMs >= 2 * syncMs)) {
      throw new Error(`--window-s must cover at least two sync intervals (${(2 * syncMs) / 1000} s)`);
    }
    const objects = servicesWithPipes(services, pipesPerService);
    const stack = await startStack(cluster, 'drift', { flags: { syncInterval: args['sync-interval']! } });
    await applyObjectsAndWait(cluster, stack, objects, args['timeout-s']!);
    // Let the reconciles the operator's own last writes trigger finish before the window opens.
    await sleep(Number(args['settle-s']) * 1000);
    await clearCloudCalls(stack);
    await sleep(windowMs);
    const calls = await cloudCalls(stack);
    await stack.stop();

    console.log('cloud calls in the window by route:');
    for (const [route, n] of callsByRoute(calls.calls)) console.log(`  ${route.padEnd(48)} ${n}`);
    const intervals = windowMs / syncMs;
    const name = `drift (${services} services × ${pipesPerService} pipes, sync ${args['sync-interval']}, ${windowMs / 1000} s)`;
    return [
      figure(name, 'cloud reads', calls.reads),
      figure(name, 'cloud reads per object per sync interval', calls.reads / objects.length / intervals, {
        max: 0.1,
      }),
      figure(name, 'cloud writes', calls.writes, { max: 0 }),
    ];
  },
};

if (isMain(import.meta.url)) await main(drift);
