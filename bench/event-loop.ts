// `npm run bench:event-loop [-- --objects 1000 --cpu 0.5 --mix all]`: how responsive the operator's main event
// loop stays while a burst arrives at once and becomes Ready, with the operator held to `--cpu` of one core (a
// container's CPU limit; root only). Prints the loop's delay over the burst (p50, p99, the largest bucket: from
// the operator's own sluice_event_loop_delay_seconds, scraped before and after), how long /metrics took to
// answer while the burst ran (scraped every second), the operator's exits nobody asked for (0 is the goal) and
// the time until every object was Ready. Goal: p99 under 100 ms at half a core.
import {
  applyAll,
  benchObjects,
  figure,
  freePort,
  isMain,
  main,
  ReadyTracker,
  startStack,
  type Benchmark,
  type Mix,
} from './harness.ts';

const DELAY = 'sluice_event_loop_delay_seconds';

/** The histogram's cumulative bucket counts by upper bound (seconds; +Inf last). */
type Buckets = Map<number, number>;

function parseBuckets(metrics: string): Buckets {
  const buckets: Buckets = new Map();
  for (const match of metrics.matchAll(new RegExp(`^${DELAY}_bucket\\{le="([^"]+)"\\} (\\S+)$`, 'gm'))) {
    buckets.set(match[1] === '+Inf' ? Infinity : Number(match[1]), Number(match[2]));
  }
  return buckets;
}

/** The upper bound of the bucket holding quantile `q` of the samples taken between `before` and `after`. */
export function quantileBound(before: Buckets, after: Buckets, q: number): number {
  const total = (after.get(Infinity) ?? 0) - (before.get(Infinity) ?? 0);
  for (const [bound, count] of after) {
    if (count - (before.get(bound) ?? 0) >= q * total) return bound;
  }
  return Infinity;
}

export const eventLoop: Benchmark = {
  name: 'event-loop',
  flags: { objects: '1000', cpu: '0.5', mix: 'all', 'timeout-s': '1200' },
  async run(cluster, args) {
    const count = Number(args.objects);
    const cpu = Number(args.cpu);
    const metricsPort = await freePort();
    const scrape = async () => {
      const started = performance.now();
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      return { text, ms: performance.now() - started };
    };
    const stack = await startStack(cluster, 'event-loop', {
      cpu,
      flags: { metricsBindAddress: `127.0.0.1:${metricsPort}` },
    });
    try {
      const tracker = new ReadyTracker(cluster, stack.namespace);
      await tracker.ready();
      const before = parseBuckets((await scrape()).text);
      const scrapeMs: number[] = [];
      let bursting = true;
      const scraping = (async () => {
        while (bursting) {
          scrapeMs.push((await scrape()).ms);
          await new Promise((resolve) => setTimeout(resolve, 1_000));
        }
      })();
      const started = performance.now();
      await applyAll(cluster, stack.namespace, benchObjects(count, args.mix as Mix), undefined, count);
      await tracker.waitFor(count, Number(args['timeout-s']) * 1000);
      const readyS = (performance.now() - started) / 1000;
      bursting = false;
      await scraping;
      await tracker.stop();
      const after = parseBuckets((await scrape()).text);
      const name = `event loop (${count} objects, ${args.mix} kinds, at once, ${cpu} core)`;
      const ms = (seconds: number) => seconds * 1000;
      return [
        figure(name, 'event-loop delay p50 (bucket bound)', ms(quantileBound(before, after, 0.5)), {
          unit: 'ms',
        }),
        figure(name, 'event-loop delay p99 (bucket bound)', ms(quantileBound(before, after, 0.99)), {
          unit: 'ms',
          max: 100,
        }),
        figure(name, 'event-loop delay, largest bucket reached', ms(quantileBound(before, after, 1)), {
          unit: 'ms',
        }),
        figure(name, 'slowest /metrics answer during the burst', Math.max(...scrapeMs), { unit: 'ms' }),
        figure(name, 'operator exits nobody asked for', stack.operator.unexpectedExits(), { max: 0 }),
        figure(name, 'time until every object was Ready', readyS, { unit: 's' }),
      ];
    } finally {
      await stack.stop();
    }
  },
};

if (isMain(import.meta.url)) await main(eventLoop);
