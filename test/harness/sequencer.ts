// The files' order: failed first, then the slowest, except that in the node project the files that start a node
// of their own come first and the file whose release is the slowest to clear comes last. The shared node cluster
// (node-global-setup.ts) then starts once, when the first of the others asks, and the operator's image builds
// while those files run; each file's release is cleared when the next one asks, and the last one never is (the
// run's end stops the node). The node project's files run one at a time, so their order changes only that.
//
// "The slowest" comes from vitest's cache of the last run on this machine; a fresh clone has none, and vitest
// would order by file size, so a long file could start last and run alone at the end. There the durations a
// full run recorded (file-durations.json, written by `npm run test:durations`) stand in.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files of the node project that stop the shared node cluster to start nodes of their own. */
export const OWN_NODE_FILES = ['test/integration/node/node.smoke.test.ts'];

/**
 * Files of the node project whose release is the slowest to clear, run last: chart.memory's (1,000 objects and
 * 300 Secrets of 1 MiB) took 34-39 s, the others 6-33 s.
 */
export const CLEARED_LAST_FILES = ['test/integration/node/chart.memory.test.ts'];

/** `project:path` → seconds, from a full run (`npm run test:durations`). */
export const RECORDED_DURATIONS = join(import.meta.dirname, 'file-durations.json');

export function recordedDurations(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(RECORDED_DURATIONS, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/** A file as the order places it. */
interface Placed {
  project: { name: string };
  moduleId: string;
}

/**
 * The node project's places in `sorted`, refilled with its own-node files first and the slowest to clear last
 * (each group in its order in `sorted`); every other project's file keeps its place.
 */
export function placeNodeFiles<T extends Placed>(sorted: readonly T[]): T[] {
  const among = (files: string[]) => (spec: T) => files.some((file) => spec.moduleId.endsWith(file));
  const ownsNode = among(OWN_NODE_FILES);
  const clearedLast = among(CLEARED_LAST_FILES);
  const places = sorted.flatMap((spec, i) => (spec.project.name === 'node' ? [i] : []));
  const nodeFiles = places.map((i) => sorted[i]!);
  const reordered = [
    ...nodeFiles.filter(ownsNode),
    ...nodeFiles.filter((spec) => !ownsNode(spec) && !clearedLast(spec)),
    ...nodeFiles.filter((spec) => !ownsNode(spec) && clearedLast(spec)),
  ];
  const placed = [...sorted];
  places.forEach((place, i) => (placed[place] = reordered[i]!));
  return placed;
}

export class TestFileOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return placeNodeFiles(this.slowestFirst(await super.sort(files)));
  }

  /**
   * Within each project, failed first and then by duration, vitest's cached one else the recorded one; a file
   * known to neither (a new file) goes first, as vitest runs unknown files first.
   */
  private slowestFirst(sorted: TestSpecification[]): TestSpecification[] {
    const recorded = recordedDurations();
    const key = (spec: TestSpecification) =>
      `${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`;
    const known = (spec: TestSpecification) => {
      const cached = this.ctx.cache.getFileTestResults(key(spec));
      const seconds = cached ? cached.duration / 1000 : recorded[key(spec)];
      return { failed: cached?.failed === true, seconds: seconds ?? Number.POSITIVE_INFINITY };
    };
    const order = new Map(sorted.map((spec, i) => [spec, { i, ...known(spec) }]));
    return [...sorted].sort((a, b) => {
      const x = order.get(a)!;
      const y = order.get(b)!;
      // vitest's own grouping of projects stays as it is: only files of one project change places.
      if (a.project.name !== b.project.name) return x.i - y.i;
      if (x.failed !== y.failed) return x.failed ? -1 : 1;
      return y.seconds - x.seconds || x.i - y.i;
    });
  }
}
