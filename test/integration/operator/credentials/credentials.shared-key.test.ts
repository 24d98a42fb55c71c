// A key id is no secret (it is the Basic user name): a tenant's Secret naming the operator's key id with a
// wrong secret must get a budget of its own, never spend the real key's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { sampleValue } from '../../../support/scrape-sample.ts';
import { CREDENTIALS_SECRET, isReady, startOperatorEnv, type OperatorEnv } from '../support.ts';

const IMPOSTORS = 15;
/** The operator's management quota: 10 calls per 10 s per key. */
const QUOTA = { flag: '10/10s', requests: 10 };

describe.skipIf(clusterSkipReason())('a shared key id with a wrong secret', () => {
  let operatorNs: OperatorEnv;
  let tenant: OperatorEnv;

  beforeAll(async () => {
    operatorNs = await startOperatorEnv('shared-key');
    tenant = await startOperatorEnv('shared-key-tenant', {}, { sharing: operatorNs });
    const { credentials } = operatorNs.emulator;
    // One Secret per object: the objects of one Secret share its lists, so a failing list would be one call
    // for all of them; fifteen Secrets holding the same wrong key make fifteen calls on one budget.
    for (let i = 0; i < IMPOSTORS; i++) {
      await tenant.putSecret(`impostor-${i}`, {
        organizationId: credentials.organizationId,
        keyId: credentials.keyId,
        keySecret: 'not-the-secret',
        managementUrl: operatorNs.emulator.url,
      });
    }
  });
  afterAll(async () => {
    await tenant?.close();
    await operatorNs?.close();
  });

  it("leaves the real key's budget untouched: the operator's service is created at once while the impostor's calls fail", async () => {
    await operatorNs.startOperator({
      namespace: `${operatorNs.namespace},${tenant.namespace}`,
      managementQuota: QUOTA.flag,
    });
    // Enough failing objects to spend a whole window of one budget.
    for (let i = 0; i < IMPOSTORS; i++) {
      await tenant.apply(`noisy-${i}`, { name: `noisy ${i}`, credentialsRef: { name: `impostor-${i}` } });
    }
    const refused = async () => (await operatorNs.calls()).filter((c) => c.status === 401).length;
    const deadline = Date.now() + 20_000;
    while ((await refused()) < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await refused()).toBeGreaterThanOrEqual(10);

    await operatorNs.apply('victim', { name: 'victim' });
    await operatorNs.waitFor('victim', 'Ready', isReady, 30_000);
    const calls = await operatorNs.calls();
    const victimCalls = calls.filter((c) => c.status !== 401);
    expect(victimCalls.length).toBeGreaterThan(0);
    // On one budget with the impostors' ten calls, the create would have waited for the window to pass and
    // found it spent again by them. The real key's budget as its scheduler left it after the victim's last
    // call says so whatever the machine's load, where the time to Ready would not: every slot the victim did
    // not spend itself is still there.
    const metrics = await (await fetch(`${operatorNs.operator!.metrics!.url}/metrics`)).text();
    const credentials = `${operatorNs.namespace}/${CREDENTIALS_SECRET}`;
    const remaining = sampleValue(metrics, 'sluice_cloud_quota_remaining', {
      credentials,
      api: 'management',
    });
    expect(remaining).toBeGreaterThanOrEqual(QUOTA.requests - victimCalls.length);
    expect(calls.filter((c) => c.status === 429)).toEqual([]);
  }, 60_000);
});
