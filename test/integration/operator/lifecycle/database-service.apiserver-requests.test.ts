// What a burst of creates costs the apiserver, counted as `npm run bench:scale` counts it: the apiserver's
// own apiserver_request_total. The shared control plane serves every test file at once, so this file starts
// one of its own, where every request counted is this operator's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyObjectsAndWait,
  benchObjects,
  operatorRequests,
  requestsPerObjectTable,
  startCluster,
  startStack,
  type Cluster,
  type Stack,
} from '../../../../bench/harness.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';

const BURST = 20;
/**
 * Per service: the finalizer with the create intent and the intent's removal, two status writes, the Event,
 * the connection Secret's dry run and its write.
 */
const MAX_REQUESTS_PER_SERVICE = 7;

describe.skipIf(clusterSkipReason())('apiserver requests of a burst of DatabaseServices', () => {
  let cluster: Cluster | undefined;
  let stack: Stack | undefined;

  beforeAll(async () => {
    cluster = await startCluster();
    stack = await startStack(cluster, 'requests');
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
    await cluster?.stop();
  }, 60_000);

  it(`costs at most ${MAX_REQUESTS_PER_SERVICE} per service: the watch event of a connection Secret sluice wrote needs no GET`, async () => {
    const [first, ...burst] = benchObjects(BURST + 1, 'services');
    // What the operator does once, not per object (its credentials Secret marked in use), is done first.
    await applyObjectsAndWait(cluster!, stack!, [first!], '60');
    const before = await operatorRequests(cluster!);

    await applyObjectsAndWait(cluster!, stack!, burst, '120');

    const requests = await operatorRequests(cluster!, before.counts);
    const table = requestsPerObjectTable(requests, BURST);
    expect(requests.byKind['GET secrets'] ?? 0, table).toBe(0);
    expect(requests.total / BURST, table).toBeLessThanOrEqual(MAX_REQUESTS_PER_SERVICE);
  }, 180_000);
});
