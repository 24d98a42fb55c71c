import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { ALERTING_ROUTES } from '../../../../src/cloud/alerting-client.ts';
import { errorSearch, errorSearchOf, logSource } from '../../../../tools/fixtures/alert.ts';
import {
  condition,
  isReadyWithId,
  writes,
  type SluiceObject,
  useOperatorEnv,
  loseObjects,
} from '../support.ts';

const SEARCHES = ALERTING_ROUTES.savedSearches;
const SEARCH = ALERTING_ROUTES.savedSearch;

describe.skipIf(clusterSkipReason())('SavedSearch lifecycle on a real apiserver against the emulator', () => {
  const env = useOperatorEnv('saved-search-lifecycle');
  const searches = () => env.of<SluiceObject>('SavedSearch');
  const sources = () => env.of<SluiceObject>('Source');
  const store = () => env.emulator.store;
  const sent = async () => writes(await env.calls()).map((c) => `${c.method} ${c.route}`);
  const ownerTag = (name: string) =>
    expect.stringMatching(
      new RegExp(`^sluice\\.dev/owner: [0-9a-f-]{36}/${env.namespace}/SavedSearch/${name}$`),
    ) as unknown;

  it('by a source id: one POST, the owner one of its tags, the id kept in status', async () => {
    await env.clearCalls();
    await searches().apply('errors', errorSearch('errors'));
    const search = await searches().waitFor('errors', 'Ready', isReadyWithId);
    expect(store().savedSearches.get(search.status!.id!)).toMatchObject({
      name: 'errors',
      sourceId: 'logs',
      where: 'level:error',
      tags: ['team-a', ownerTag('errors')],
      filters: [],
    });
    expect(search.status).toMatchObject({ sourceId: 'logs' });
    expect(await sent()).toEqual([`POST ${SEARCHES}`]);
  });

  it('re-applied unchanged sends nothing; an edit of one field is one PUT that keeps filters pinned in the console', async () => {
    const id = (await searches().get('errors'))!.status!.id!;
    const pinned = [{ type: 'sql', condition: "ServiceName = 'api'" }];
    const { id: _id, createdAt: _c, updatedAt: _u, ...cloud } = store().savedSearches.get(id)!;
    await env.alerting.replaceSavedSearch(id, { ...cloud, whereLanguage: 'lucene', filters: pinned });
    await env.clearCalls();
    await searches().annotate('errors', { 'sluice.dev/reconcile-requested-at': new Date().toISOString() });
    await env.freshLook('SavedSearch', 'errors');
    expect(await sent()).toEqual([]);

    await searches().patchSpec('errors', { where: 'level:fatal' });
    await searches().waitFor(
      'errors',
      'edited',
      () => store().savedSearches.get(id)?.where === 'level:fatal',
    );
    expect(await sent()).toEqual([`PUT ${SEARCH}`]);
    expect(store().savedSearches.get(id)?.filters).toEqual(pinned);
  });

  it('a Source applied first is not waited for; a search deleted first leaves the Source free to go at once', async () => {
    await sources().apply('logs', logSource('logs'));
    const source = await sources().waitFor('logs', 'Ready', isReadyWithId);
    await searches().apply('warnings', { ...errorSearchOf('warnings', 'logs'), where: 'level:warn' });
    const search = await searches().waitFor('warnings', 'Ready', isReadyWithId);
    expect(store().savedSearches.get(search.status!.id!)?.sourceId).toBe(source.status!.id);

    await env.clearCalls();
    await searches().removeUntilGone('warnings');
    await sources().remove('logs');
    const gone = await sources().waitFor('logs', 'gone', (s) => s === undefined);
    expect(gone).toBeUndefined();
    expect(await sent()).toEqual([`DELETE ${SEARCH}`, `DELETE ${ALERTING_ROUTES.source}`]);
  });

  it('a cluster rebuilt from Git takes its saved search back with zero writes', async () => {
    const id = (await searches().get('errors'))!.status!.id!;
    const spec = { ...errorSearch('errors'), where: 'level:fatal' };
    await loseObjects(env, [{ kind: 'SavedSearch', name: 'errors' }], []);
    await env.clearCalls();
    await env.startOperator();
    await searches().apply('errors', spec);
    expect((await searches().waitFor('errors', 'Ready', isReadyWithId)).status!.id).toBe(id);
    expect(await sent()).toEqual([]);
  }, 90_000);

  it('a search naming a Source that never comes keeps waiting and sends nothing', async () => {
    await env.clearCalls();
    await searches().apply('orphan', errorSearchOf('orphan', 'missing'));
    const waiting = await searches().waitFor(
      'orphan',
      'waiting',
      (s) => condition(s, 'Ready')?.reason === 'WaitingForReference',
    );
    expect(condition(waiting, 'Ready')!.message).toContain('Source missing');
    expect(await sent()).toEqual([]);
  });
});
