import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helmTemplate, parseManifests } from '../../../../tools/cluster/install.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { sampleValue } from '../../../support/scrape-sample.ts';
import { parseScrape, problemsOf } from '../../../support/promql-metrics.ts';
import {
  CREDENTIALS_SECRET,
  isReady,
  startOperatorEnv,
  type OperatorEnv,
  type SluiceObject,
} from '../support.ts';
import { untilValue } from '../../../support/wait.ts';

/** Every PromQL expression the chart ships: the dashboard's panels and variable, the alert rules. */
function chartExpressions(): { where: string; expr: string }[] {
  const objects = parseManifests(
    helmTemplate({
      namespace: 'ops',
      values: { monitoring: { dashboard: { enabled: true }, prometheusRules: { enabled: true } } },
    }),
  );
  const expressions: { where: string; expr: string }[] = [];
  const dashboard = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'sluice-dashboard');
  const json = JSON.parse((dashboard!.data as Record<string, string>)['sluice.json']!) as {
    panels: { title: string; targets: { expr: string }[] }[];
    templating: { list: { name: string; definition?: string }[] };
  };
  for (const panel of json.panels) {
    for (const target of panel.targets)
      expressions.push({ where: `panel "${panel.title}"`, expr: target.expr });
  }
  for (const variable of json.templating.list) {
    // label_values(metric, label) is Grafana's, not PromQL: the metric must have the label.
    const labelValues = /^label_values\((.+),\s*(\w+)\)$/.exec(variable.definition ?? '');
    if (labelValues) {
      expressions.push({
        where: `variable $${variable.name}`,
        expr: `sum by (${labelValues[2]}) (${labelValues[1]})`,
      });
    }
  }
  const rule = objects.find((o) => o.kind === 'PrometheusRule');
  for (const group of (rule!.spec as { groups: { rules: { alert: string; expr: string }[] }[] }).groups) {
    for (const r of group.rules) expressions.push({ where: `alert ${r.alert}`, expr: r.expr });
  }
  return expressions;
}

/**
 * A key whose quota cannot meet the sync interval: the operator and the emulator at 2 calls per second, the
 * sync interval 2 s, and three services with a query endpoint each plus one endpoint waiting for a service
 * that does not exist. A drift cycle costs 1 services list + 4 query endpoint GETs (no list exists for
 * them) = 5 calls at 2 per 1.01 s: 2.525 s, longer than 2 s.
 */
describe.skipIf(clusterSkipReason())('planning the drift cycle of a key against its quota', () => {
  let env: OperatorEnv;
  const endpoints = () => env.of<SluiceObject>('QueryEndpoint');
  const endpointSpec = (service: string) => ({
    serviceRef: { name: service },
    roles: ['sql_console_read_only'],
  });
  const credentials = () => `${env.namespace}/${CREDENTIALS_SECRET}`;
  const scrape = async () => (await fetch(`${env.operator!.metrics!.url}/metrics`)).text();
  const secretEvents = async (reason: string) =>
    (await env.core.listNamespacedEvent({ namespace: env.namespace })).items.filter(
      (e) =>
        e.involvedObject.kind === 'Secret' &&
        e.involvedObject.name === CREDENTIALS_SECRET &&
        e.reason === reason,
    );
  const services = ['s1', 's2', 's3'];

  beforeAll(async () => {
    env = await startOperatorEnv('drift-plan', { rateLimit: { requests: 2, windowSeconds: 1 } });
  });
  afterAll(async () => env?.close());

  it('says once, on the credentials Secret and in one log line, that the sync interval cannot be met', async () => {
    for (const name of services) await env.apply(name, { name });
    for (const name of services) await endpoints().apply(`${name}-console`, endpointSpec(name));
    await endpoints().apply('orphan-console', endpointSpec('missing'));
    // Started on the whole set, so its first plan already sees every object.
    await env.startOperator({ managementQuota: '2/1s', syncInterval: '2s' });
    for (const name of services) await env.waitFor(name, 'Ready', isReady, 60_000);
    for (const name of services) await endpoints().waitFor(`${name}-console`, 'Ready', isReady, 60_000);

    const [event] = await untilValue(
      'a SyncIntervalNotMet Event',
      () => secretEvents('SyncIntervalNotMet'),
      (e) => e.length > 0,
    );
    expect(event).toMatchObject({ type: 'Warning', involvedObject: { namespace: env.namespace } });
    expect(event!.message).toBe(
      `drift checks of the 7 objects using Secret ${credentials()} cost 5 cloud calls per cycle (management 5, alerting 0); ` +
        'the request quota allows one cycle every 2s525ms at the shortest, so the sync interval 2s cannot be met',
    );
    const warnings = () =>
      env.logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((l) => l.credentials === credentials() && l.level === 40);
    expect(warnings()).toEqual([
      expect.objectContaining({
        credentials: credentials(),
        objects: 7,
        callsPerCycle: 5,
        syncInterval: '2s',
        shortestInterval: '2s525ms',
      }),
    ]);

    // Another object while the condition holds: planned again (the metrics show it), reported no more.
    await endpoints().apply('orphan-2-console', endpointSpec('missing-2'));
    await untilValue(
      'a plan with the new object',
      scrape,
      (text) =>
        sampleValue(text, 'sluice_drift_cycle_calls', { credentials: credentials(), api: 'management' }) ===
        6,
    );
    expect(await secretEvents('SyncIntervalNotMet')).toHaveLength(1);
    expect(warnings()).toHaveLength(1);

    const text = await scrape();
    const key = { credentials: credentials() };
    expect(sampleValue(text, 'sluice_drift_cycle_objects', key)).toBe(8);
    expect(sampleValue(text, 'sluice_drift_cycle_seconds', key)).toBe(3.03);
    expect(sampleValue(text, 'sluice_drift_interval_seconds', key)).toBe(2);
    expect(
      sampleValue(text, 'sluice_snapshot_age_seconds', { ...key, list: 'services' }),
    ).toBeGreaterThanOrEqual(0);
    expect(
      sampleValue(text, 'sluice_events_total', {
        kind: 'Secret',
        type: 'Warning',
        reason: 'SyncIntervalNotMet',
      }),
    ).toBe(1);
    expect(
      sampleValue(text, 'sluice_objects', {
        ...key,
        kind: 'QueryEndpoint',
        ready: 'True',
        reason: 'Available',
      }),
    ).toBe(3);
    // Lists go at poll priority, creates at create: the budget's spending by priority shows both.
    expect(text).toMatch(
      new RegExp(
        `sluice_cloud_quota_spent_total\\{credentials="${credentials()}",api="management",priority="poll",code="200"\\} \\d+`,
      ),
    );
    expect(text).toMatch(
      new RegExp(
        `sluice_cloud_quota_spent_total\\{credentials="${credentials()}",api="management",priority="create",code="20[01]"\\} \\d+`,
      ),
    );
  });

  it('says once that it is met again when the objects ask for a longer interval', async () => {
    const all = [
      ...services.map((name) => ({ kind: 'DatabaseService', name })),
      ...[...services, 'orphan', 'orphan-2'].map((name) => ({
        kind: 'QueryEndpoint',
        name: `${name}-console`,
      })),
    ];
    for (const { kind, name } of all) await env.of(kind).annotate(name, { 'sluice.dev/sync-interval': '1m' });
    const [event] = await untilValue(
      'a SyncIntervalMet Event',
      () => secretEvents('SyncIntervalMet'),
      (e) => e.length > 0,
    );
    expect(event).toMatchObject({ type: 'Normal' });
    expect(event!.message).toMatch(/cost 6 cloud calls per cycle .* the sync interval 1m is met again$/);
    expect(await secretEvents('SyncIntervalNotMet')).toHaveLength(1);
  });

  it('ships a dashboard and alerts whose every query names metrics and labels the running operator exposes', async () => {
    const scraped = parseScrape(await scrape());
    const expressions = chartExpressions();
    expect(expressions.length).toBeGreaterThanOrEqual(14);
    const problems = expressions.flatMap(({ where, expr }) =>
      problemsOf(expr, scraped).map((p) => `${where}: ${p}`),
    );
    expect(problems).toEqual([]);
  });
});
