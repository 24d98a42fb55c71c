// `npm run bench:memory [-- --objects 10000 --entry bin/sluice.js]`: the operator as its own process (as it
// runs in production: `sluice run`), its RSS idle with no objects and settled with N objects Ready.
// `--entry` picks what runs: bin/sluice.js (tsx, or the compiled dist/ once built) or a compiled cli.js.
// Defaults to the target's 10,000 objects, every kind (about 10 minutes on the 2-core machine), beside 500
// Secrets of 1 MiB that no object uses (`--unrelated-secrets`, `--unrelated-secret-kib`): the operator watches
// their namespace, and its memory must not depend on them. `--node` measures the chart's pod on the real node
// instead (bench/memory-node.ts).
import { readFileSync } from 'node:fs';
import {
  applyAll,
  figure,
  freePort,
  isMain,
  main,
  benchObjects,
  type Mix,
  ReadyTracker,
  sleep,
  startStack,
  type Benchmark,
  createUnrelatedSecrets,
} from './harness.ts';
import { mainOnNode } from './memory-node.ts';

/** Resident set size of a process, in MB (from /proc: Linux only). */
function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

/** Resident memory by kind (anonymous: heaps and malloc; file: the node binary and libraries), in MB. */
function residentKinds(pid: number): string {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const mb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1]) / 1024;
  const anonymous = mb('Anonymous');
  return `resident anonymous ${anonymous.toFixed(1)} MB, file-backed ${(mb('Rss') - anonymous).toFixed(1)} MB`;
}

/** The highest RSS over a few seconds: the sample a memory limit would have to allow. */
async function peakRss(pid: number, seconds: number): Promise<number> {
  let peak = 0;
  for (let i = 0; i < seconds * 4; i++) {
    peak = Math.max(peak, rssMb(pid));
    await sleep(250);
  }
  return peak;
}

/** Samples RSS every 250 ms until stopped, keeping the highest. */
function rssSampler(pid: number): { readonly maxMb: number; stop(): void } {
  let maxMb = 0;
  const timer = setInterval(() => (maxMb = Math.max(maxMb, rssMb(pid))), 250);
  return {
    get maxMb() {
      return maxMb;
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * Where the RSS is, from the operator's own process metrics: V8's heap (used of committed, by space) and
 * memory outside it (buffers), so a change is judged by what it moves.
 */
async function heapBreakdown(metricsPort: number): Promise<string> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const mb = (name: string, space?: string) => {
    const line = text
      .split('\n')
      .find((l) => l.startsWith(name) && (space === undefined || l.includes(`space="${space}"`)));
    return (Number(line?.split(' ').at(-1)) / 2 ** 20).toFixed(1);
  };
  const spaces = ['new', 'old', 'code', 'large_object', 'map']
    .map((space) => {
      const used = mb('nodejs_heap_space_size_used_bytes', space);
      return `${space} ${used}/${mb('nodejs_heap_space_size_total_bytes', space)}`;
    })
    .join(', ');
  return (
    `heap used ${mb('nodejs_heap_size_used_bytes')} of ${mb('nodejs_heap_size_total_bytes')} MB ` +
    `(${spaces}), external ${mb('nodejs_external_memory_bytes')} MB`
  );
}

export const memory: Benchmark = {
  name: 'memory',
  flags: {
    objects: '10000',
    entry: 'bin/sluice.js',
    mix: 'all',
    'settle-s': '60',
    'timeout-s': '900',
    'unrelated-secrets': '500',
    'unrelated-secret-kib': '1023',
  },
  async run(cluster, args) {
    const count = Number(args.objects);
    const metricsPort = await freePort();
    const stack = await startStack(cluster, 'memory', {
      entry: args.entry!,
      flags: { metricsBindAddress: `127.0.0.1:${metricsPort}` },
    });
    const debug = async (when: string) => {
      if (!process.env.BENCH_DEBUG) return;
      console.log(`${when}: ${await heapBreakdown(metricsPort)}; ${residentKinds(stack.operator.pid)}`);
    };
    const { namespace, operator } = stack;
    const unrelated = Number(args['unrelated-secrets']);
    const unrelatedKib = Number(args['unrelated-secret-kib']);
    try {
      await createUnrelatedSecrets(cluster, namespace, unrelated, unrelatedKib);
      const settle = Number(args['settle-s']);
      await sleep(settle * 1000);
      const idleMb = await peakRss(operator.pid, 5);
      await debug('idle');
      const peak = rssSampler(operator.pid);
      const tracker = new ReadyTracker(cluster, namespace);
      await applyAll(cluster, namespace, benchObjects(count, args.mix as Mix));
      await tracker.waitFor(count, Number(args['timeout-s']) * 1000);
      await tracker.stop();
      peak.stop();
      // V8 gives the burst's garbage back to the system when its memory reducer runs, about 30 s after the
      // activity ends (at 5,000 objects: 152 MB until then, 115 MB after): settled is after that.
      for (let waited = 0; waited < settle; waited += 5) {
        if (process.env.BENCH_DEBUG)
          console.log(`RSS ${waited} s after all Ready: ${rssMb(operator.pid).toFixed(0)} MB`);
        await sleep(5000);
      }
      const settledMb = await peakRss(operator.pid, 5);
      await debug('settled');
      if (process.env.BENCH_HEAP_SNAPSHOT) {
        // With BENCH_NODE_ARGS=--heapsnapshot-signal=SIGUSR2: the operator writes a snapshot to its cwd.
        process.kill(operator.pid, 'SIGUSR2');
        await sleep(20_000);
      }
      const name = `memory (${args.entry})`;
      const beside = unrelated > 0 ? `, beside ${unrelated} unrelated Secrets of ${unrelatedKib} KiB` : '';
      return [
        figure(name, `RSS idle, 0 objects${beside}`, idleMb, { unit: 'MB', max: 90 }),
        figure(name, `RSS peak while ${count} objects were applied${beside}`, peak.maxMb, { unit: 'MB' }),
        figure(name, `RSS settled, ${count} objects${beside}`, settledMb, { unit: 'MB', max: 150 }),
      ];
    } finally {
      await stack.stop();
    }
  },
};

if (isMain(import.meta.url)) {
  // `--node`: the chart's pod on the real node instead of a process (bench/memory-node.ts).
  if (process.argv.includes('--node')) await mainOnNode(process.argv.slice(2));
  else await main(memory);
}
