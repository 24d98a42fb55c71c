import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { kafkaPipe, PIPE, PIPES } from '../../../../tools/fixtures/pipe.ts';
import {
  isReady,
  startOperatorEnv,
  type CallRecord,
  type OperatorEnv,
  type SluiceObject,
} from '../support.ts';

const SERVICES = '/v1/organizations/:organizationId/services';
const SERVICE = `${SERVICES}/:serviceId`;

const PAIRS = 8;
// As slow as the real cloud: a service takes 15 s to provision, a pipe as long to start.
const STEP_MS = 15_000;

const count = (calls: CallRecord[], method: string, route: string) =>
  calls.filter((c) => c.method === method && c.route === route).length;

describe.skipIf(clusterSkipReason())('a burst under the real quota, observed by list', () => {
  let env: OperatorEnv;

  beforeAll(async () => {
    // The emulator's default rate limit (10 requests / 10 s per key) and the operator's default quota.
    env = await startOperatorEnv('burst-list', { rateLimit: undefined, transitionMs: STEP_MS });
    await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass' });
    await env.startOperator({ managementQuota: undefined, pollInterval: '2s' });
  });
  afterAll(async () => env?.close());

  it('brings services and their pipes to Ready with list calls, not a GET per object while they provision', async () => {
    const services = Array.from({ length: PAIRS }, (_, i) => `svc-${i}`);
    await Promise.all(
      services.flatMap((name) => [
        env.apply(name, { name: name.replace('-', ' ') }),
        env.of('Pipe').apply(`${name}-pipe`, kafkaPipe(`${name}-pipe`, { service: name })),
      ]),
    );
    for (const name of services) {
      await env
        .of<SluiceObject>('Pipe')
        .waitFor(`${name}-pipe`, 'Ready', (p) => isReady(p) && p?.status?.id !== undefined, 80_000);
      expect(isReady(await env.get(name))).toBe(true);
    }

    const calls = await env.calls();
    expect(calls.filter((c) => c.status === 429)).toEqual([]);
    // Each object created once, and nothing else written.
    expect(count(calls, 'POST', SERVICES)).toBe(PAIRS);
    expect(count(calls, 'POST', PIPES)).toBe(PAIRS);
    expect(calls.filter((c) => c.method !== 'GET')).toHaveLength(2 * PAIRS);

    // Waiting out two 15 s provisioning steps per pair, a poll per object would read each one several times;
    // instead every read is a list, and one services list serves every service waiting in it.
    const reads = calls.filter((c) => c.method === 'GET');
    const singles = count(calls, 'GET', SERVICE) + count(calls, 'GET', PIPE);
    const servicesLists = count(calls, 'GET', SERVICES);
    const pipesLists = count(calls, 'GET', PIPES);
    expect(singles).toBeLessThanOrEqual(2);
    expect(servicesLists + pipesLists).toBe(reads.length - singles);
    expect(servicesLists).toBeGreaterThanOrEqual(1);
    expect(servicesLists).toBeLessThan(PAIRS);
    // The API lists pipes per service only, so each pipe here has a list of its own: a few while it starts.
    expect(pipesLists).toBeLessThanOrEqual(3 * PAIRS);
  }, 90_000);
});
