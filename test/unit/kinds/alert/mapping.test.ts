import { describe, expect, it } from 'vitest';
import type { AlertSpec } from '../../../../src/kinds/alert/schema.ts';
import type { Alert } from '../../../../src/cloud/schemas/alert.ts';
import {
  alertBody,
  alertStatus,
  diffAlert,
  isAlertFor,
  observedBody,
} from '../../../../src/kinds/alert/mapping.ts';
import { searchAlert, tileAlert } from '../../../../tools/fixtures/alert.ts';

const spec = (fields: Partial<AlertSpec> = {}): AlertSpec => ({
  ...tileAlert('cpu'),
  deletionPolicy: 'Delete',
  credentialsRef: { name: 'cloud' },
  ...fields,
});

/** The alert as the API answers for `spec()`: `dashboard` for the request's `dashboardId`. */
const observed = (fields: Partial<Alert> = {}): Alert => ({
  id: '65f0c0ffee0000000000abcd',
  name: 'cpu',
  message: 'cpu is above 100',
  threshold: 100,
  thresholdType: 'above',
  interval: '5m',
  source: 'tile',
  dashboard: 'dash-1',
  tileId: 'tile-1',
  channel: { type: 'webhook', webhookId: 'hook-1' },
  state: 'OK',
  team: 'team-1',
  silenced: false,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...fields,
});

describe('alertBody', () => {
  it('is the creation body: every request field the spec sets, none of the operator fields', () => {
    expect(alertBody(spec())).toEqual(tileAlert('cpu'));
    expect(alertBody({ ...searchAlert('errors'), deletionPolicy: 'Orphan' })).toEqual(searchAlert('errors'));
  });

  it('leaves out the optional fields the spec does not set', () => {
    const { message: _message, ...rest } = spec();
    expect(alertBody(rest)).not.toHaveProperty('message');
  });
});

describe('observedBody', () => {
  it('names the response fields as the request does: dashboard → dashboardId, savedSearch → savedSearchId', () => {
    expect(observedBody(observed())).toEqual(tileAlert('cpu'));
    expect(
      observedBody(observed({ source: 'search', dashboard: undefined, savedSearch: 's-1' })),
    ).toMatchObject({
      source: 'search',
      savedSearchId: 's-1',
    });
  });

  it('drops what only the response has: id, state, team, silenced, timestamps', () => {
    const body = observedBody(observed());
    for (const field of ['id', 'state', 'team', 'silenced', 'createdAt', 'updatedAt', 'dashboard']) {
      expect(body, field).not.toHaveProperty(field);
    }
  });
});

describe('diffAlert', () => {
  it('finds nothing when the cloud has the spec, whatever the evaluator state', () => {
    expect(diffAlert(spec(), observed())).toEqual([]);
    expect(diffAlert(spec(), observed({ state: 'ALERT', silenced: true }))).toEqual([]);
  });

  it('names each field whose cloud value differs, the renamed ones by their spec names', () => {
    const cloud = observed({
      threshold: 90,
      dashboard: 'dash-2',
      channel: { type: 'webhook', webhookId: 'hook-9' },
    });
    expect(diffAlert(spec(), cloud)).toEqual(['threshold', 'channel', 'dashboardId']);
  });

  it('names an optional field the cloud lost, and one the cloud has that the spec does not', () => {
    expect(diffAlert(spec(), observed({ message: undefined }))).toEqual(['message']);
    expect(diffAlert(spec(), observed({ groupBy: 'host' }))).toEqual(['groupBy']);
  });
});

describe('isAlertFor', () => {
  it('matches the alert this spec creates, even after its threshold or message changed', () => {
    expect(isAlertFor(spec(), observed({ threshold: 1, message: 'other' }))).toBe(true);
  });

  it.each([
    ['name', { name: 'memory' }],
    ['source object', { tileId: 'tile-2' }],
    ['dashboard', { dashboard: 'dash-2' }],
    ['no name', { name: undefined }],
  ])('does not match an alert with another %s', (_what, fields) => {
    expect(isAlertFor(spec(), observed(fields))).toBe(false);
  });
});

describe('alertStatus', () => {
  it('reports state, team, silenced and the timestamps as the cloud does', () => {
    expect(alertStatus(observed({ state: 'ALERT' }))).toEqual({
      state: 'ALERT',
      team: 'team-1',
      silenced: false,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
  });
});
