// `npm run bench:provision [-- --services 20 --transition-ms 15000]`: N services and N kafka pipes (each pipe on
// its own service) applied at once, the emulator at the cloud's real rate limit and state steps as slow as the
// real cloud's, the operator at its default quota. Prints time to all Ready against the least time the creates
// and the provisioning can take (see provisionLowerBound), the cloud calls per object by route, and 429s.
// Minutes by nature (the quota); `--services 2 --transition-ms 1000` is a smoke run.
import type { CallRecord } from '../src/emulator/call-log.ts';
import { SERVICE_CREATE_STEPS, pipeRunSteps } from '../src/emulator/state-machines.ts';
import { callsByRoute, provisionLowerBound } from './cloud-log.ts';
import { applyAndWait, cloudCalls, figure, isMain, main, type Benchmark } from './harness.ts';
import { REAL_CLOUD_FLAGS, startRealCloud } from './real-cloud.ts';

export const provision: Benchmark = {
  name: 'provision',
  flags: REAL_CLOUD_FLAGS,
  async run(cluster, args) {
    const cloud = await startRealCloud(cluster, 'provision', args);
    const { stack, services, stepMs, requests, windowSeconds, label: name } = cloud;
    const count = services * 2;
    const { startedAt, lastReadyAt } = await applyAndWait(cluster, stack, count, args['timeout-s']!, 'pairs');
    const calls = await cloudCalls(stack);
    await stack.stop();
    if (process.env.BENCH_DEBUG) printTimeline(calls.calls, startedAt);

    const seconds = (lastReadyAt - startedAt) / 1000;
    const bound = provisionLowerBound({
      creates: count,
      requests,
      windowMs: windowSeconds * 1000,
      stepMs,
      serviceSteps: SERVICE_CREATE_STEPS,
      pipeSteps: pipeRunSteps('kafka', true, true),
    });
    console.log(
      `lower bound: ${count} creates at ${requests}/${windowSeconds} s = ${bound.createsMs / 1000} s, then the last` +
        ` service's provisioning ${bound.serviceMs / 1000} s and its pipe's ${bound.pipeMs / 1000} s =` +
        ` ${bound.totalMs / 1000} s (with the fixed window's bursts: ${bound.fixedWindowTotalMs / 1000} s)`,
    );
    const byRoute = [...callsByRoute(calls.calls)].map(([route, n]) =>
      figure(name, `cloud calls per object: ${route}`, n / count),
    );
    return [
      figure(name, 'time to all Ready', seconds, { unit: 's' }),
      figure(name, 'lower bound', bound.totalMs / 1000, { unit: 's' }),
      figure(name, 'time ÷ lower bound', (seconds * 1000) / bound.totalMs, { max: 1.3 }),
      figure(name, 'time ÷ fixed-window bound', (seconds * 1000) / bound.fixedWindowTotalMs),
      figure(name, 'cloud calls per object (not 429)', calls.answered / count, { max: 1.5 }),
      ...byRoute,
      figure(name, '429s earned', calls.tooMany, { max: 0 }),
    ];
  },
};

/** Each cloud call, seconds after the first create, with its service (and pipe) id shortened. */
function printTimeline(calls: readonly CallRecord[], startedAt: number): void {
  const epoch = performance.timeOrigin + startedAt;
  for (const call of calls) {
    const at = ((Date.parse(call.timestamp) - epoch) / 1000).toFixed(1);
    const path = call.path
      .replace(/^\/v1\/organizations\/[^/]+/, '')
      .replace(/([0-9a-f]{8})[0-9a-f-]{28}/g, '$1');
    console.log(`${at.padStart(6)} s  ${call.status}  ${call.method} ${path}`);
  }
}

if (isMain(import.meta.url)) await main(provision);
