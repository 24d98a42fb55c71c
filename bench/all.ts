// `npm run bench [-- --scale-count 500 --memory-objects 2000 --only scale,quota]`: every benchmark on one
// control plane, one after the other, then one summary table with target and pass/fail per figure. A flag
// of a benchmark is passed as `--<benchmark>-<flag>`.
import { parseArgs } from 'node:util';
import { capacity } from './capacity.ts';
import { drift } from './drift.ts';
import { idle } from './idle.ts';
import { latency } from './latency.ts';
import { memory } from './memory.ts';
import { pressure } from './pressure.ts';
import { provision } from './provision.ts';
import { quota } from './quota.ts';
import { scale } from './scale.ts';
import { teardown } from './teardown.ts';
import { uninstall } from './uninstall.ts';
import { printTable, startCluster, writeResult, type Benchmark, type Figure } from './harness.ts';

/**
 * A benchmark over every kind in turn, beside the services-and-pipes mix that its targets are set for
 * (`--scale-all-count`, `--only scale-all`, `bench/results/scale-all.json`).
 */
const everyKind = (benchmark: Benchmark): Benchmark => ({
  ...benchmark,
  name: `${benchmark.name}-all`,
  flags: { ...benchmark.flags, mix: 'all' },
});

/** The scale benchmark with the whole burst handed over at once (`--scale-burst-count`, `--only scale-burst`). */
const burstAtOnce: Benchmark = {
  ...scale,
  name: 'scale-burst',
  flags: { ...scale.flags, count: '1000', apply: 'all' },
};

const BENCHMARKS: Benchmark[] = [
  scale,
  everyKind(scale),
  burstAtOnce,
  memory,
  quota,
  everyKind(quota),
  idle,
  latency,
  provision,
  teardown,
  drift,
  capacity,
  pressure,
  uninstall,
];

const flagsOf = (benchmark: Benchmark) =>
  Object.entries(benchmark.flags).map(([flag, value]) => [`${benchmark.name}-${flag}`, flag, value] as const);
const { values } = parseArgs({
  strict: true,
  options: {
    only: { type: 'string', default: BENCHMARKS.map((b) => b.name).join(',') },
    ...Object.fromEntries(
      BENCHMARKS.flatMap(flagsOf).map(([option, , value]) => [option, { type: 'string', default: value }]),
    ),
  },
});

const cluster = await startCluster();
const figures: Figure[] = [];
try {
  for (const benchmark of BENCHMARKS.filter((b) => String(values.only).split(',').includes(b.name))) {
    const args = Object.fromEntries(
      flagsOf(benchmark).map(([option, flag]) => [flag, String((values as Record<string, unknown>)[option])]),
    );
    console.log(`\n— ${benchmark.name} ${JSON.stringify(args)}`);
    const result = await benchmark.run(cluster, args);
    printTable(result);
    writeResult(benchmark.name, args, result);
    figures.push(...result);
  }
} finally {
  await cluster.stop();
}
console.log('\nSummary');
printTable(figures);
writeResult('all', values, figures);
