import { describe, expect, it } from 'vitest';
import { metricUses, parseScrape, problemsOf } from '../../support/promql-metrics.ts';

const scrape = parseScrape(`# HELP sluice_objects sluice objects
# TYPE sluice_objects gauge
sluice_objects{credentials="ns/cloud",kind="Pipe",ready="False",reason="Unavailable"} 2
# HELP sluice_cloud_request_duration_seconds latency
# TYPE sluice_cloud_request_duration_seconds histogram
sluice_cloud_request_duration_seconds_bucket{le="0.1",api="management",route="/x"} 1
sluice_cloud_request_duration_seconds_sum{api="management",route="/x"} 0.05
sluice_cloud_request_duration_seconds_count{api="management",route="/x"} 1
# HELP sluice_events_total events
# TYPE sluice_events_total counter
`);

describe('the metric selectors of a PromQL expression', () => {
  it('finds metric names and matcher labels, and tells them from functions, keywords, grouping labels and ranges', () => {
    expect(
      metricUses(
        'sum by (kind, reason) (rate(sluice_events_total{type="Warning", kind=~"P.*"}[$__rate_interval])) * 60 > bool 5 ' +
          'and on (kind) group_left (reason) max without (le) (x_seconds offset 5m) unless up',
      ),
    ).toEqual({
      selectors: [
        { metric: 'sluice_events_total', labels: ['type', 'kind'] },
        { metric: 'x_seconds', labels: [] },
        { metric: 'up', labels: [] },
      ],
      groupingLabels: ['kind', 'reason', 'kind', 'reason', 'le'],
    });
    expect(metricUses('{__name__="sluice_objects", kind="Pipe"}').selectors).toEqual([
      { metric: 'sluice_objects', labels: ['kind'] },
    ]);
  });

  it('finds nothing wrong when every name and label is in the scrape, histogram series included', () => {
    expect(
      problemsOf(
        'sum by (kind, reason) (sluice_objects{credentials=~"$credentials", ready!="True"})',
        scrape,
      ),
    ).toEqual([]);
    expect(
      problemsOf(
        'histogram_quantile(0.9, sum by (le, api) (rate(sluice_cloud_request_duration_seconds_bucket[5m])))',
        scrape,
      ),
    ).toEqual([]);
  });

  it('names a metric the operator does not expose, a label its samples lack and a grouping label no metric has', () => {
    expect(
      problemsOf(
        'sum by (credentials, colour) (sluice_objects_typo{kind="Pipe"}) + sluice_objects{shape="x"}',
        scrape,
      ),
    ).toEqual([
      'metric sluice_objects_typo is not exposed',
      'metric sluice_objects has no label shape',
      'no metric of the expression has the label colour it groups by',
    ]);
    expect(problemsOf('sluice_cloud_request_duration_seconds_total', scrape)).toEqual([
      'metric sluice_cloud_request_duration_seconds_total is not exposed',
    ]);
  });

  it('refuses a metric that is declared but has no sample: its labels could not be checked', () => {
    expect(problemsOf('rate(sluice_events_total{type="Warning"}[5m])', scrape)).toEqual([
      'metric sluice_events_total has no sample in the scrape',
    ]);
  });
});
