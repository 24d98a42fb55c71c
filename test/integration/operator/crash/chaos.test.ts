// The chaos suite at CI size (`npm run chaos` runs the sizes): on a control plane of its own, since
// one scenario restarts the apiserver under everyone using it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionBadInput, contractBadInput } from '../../../../tools/chaos/bad-input-run.ts';
import type { ChaosResult } from '../../../../tools/chaos/run.ts';
import { REDUCED, runSuite, summaryTable } from '../../../../tools/chaos/suite.ts';
import { startControlPlane, type ControlPlane } from '../../../../tools/cluster/control-plane.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';

describe.skipIf(clusterSkipReason())('chaos (reduced size)', () => {
  let cluster: ControlPlane;
  let results: ChaosResult[];

  beforeAll(async () => {
    cluster = await startControlPlane();
    results = await runSuite(cluster, REDUCED);
    console.log(summaryTable(results));
  }, 360_000);
  afterAll(async () => cluster?.stop());

  it('kill -9s, cloud faults, an apiserver restart and cut watches during creates of every kind: all converge, each cloud resource owned by exactly one object', () => {
    expect(results.map((r) => r.scenario)).toContain('kill -9');
    for (const r of results) {
      expect({
        scenario: r.scenario,
        duplicates: r.duplicates,
        orphans: r.orphans,
        mismatched: r.mismatched,
      }).toEqual({
        scenario: r.scenario,
        duplicates: [],
        orphans: [],
        mismatched: [],
      });
      expect(r.converged, r.scenario).toBe(r.objects);
    }
    expect(results.find((r) => r.scenario === 'kill -9')!.kills).toBe(REDUCED.kills);
    expect(results.find((r) => r.scenario === 'cloud faults')!.faultsInjected).toBeGreaterThan(0);
    const restart = results.find((r) => r.restarts > 0);
    if (restart)
      expect(Math.min(restart.renamed, restart.deleted, restart.connectionsCut)).toBeGreaterThan(0);
  });

  it('no call of a key arrives inside the Retry-After of a 429 that key earned', () => {
    for (const r of results) expect(r.retryAfterViolations, r.scenario).toEqual([]);
  });

  it('no key secret, token, password or pipe credential appears in logs, statuses, Events or metrics', () => {
    for (const r of results) expect(r.secretFindings, r.scenario).toEqual([]);
  });

  it('every admission bound of every kind, just outside it, is refused naming the field', async () => {
    const result = await admissionBadInput(cluster.kubeconfig);
    expect(result.tried).toBeGreaterThan(50);
    expect(result.failures).toEqual([]);
  });

  it('every contract bound of the create calls sent to the emulator is a 400 naming the field, and creates nothing', async () => {
    const result = await contractBadInput();
    expect(result.tried).toBeGreaterThan(50);
    expect(result.failures).toEqual([]);
  });
});
