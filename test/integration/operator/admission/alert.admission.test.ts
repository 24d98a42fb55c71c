import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { edit, expectRefused, named, useAdmission } from './admission.ts';
import { searchAlert, tileAlert } from '../../../../tools/fixtures/alert.ts';

const tile = tileAlert('cpu');
const search = searchAlert('errors');

/** The intervals the alerting API takes (api-behaviour.md). */
const INTERVALS = ['1m', '5m', '15m', '30m', '1h', '6h', '12h', '1d'];

describe.skipIf(clusterSkipReason())(
  'Alert admission (CRD schema and CEL rules on the real apiserver)',
  () => {
    const api = useAdmission('Alert', 'alert');

    it('accepts a tile alert and fills in deletionPolicy Delete', async () => {
      const created = await api.create('defaults', tile);
      expect(created.spec).toMatchObject({ deletionPolicy: 'Delete' });
    });

    it('accepts a search alert with groupBy, and either deletion policy', async () => {
      expect(await api.admit(search)).toBe('accepted');
      expect(await api.admit({ ...search, deletionPolicy: 'Orphan' })).toBe('accepted');
    });

    it.each(INTERVALS)('accepts interval %s', async (interval) => {
      expect(await api.admit({ ...tile, interval })).toBe('accepted');
    });

    it('accepts a name of 512 characters and a message of 4096', async () => {
      expect(await api.admit({ ...tile, name: 'n'.repeat(512), message: 'm'.repeat(4096) })).toBe('accepted');
    });

    it.each(['name', 'threshold', 'thresholdType', 'interval', 'source', 'channel', 'channel.type'])(
      'rejects an alert without %s, naming the field',
      async (field) => {
        await expectRefused(api.admit(edit(tile, field, undefined)), named(field), 'Required value');
      },
    );

    it.each([
      ['interval', '2m'],
      ['interval', '1w'],
      ['thresholdType', 'equal'],
      ['source', 'metric'],
      ['channel.type', 'email'],
      ['deletionPolicy', 'Keep'],
    ])('rejects %s = %s, naming the field', async (field, value) => {
      await expectRefused(api.admit(edit(tile, field, value)), named(field), 'Unsupported value');
    });

    it.each([
      ['name', 'n'.repeat(513)],
      ['message', 'm'.repeat(4097)],
    ])('rejects a %s that is too long, naming the field', async (field, value) => {
      await expectRefused(api.admit(edit(tile, field, value)), named(field), 'Too long');
    });

    it.each([
      ['an empty name', 'name', ''],
      ['an empty webhookId', 'channel.webhookId', ''],
      ['a threshold that is no number', 'threshold', 'high'],
    ])('rejects %s, naming the field', async (_what, field, value) => {
      await expectRefused(api.admit(edit(tile, field, value)), named(field));
    });

    it.each([
      ['dashboardId', 'dashboardRef', 'tile', tile],
      ['tileId', 'tile', 'tile', tile],
      ['savedSearchId', 'savedSearchRef', 'search', search],
    ])(
      'rejects an alert without %s (or %s) when source is %s, naming the field',
      async (field, ref, source, spec) => {
        await expectRefused(
          api.admit(edit(spec, field, undefined)),
          named(field),
          `${field} or ${ref} is required when source is ${source}`,
        );
      },
    );

    it('names the webhook one way: without webhookId and webhookRef, or with both, it is refused', async () => {
      const message = 'exactly one of channel.webhookId and channel.webhookRef must be set';
      await expectRefused(
        api.admit(edit(tile, 'channel.webhookId', undefined)),
        named('channel.webhookRef'),
        message,
      );
      await expectRefused(
        api.admit(edit(tile, 'channel.webhookRef', { name: 'on-call' })),
        named('channel.webhookRef'),
        message,
      );
    });

    it('names a tile by reference with dashboardRef and tile together, never beside the ids', async () => {
      const byRef = edit(edit(edit(tile, 'dashboardId', undefined), 'tileId', undefined), 'dashboardRef', {
        name: 'ingest',
      });
      await expectRefused(api.admit(byRef), named('tile'), 'tile goes with dashboardRef');
      expect(await api.admit(edit(byRef, 'tile', 'lag'))).toBe('accepted');
      await expectRefused(
        api.admit(edit(tile, 'dashboardRef', { name: 'ingest' })),
        named('dashboardRef'),
        'dashboardId and dashboardRef are two ways of naming the same thing',
      );
    });

    it('checks the source fields on an edit too: switching to search needs savedSearchId', async () => {
      await api.create('switched', tile);
      await expectRefused(
        api.patch('switched', { source: 'search' }),
        named('savedSearchId'),
        'savedSearchId or savedSearchRef is required when source is search',
      );
      expect(await api.patch('switched', { source: 'search', savedSearchId: 'search-1' })).toBe('accepted');
    });
  },
);
