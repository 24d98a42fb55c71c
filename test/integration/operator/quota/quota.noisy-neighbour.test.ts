// Under the real quota (10 requests / 10 s per key): two namespaces hold the same key in Secrets of their own,
// and objects in both ask for a drift check every 100 ms. The key's drift checks are shared fairly between
// the namespaces, and another namespace's creation still gets through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { sampleValue } from '../../../support/scrape-sample.ts';
import { until } from '../../../support/wait.ts';
import {
  baseSpec,
  CREDENTIALS_SECRET,
  isReady,
  putSameKey,
  startOperatorEnv,
  type CallRecord,
  type OperatorEnv,
  type SluiceObject,
} from '../support.ts';

const NOISY_OBJECTS = 6;
const QUIET_OBJECTS = 2;
/** The emulator's service start: what the victim's creation waits for at the least. */
const TRANSITION_MS = 3_000;
/** The real management quota as the scheduler spends it: 10 calls per 10 s + 100 ms. */
const WINDOW_MS = 10_100;

/** The most calls that arrived within any `windowMs`. */
function busiestWindow(calls: CallRecord[], windowMs: number): number {
  const times = calls.map((c) => Date.parse(c.timestamp)).sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < times.length; last++) {
    while (times[last]! - times[first]! >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

describe.skipIf(clusterSkipReason())('a noisy neighbour on a shared key', () => {
  let victim: OperatorEnv;
  let noisy: OperatorEnv;
  /** The service id each query endpoint names, by namespace. */
  const servicesOf = new Map<string, Set<string>>();

  /** Query endpoints checked every 100 ms, with the given credentials Secret (the operator's: none). */
  async function shortIntervalEndpoints(env: OperatorEnv, count: number, secret?: string) {
    const queryEndpoints = env.of<SluiceObject>('QueryEndpoint');
    const ids = new Set<string>();
    servicesOf.set(env.namespace, ids);
    for (let i = 0; i < count; i++) {
      const { service } = await env.cloud.createService({
        name: `${env === noisy ? 'noisy' : 'quiet'} ${i}`,
        ...baseSpec,
      });
      ids.add(service.id);
      // A query endpoint's drift check is one GET of its own (no list to share).
      await queryEndpoints.apply(
        `endpoint-${i}`,
        {
          serviceId: service.id,
          roles: ['sql_console_read_only'],
          ...(secret ? { credentialsRef: { name: secret } } : {}),
        },
        { 'sluice.dev/sync-interval': '100ms' },
      );
    }
  }

  beforeAll(async () => {
    victim = await startOperatorEnv('quiet-tenant', { transitionMs: TRANSITION_MS });
    noisy = await startOperatorEnv('noisy-tenant', {}, { sharing: victim });
    // The same key under a Secret of the noisy namespace: one budget, snapshots of its own.
    await putSameKey(noisy, 'same-key', victim);
    await shortIntervalEndpoints(noisy, NOISY_OBJECTS, 'same-key');
    // The quiet namespace's own objects (with the operator's Secret, which holds the same key) ask as often.
    await shortIntervalEndpoints(victim, QUIET_OBJECTS);
    await victim.startOperator({
      namespace: `${victim.namespace},${noisy.namespace}`,
      managementQuota: '10/10s',
    });
    for (const [env, count] of [
      [noisy, NOISY_OBJECTS],
      [victim, QUIET_OBJECTS],
    ] as const) {
      for (let i = 0; i < count; i++) {
        await env.of<SluiceObject>('QueryEndpoint').waitFor(`endpoint-${i}`, 'Ready', isReady, 120_000);
      }
    }
  }, 240_000);
  afterAll(async () => {
    await noisy?.close();
    await victim?.close();
  });

  it('shares the key between the namespaces: each gets about half of the drift checks, together no more than the budget', async () => {
    const scrape = async () => (await fetch(`${victim.operator!.metrics!.url}/metrics`)).text();
    const secrets = {
      [victim.namespace]: `${victim.namespace}/${CREDENTIALS_SECRET}`,
      [noisy.namespace]: `${noisy.namespace}/same-key`,
    };
    // The plan: each Secret's share of the key's budget, and together at most all of it.
    const text = await scrape();
    const shares = Object.values(secrets).map(
      (credentials) =>
        sampleValue(text, 'sluice_drift_budget_share', { credentials, api: 'management' }) ?? NaN,
    );
    expect(shares.reduce((sum, share) => sum + share, 0)).toBeLessThanOrEqual(1 + 1e-9);
    for (const share of shares) expect(share).toBeCloseTo(0.5, 2);
    for (const credentials of Object.values(secrets)) {
      // 100 ms asked; paced to what half of 10 calls per 10.1 s allows the namespace's objects.
      expect(sampleValue(text, 'sluice_drift_paced_interval_seconds', { credentials })).toBeGreaterThan(4);
    }

    // What the cloud saw: drift GETs of the endpoints, by namespace.
    await victim.clearCalls();
    await new Promise((r) => setTimeout(r, 3 * WINDOW_MS));
    const calls = await victim.calls();
    const gets = (namespace: string) =>
      calls.filter(
        (c) =>
          c.method === 'GET' &&
          c.route.endsWith('/serviceQueryEndpoint') &&
          [...servicesOf.get(namespace)!].some((id) => c.path.includes(id)),
      );
    const quiet = gets(victim.namespace).length;
    const loud = gets(noisy.namespace).length;
    // Measured: quiet 12, loud 13 in 30.3 s; planned per Secret, the quiet namespace got 30 % of them.
    expect(quiet + loud).toBeGreaterThanOrEqual(20);
    expect(quiet / (quiet + loud)).toBeGreaterThanOrEqual(0.4);
    expect(loud / (quiet + loud)).toBeGreaterThanOrEqual(0.4);
    expect(busiestWindow(calls, 10_000)).toBeLessThanOrEqual(10);
    expect(calls.filter((c) => c.status === 429)).toEqual([]);
  }, 60_000);

  it("another namespace's creation and its wait get through within a window of the budget", async () => {
    await victim.clearCalls();
    // The noisy objects keep the key's budget busy: their calls go on after the clear.
    await until('the noisy namespace calling', async () => (await victim.calls()).length >= 5, 30_000);

    const started = Date.now();
    await victim.apply('quiet', { name: 'quiet' });
    await victim.waitFor('quiet', 'Ready', isReady, 60_000);
    const readyMs = Date.now() - started;
    // Measured 3.4–10.1 s (the service takes 3 s to start): at most a window of the budget behind the noise.
    expect(readyMs).toBeLessThan(TRANSITION_MS + 15_000);
    expect((await victim.calls()).filter((c) => c.status === 429)).toEqual([]);
  }, 90_000);
});
