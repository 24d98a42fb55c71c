// `npm run bench:quota [-- --services 100 --pipes 100 --limit 20/1s]`: the emulator and the operator at the
// same scaled rate limit. The time to all Ready is compared with the least time the calls made could take at
// that rate (calls ÷ rate); a 429 would mean the operator's scheduler let a call through too early.
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
    const stack = await startStack(cluster, 'quota', {
      rateLimit: { requests, windowSeconds },
      flags: { managementQuota: `${requests}/${windowSeconds}s` },
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
    }
    await stack.stop();

    const floorSeconds = calls.answered / (requests / windowSeconds);
    const name = `quota (${count} objects${mix === 'pairs' ? '' : `, ${mix} kinds`}, ${requests}/${windowSeconds} s)`;
    return [
      figure(name, 'time to all Ready', seconds, { unit: 's' }),
      figure(name, 'cloud calls made (not 429)', calls.answered),
      figure(name, 'time ÷ (calls ÷ rate)', seconds / floorSeconds, { max: 1.1 }),
      figure(name, '429s earned', calls.tooMany, { max: 0 }),
    ];
  },
};

if (isMain(import.meta.url)) await main(quota);
