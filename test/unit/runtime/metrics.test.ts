import { describe, expect, it } from 'vitest';
import type { MetricValueWithName } from 'prom-client';
import { OperatorMetrics } from '../../../src/runtime/metrics.ts';
import { ExponentialFailureRateLimiter } from '../../../src/runtime/rate-limiter.ts';
import type { Requeue } from '../../../src/base/requeue.ts';
import { runWorkers } from '../../../src/runtime/workers.ts';
import { WorkQueue } from '../../../src/runtime/workqueue.ts';
import { ManualClock, settle } from '../../support/manual-clock.ts';

/** One sample's value; histogram samples are named `<name>_bucket`, `_sum` or `_count`. */
async function valueOf(
  metrics: OperatorMetrics,
  name: string,
  labels: Record<string, string>,
): Promise<number | undefined> {
  const family = name.replace(/_(bucket|sum|count)$/, '');
  const metric = metrics.registry.getSingleMetric(family) ?? metrics.registry.getSingleMetric(name);
  if (!metric) throw new Error(`metric ${name} is not registered`);
  const values: MetricValueWithName<string>[] = (await metric.get()).values;
  const wanted = Object.entries(labels);
  return values.find(
    (sample) =>
      (sample.metricName ?? family) === name &&
      wanted.every(([label, value]) => String(sample.labels[label]) === value),
  )?.value;
}

/** Fresh metrics, a manual clock and the pipe controller's work queue reporting to them. */
function controllerUnderTest() {
  const metrics = new OperatorMetrics();
  const clock = new ManualClock();
  const queue = new WorkQueue({
    clock,
    rateLimiter: new ExponentialFailureRateLimiter(5, 300_000),
    metrics: metrics.workQueue('pipe'),
  });
  return { metrics, clock, queue };
}

describe('OperatorMetrics', () => {
  it('exposes zeroed reconcile series for every result as soon as a controller registers', async () => {
    const metrics = new OperatorMetrics();
    metrics.reconciler('pipe');
    const text = await metrics.registry.metrics();
    for (const result of ['success', 'error', 'requeue', 'requeue_after']) {
      expect(text).toContain(`controller_runtime_reconcile_total{controller="pipe",result="${result}"} 0`);
    }
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="pipe"} 0');
  });

  it('counts reconciles by result, errors, retries and queue adds for a running controller', async () => {
    const { metrics, clock, queue } = controllerUnderTest();
    let calls = 0;
    const workers = runWorkers({
      queue,
      concurrency: 2,
      clock,
      metrics: metrics.reconciler('pipe'),
      reconcile: async () => {
        calls++;
        clock.advance(250);
        if (calls === 1) throw new Error('boom');
        if (calls === 2) return { requeueAfterMs: 60_000 };
      },
    });
    queue.add('ns/a');
    await settle();
    clock.advance(5);
    await settle();
    clock.advance(60_000);
    await settle();
    await queue.shutdown();
    await workers;

    const pipe = { controller: 'pipe' };
    expect(await valueOf(metrics, 'controller_runtime_reconcile_total', { ...pipe, result: 'error' })).toBe(
      1,
    );
    expect(
      await valueOf(metrics, 'controller_runtime_reconcile_total', { ...pipe, result: 'requeue_after' }),
    ).toBe(1);
    expect(await valueOf(metrics, 'controller_runtime_reconcile_total', { ...pipe, result: 'success' })).toBe(
      1,
    );
    expect(await valueOf(metrics, 'controller_runtime_reconcile_errors_total', pipe)).toBe(1);
    expect(
      await valueOf(metrics, 'controller_runtime_reconcile_time_seconds_bucket', { ...pipe, le: '0.25' }),
    ).toBe(3);
    expect(await valueOf(metrics, 'controller_runtime_max_concurrent_reconciles', pipe)).toBe(2);
    expect(await valueOf(metrics, 'controller_runtime_active_workers', pipe)).toBe(0);
    expect(await valueOf(metrics, 'workqueue_adds_total', { name: 'pipe' })).toBe(3);
    expect(await valueOf(metrics, 'workqueue_retries_total', { name: 'pipe' })).toBe(1);
    expect(await valueOf(metrics, 'workqueue_work_duration_seconds_count', { name: 'pipe' })).toBe(3);
  });

  it('counts a reconcile that is done and only schedules its drift check as success, not requeue_after', async () => {
    const { metrics, clock, queue } = controllerUnderTest();
    const results: Requeue[] = [{ resyncAfterMs: 60_000 }, { requeueAfterMs: 1_000 }];
    const workers = runWorkers({
      queue,
      concurrency: 1,
      clock,
      metrics: metrics.reconciler('pipe'),
      reconcile: async () => results.shift(),
    });
    queue.add('ns/a');
    await settle();
    clock.advance(60_000);
    await settle();
    await queue.shutdown();
    await workers;

    const total = (result: string) =>
      valueOf(metrics, 'controller_runtime_reconcile_total', { controller: 'pipe', result });
    // Both ran: the drift check came back after its delay.
    expect(results).toEqual([]);
    expect([await total('success'), await total('requeue_after')]).toEqual([1, 1]);
    expect(queue.numRequeues('ns/a')).toBe(0);
  });

  it('reports queue depth and how long keys waited', async () => {
    const { metrics, clock, queue } = controllerUnderTest();
    queue.add('ns/a');
    queue.add('ns/b');
    expect(await valueOf(metrics, 'workqueue_depth', { name: 'pipe' })).toBe(2);
    clock.advance(2_000);
    await queue.get();
    expect(await valueOf(metrics, 'workqueue_depth', { name: 'pipe' })).toBe(1);
    expect(await valueOf(metrics, 'workqueue_queue_duration_seconds_sum', { name: 'pipe' })).toBe(2);
  });

  it('measures unfinished work and the longest running reconcile when scraped', async () => {
    const { metrics, clock, queue } = controllerUnderTest();
    queue.add('ns/a');
    await queue.get();
    clock.advance(1_000);
    queue.add('ns/b');
    await queue.get();
    clock.advance(3_000);

    expect(await valueOf(metrics, 'workqueue_unfinished_work_seconds', { name: 'pipe' })).toBe(7);
    expect(await valueOf(metrics, 'workqueue_longest_running_processor_seconds', { name: 'pipe' })).toBe(4);
    queue.done('ns/a');
    queue.done('ns/b');
    expect(await valueOf(metrics, 'workqueue_unfinished_work_seconds', { name: 'pipe' })).toBe(0);
  });

  it('records cloud calls by method, quota waits and each key’s remaining quota with their labels', async () => {
    const metrics = new OperatorMetrics();
    metrics.cloud.request('management', 'GET', '/v1/services/{id}', 200, 0.12);
    metrics.cloud.request('management', 'GET', '/v1/services/{id}', 'network_error', 0.5);
    metrics.cloud.request('management', 'PATCH', '/v1/services/{id}', 200, 0.2);
    metrics.cloud.quotaWaited('management', 1.5);
    metrics.cloud.quotaRemaining('a/cloud', 'management', 7);
    metrics.cloud.quotaRemaining('b/cloud', 'management', 2);

    const read = { api: 'management', method: 'GET', route: '/v1/services/{id}' };
    const write = { ...read, method: 'PATCH' };
    expect(await valueOf(metrics, 'sluice_cloud_requests_total', { ...read, code: '200' })).toBe(1);
    expect(await valueOf(metrics, 'sluice_cloud_requests_total', { ...read, code: 'network_error' })).toBe(1);
    expect(await valueOf(metrics, 'sluice_cloud_requests_total', { ...write, code: '200' })).toBe(1);
    expect(await valueOf(metrics, 'sluice_cloud_request_duration_seconds_count', read)).toBe(2);
    expect(await valueOf(metrics, 'sluice_cloud_quota_wait_seconds_sum', { api: 'management' })).toBe(1.5);
    const remaining = (credentials: string) =>
      valueOf(metrics, 'sluice_cloud_quota_remaining', { credentials, api: 'management' });
    expect([await remaining('a/cloud'), await remaining('b/cloud')]).toEqual([7, 2]);
  });

  it('counts objects by key, kind and Ready reason, and the longest wait of those not Ready, when scraped', async () => {
    const metrics = new OperatorMetrics();
    const objects = [
      { credentials: 'a/cloud', kind: 'Pipe', ready: 'False', reason: 'Unavailable', sinceSeconds: 30 },
      { credentials: 'a/cloud', kind: 'Pipe', ready: 'False', reason: 'Unavailable', sinceSeconds: 90 },
      { credentials: 'a/cloud', kind: 'Pipe', ready: 'True', reason: 'Available', sinceSeconds: 900 },
    ];
    metrics.observeObjects(() => objects);
    const key = { credentials: 'a/cloud', kind: 'Pipe' };
    expect(await valueOf(metrics, 'sluice_objects', { ...key, ready: 'False', reason: 'Unavailable' })).toBe(
      2,
    );
    expect(await valueOf(metrics, 'sluice_objects', { ...key, ready: 'True', reason: 'Available' })).toBe(1);
    expect(
      await valueOf(metrics, 'sluice_objects_not_ready_oldest_seconds', { ...key, reason: 'Unavailable' }),
    ).toBe(90);
    expect(
      await valueOf(metrics, 'sluice_objects_not_ready_oldest_seconds', { ...key, reason: 'Available' }),
    ).toBeUndefined();
    // A series whose objects are gone goes with them.
    objects.splice(0, 2);
    expect(
      await valueOf(metrics, 'sluice_objects', { ...key, ready: 'False', reason: 'Unavailable' }),
    ).toBeUndefined();
  });

  it('reports the oldest snapshot of each kind of list per key when scraped', async () => {
    const metrics = new OperatorMetrics();
    metrics.observeSnapshots(() => [
      { credentials: 'a/cloud', list: 'pipes', ageSeconds: 4 },
      { credentials: 'a/cloud', list: 'pipes', ageSeconds: 12 },
      { credentials: 'a/cloud', list: 'services', ageSeconds: 2 },
    ]);
    expect(
      await valueOf(metrics, 'sluice_snapshot_age_seconds', { credentials: 'a/cloud', list: 'pipes' }),
    ).toBe(12);
    expect(
      await valueOf(metrics, 'sluice_snapshot_age_seconds', { credentials: 'a/cloud', list: 'services' }),
    ).toBe(2);
  });

  it('keeps separate instances independent', async () => {
    const first = new OperatorMetrics();
    const second = new OperatorMetrics();
    first.cloud.quotaRemaining('a/cloud', 'alerting', 3);
    expect(await valueOf(first, 'sluice_cloud_quota_remaining', { api: 'alerting' })).toBe(3);
    expect(await valueOf(second, 'sluice_cloud_quota_remaining', { api: 'alerting' })).toBeUndefined();
  });
});
