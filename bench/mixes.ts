// Which objects a benchmark applies. The n-th object of a kind is the chaos suite's (tools/chaos/kinds.ts), so
// the benchmarks and the chaos runs write every kind one way.
import { chaosKind, CHAOS_KINDS, generateManifests, pipeKind, type Manifest } from '../tools/chaos/kinds.ts';
import { kafkaPipe } from '../tools/fixtures/pipe.ts';

/**
 * `pairs` is the mix for scale and quota: half DatabaseServices, half kafka Pipes each into the
 * service just before it. `all` takes every kind in turn, each dependant on a service of the run.
 * `services`: DatabaseServices only.
 */
export type Mix = 'pairs' | 'all' | 'services';

const MIX_KINDS = {
  pairs: [chaosKind('DatabaseService'), pipeKind([kafkaPipe])],
  all: CHAOS_KINDS,
  services: [chaosKind('DatabaseService')],
};

export type BenchObject = Manifest;

/** The first `count` objects of `mix`. */
export function benchObjects(count: number, mix: Mix = 'pairs'): BenchObject[] {
  if (!Object.hasOwn(MIX_KINDS, mix))
    throw new Error(`--mix must be pairs, all or services, got ${String(mix)}`);
  return generateManifests(count, MIX_KINDS[mix], 'bench');
}

/**
 * `services` DatabaseServices, each followed by `pipesPerService` kafka Pipes into it (bench:drift: 2 each,
 * bench:capacity: 10 each).
 */
export function servicesWithPipes(services: number, pipesPerService: number): BenchObject[] {
  const kinds = [
    chaosKind('DatabaseService'),
    ...Array.from({ length: pipesPerService }, () => pipeKind([kafkaPipe])),
  ];
  return generateManifests(services * (1 + pipesPerService), kinds, 'bench');
}

/** The Secrets the objects of every mix reference, by name: created in each benchmark namespace. */
export const mixSecrets = (): Record<string, Record<string, string>> =>
  Object.assign({}, ...CHAOS_KINDS.map((kind) => kind.secrets));
