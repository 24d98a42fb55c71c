// The chart's pod under the chart's default resources while objects of every kind become Ready: the code of
// `npm run bench:memory -- --node` at a size CI affords (the benchmark's 10,000: docs/benchmarks.md).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureMemoryOnNode, nodeMemoryFigures } from '../../../bench/memory-node.ts';
import { printTable } from '../../../bench/harness.ts';
import { repoRoot } from '../../../tools/cluster/assets.ts';
import type { ChartOnNode } from '../../../tools/cluster/chart-on-node.ts';
import { chartOnSharedNode } from './shared-node.ts';
import { nodeSkipReason } from './support.ts';

const OBJECTS = 1000;
/** The chart's default memory limit (values.yaml gives it in Mi). */
const LIMIT_MI = Number(
  /^(\d+)Mi$/.exec(
    (
      parse(readFileSync(join(repoRoot, 'charts/sluice/values.yaml'), 'utf8')) as {
        resources: { limits: { memory: string } };
      }
    ).resources.limits.memory,
  )?.[1],
);

const log = (msg: string) => console.log(`[memory] ${msg}`);

describe.skipIf(nodeSkipReason())('the chart’s pod under its default memory limit', () => {
  let chart: ChartOnNode;

  beforeAll(async () => {
    chart = await chartOnSharedNode({ rateLimit: 'off', transitionMs: 0, log });
  }, 900_000);
  afterAll(async () => {
    await chart?.stop();
  });

  // 300 Secrets of 1 MiB in a tenant's namespace no object uses: held with their data, as an informer of whole
  // Secrets would, they alone pass the limit and the pod crash-loops on every first list.
  it(`makes ${OBJECTS} objects of every kind Ready beside 300 unrelated Secrets of 1 MiB with no OOM kill, no restart and memory under the limit`, async () => {
    const result = await measureMemoryOnNode(chart, {
      objects: OBJECTS,
      log,
      // The limit holds at every moment, so its samples need no settled heap; the benchmark's figures wait
      // a minute for one (docs/benchmarks.md).
      settleS: 5,
      timeoutS: 600,
      unrelatedSecrets: 300,
    });
    printTable(nodeMemoryFigures(result));
    expect(result.oomKills).toBe(0);
    expect(result.restarts, result.restartCauses.join('; ')).toBe(0);
    expect(result.limit).toBe(LIMIT_MI * 1048576);
    expect(result.peak.workingSet).toBeLessThan(result.limit);
    expect(result.settled.workingSet).toBeLessThan(result.limit);
    expect(result.peak.processRss).toBeLessThan(result.limit);
  }, 1_200_000);
});
