// `npm run bench:uninstall [-- --objects 2000 --concurrency 16 --rounds 2]`: what `sluice uninstall` (the
// chart's pre-delete hook) spends taking sluice.dev/cleanup off `--objects` objects of every kind, one after
// another (the baseline) and with each `--concurrency` (a comma list; default the release's own), on one control
// plane in this process. The ways take turns, each round the finalizers put back first; prints each way's best
// seconds of `--rounds` and the baseline's ÷ each.
import { KINDS as SLUICE_KINDS } from '../src/kinds/index.ts';
import { FINALIZER } from '../src/managed/index.ts';
import { RELEASE_CONCURRENCY, releaseFinalizers } from '../src/uninstall/release.ts';
import {
  applyAll,
  benchObjects,
  createNamespace,
  figure,
  isMain,
  main,
  objectPath,
  pool,
  type Benchmark,
} from './harness.ts';

export const uninstall: Benchmark = {
  name: 'uninstall',
  flags: { objects: '2000', concurrency: String(RELEASE_CONCURRENCY), rounds: '2' },
  async run(cluster, args) {
    const count = Number(args.objects);
    const ways = [1, ...args.concurrency!.split(',').map(Number)];
    if (ways.some((n) => !Number.isInteger(n) || n < 1))
      throw new Error(`--concurrency must be whole numbers of at least 1, got ${args.concurrency}`);
    const namespace = await createNamespace(cluster, 'uninstall');
    const objects = benchObjects(count, 'all');
    await applyAll(cluster, namespace, objects);
    const hold = () =>
      pool(objects, 16, async ({ kind, name }) => {
        await cluster.kube(
          'PATCH',
          objectPath(kind, namespace, name),
          { metadata: { finalizers: [FINALIZER] } },
          'application/merge-patch+json',
        );
      });
    const release = async (concurrency: number) => {
      const started = performance.now();
      const released = await releaseFinalizers({
        kubeConfig: cluster.kubeConfig,
        kinds: SLUICE_KINDS,
        namespaces: [namespace],
        concurrency,
        log: () => undefined,
      });
      if (released.objects !== count) throw new Error(`released ${released.objects} of ${count} objects`);
      return (performance.now() - started) / 1000;
    };
    const seconds = new Map(ways.map((n) => [n, [] as number[]]));
    try {
      for (let round = 1; round <= Number(args.rounds); round++) {
        for (const n of ways) {
          await hold();
          const s = await release(n);
          seconds.get(n)!.push(s);
          console.log(`round ${round}: ${count} objects released ${inFlight(n)} in ${s.toFixed(1)} s`);
        }
      }
    } finally {
      // Released at the end of every round: nothing holds the namespace.
      await cluster.kube('DELETE', `/api/v1/namespaces/${namespace}`);
    }
    const name = `uninstall (${count} objects of every kind)`;
    const best = (n: number) => Math.min(...seconds.get(n)!);
    return ways.flatMap((n) => [
      figure(name, `release ${inFlight(n)}`, best(n), { unit: 's' }),
      ...(n === 1 ? [] : [figure(name, `one after another ÷ ${inFlight(n)}`, best(1) / best(n))]),
    ]);
  },
};

const inFlight = (n: number) => (n === 1 ? 'one after another' : `${n} at a time`);

if (isMain(import.meta.url)) await main(uninstall);
