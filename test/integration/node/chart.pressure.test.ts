// The chart's pod held to a tenth of a core through a burst of objects of every kind: the code of
// `npm run bench:pressure` at 100m and a size CI affords (the benchmark's sizes: docs/benchmarks.md). A CPU limit
// throttles the whole process, so its probes' answers and its Lease renewals wait behind the burst's work; the
// pod must still never be restarted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measurePressure, pressureFigures, printPressureTable } from '../../../bench/pressure.ts';
import { printTable } from '../../../bench/harness.ts';
import type { ChartOnNode } from '../../../tools/cluster/chart-on-node.ts';
import { chartOnSharedNode } from './shared-node.ts';
import { nodeSkipReason } from './support.ts';

// At 300 the burst is over in under a minute, before a throttled liveness probe fails three times in a row.
const OBJECTS = 1000;
const CPU_LIMIT = '100m';

const log = (msg: string) => console.log(`[pressure] ${msg}`);

describe.skipIf(nodeSkipReason())('the chart’s pod under a CPU limit of 100m', () => {
  let chart: ChartOnNode;

  beforeAll(async () => {
    chart = await chartOnSharedNode({ rateLimit: 'off', transitionMs: 0, log });
  }, 900_000);
  afterAll(async () => {
    await chart?.stop();
  });

  it(`makes a burst of ${OBJECTS} objects of every kind Ready with no restart`, async () => {
    const result = await measurePressure(chart, {
      objects: OBJECTS,
      log,
      cpuLimit: CPU_LIMIT,
      timeoutS: 600,
      // As long after the last object is Ready as the liveness probe takes to kill (3 failures, 10 s apart):
      // a kill whose failures began on the load's tail counts.
      afterS: 30,
    });
    printPressureTable([result]);
    printTable(pressureFigures(result));
    expect(result.restarts, `restarted: ${result.restartCauses.join('; ')}`).toBe(0);
    expect(result.ready).toBe(OBJECTS);
  }, 1_200_000);
});
