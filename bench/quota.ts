// `npm run bench:quota [-- --objects 200 --requests 20 --window-s 1 --mix pairs]`: the emulator and the operator
// at the same scaled rate limit. The time to all Ready is compared with the least time the calls made could take
// at that rate (calls ÷ rate); a 429 would mean the operator's scheduler let a call through too early. With
// `--mix all` the Alerts' calls go to the alerting API, a budget of its own per token, scaled to the same limit.
import {
  applyAndWait,
  type Mix,
  cloudCalls,
  figure,
  isMain,
  main,
  startStack,
  type Benchmark,
} from './harness.ts';

export const quota: Benchmark = {
  name: 'quota',
  flags: { objects: '200', requests: '20', 'window-s': '1', mix: 'pairs', 'timeout-s': '600' },
  async run(cluster, args) {
    const count = Number(args.objects);
    const requests = Number(args.requests);
    const windowSeconds = Number(args['window-s']);
    const limit = { requests, windowSeconds };
    const quotaFlag = `${requests}/${windowSeconds}s`;
    const stack = await startStack(cluster, 'quota', {
      rateLimit: limit,
      alertsRateLimit: limit,
      flags: { managementQuota: quotaFlag, alertingQuota: quotaFlag },
    });
    const mix = args.mix as Mix;
    const { startedAt, lastReadyAt } = await applyAndWait(cluster, stack, count, args['timeout-s']!, mix);
    const seconds = (lastReadyAt - startedAt) / 1000;
    const calls = await cloudCalls(stack);
    if (process.env.BENCH_DEBUG) {
      // Calls answered per second of the run: a second below the rate is budget left unused.
      const perSecond: number[] = [];
      const firstAt = Math.min(...calls.calls.map((call) => Date.parse(call.timestamp)));
      for (const call of calls.calls) {
        const second = Math.floor((Date.parse(call.timestamp) - firstAt) / 1000);
        perSecond[second] = (perSecond[second] ?? 0) + 1;
      }
      console.log('calls per second:', Array.from(perSecond, (n) => n ?? 0).join(' '));
      // Where the time outside the calls goes: before the first call, after the last.
      const lastAt = Math.max(...calls.calls.map((call) => Date.parse(call.timestamp)));
      const since = (epochMs: number) => ((epochMs - performance.timeOrigin - startedAt) / 1000).toFixed(2);
      console.log(
        `first call at ${since(firstAt)} s, last at ${since(lastAt)} s, last Ready at ${seconds.toFixed(2)} s`,
      );
    }
    await stack.stop();

    // The two APIs' budgets are spent side by side, so the least time is the busier one's.
    const alerting = calls.calls.filter((call) => call.key === 'alerts' && call.status !== 429).length;
    const floorSeconds = Math.max(calls.answered - alerting, alerting) / (requests / windowSeconds);
    // The issue sets the time target for its mix (100 services + 100 pipes); other mixes are reported beside it.
    const issueMix = mix === 'pairs';
    const name = `quota (${count} objects${issueMix ? '' : `, ${mix} kinds`}, ${requests}/${windowSeconds} s)`;
    return [
      figure(name, 'time to all Ready', seconds, { unit: 's' }),
      figure(name, 'cloud calls made (not 429)', calls.answered),
      ...(alerting ? [figure(name, 'of which alerting API', alerting)] : []),
      figure(name, 'time ÷ (calls ÷ rate)', seconds / floorSeconds, issueMix ? { max: 1.1 } : {}),
      figure(name, '429s earned', calls.tooMany, { max: 0 }),
    ];
  },
};

if (isMain(import.meta.url)) await main(quota);
