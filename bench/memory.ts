// `npm run bench:memory [-- --objects 10000 --entry bin/sluice.js]`: the operator as its own process (as it
// runs in production: `sluice run`), its RSS idle with no objects and settled with N objects Ready.
// `--entry` picks what runs: bin/sluice.js (tsx, or the compiled dist/ once built) or a compiled cli.js.
// Defaults to 2,000 objects: the target's 10,000 take about 9 minutes on the 2-core machine.
import { readFileSync } from 'node:fs';
import {
  applyAll,
  figure,
  isMain,
  main,
  benchObjects,
  type Mix,
  ReadyTracker,
  sleep,
  startStack,
  type Benchmark,
} from './harness.ts';

/** Resident set size of a process, in MB (from /proc: Linux only). */
function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
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

export const memory: Benchmark = {
  name: 'memory',
  flags: { objects: '2000', entry: 'bin/sluice.js', mix: 'all', 'settle-s': '60', 'timeout-s': '900' },
  async run(cluster, args) {
    const count = Number(args.objects);
    const stack = await startStack(cluster, 'memory', { entry: args.entry! });
    const { namespace, operator } = stack;
    try {
      const settle = Number(args['settle-s']);
      await sleep(settle * 1000);
      const idleMb = await peakRss(operator.pid, 5);
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
      if (process.env.BENCH_HEAP_SNAPSHOT) {
        // With BENCH_NODE_ARGS=--heapsnapshot-signal=SIGUSR2: the operator writes a snapshot to its cwd.
        process.kill(operator.pid, 'SIGUSR2');
        await sleep(20_000);
      }
      const name = `memory (${args.entry})`;
      return [
        figure(name, 'RSS idle, 0 objects', idleMb, { unit: 'MB', max: 90 }),
        figure(name, `RSS peak while ${count} objects were applied`, peak.maxMb, { unit: 'MB' }),
        figure(name, `RSS settled, ${count} objects`, settledMb, { unit: 'MB', max: 150 }),
      ];
    } finally {
      await stack.stop();
    }
  },
};

if (isMain(import.meta.url)) await main(memory);
