import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { ALERTING_ROUTES } from '../../../../src/cloud/alerting-client.ts';
import { errorSearchOf, logSource } from '../../../../tools/fixtures/alert.ts';
import {
  condition,
  crashBesideLookAlike,
  isReadyWithId,
  writes,
  type SluiceObject,
  useOperatorEnv,
  loseObjects,
} from '../support.ts';
import { planDocuments } from '../plan-in-process.ts';

const SOURCES = ALERTING_ROUTES.sources;
const SOURCE = ALERTING_ROUTES.source;

describe.skipIf(clusterSkipReason())('Source lifecycle on a real apiserver against the emulator', () => {
  const env = useOperatorEnv('source-lifecycle', { operator: false });
  const sources = () => env.of<SluiceObject>('Source');
  const searches = () => env.of<SluiceObject>('SavedSearch');
  const store = () => env.emulator.store;
  const ownerSetting = (name: string) => ({
    setting: 'log_comment',
    value: expect.stringMatching(
      new RegExp(`^sluice\\.dev/owner: [0-9a-f-]{36}/${env.namespace}/Source/${name}$`),
    ) as unknown,
  });
  const sent = async () => writes(await env.calls()).map((c) => `${c.method} ${c.route}`);

  it('after a kill -9 between the POST and the status write, the source its create made is adopted, not a look-alike', async () => {
    // Someone else's source of the same name, made before sluice records its intent.
    const foreign = await env.alerting.createSource(logSource('phoenix'));
    const named = () => [...store().sources.values()].filter((s) => s.name === 'phoenix');
    const { ours } = await crashBesideLookAlike(
      env,
      { kind: 'Source', name: 'phoenix', spec: logSource('phoenix') },
      { route: SOURCES, named, foreignId: foreign.id },
    );
    expect(ours.querySettings).toEqual([ownerSetting('phoenix')]);
    await sources().removeUntilGone('phoenix');
    expect(named().map((s) => s.id)).toEqual([foreign.id]);
  });

  it('a SavedSearch naming a Source waits for it, then searches the id it got; the owner is a query setting', async () => {
    await env.clearCalls();
    // Applied in the wrong order: the search waits for its source.
    await searches().apply('errors', errorSearchOf('errors', 'logs'));
    const waiting = await searches().waitFor(
      'errors',
      'waiting',
      (s) => condition(s, 'Ready')?.reason === 'WaitingForReference',
    );
    expect(condition(waiting, 'Ready')!.message).toContain('Source logs');
    await sources().apply('logs', logSource('logs'));

    const source = await sources().waitFor('logs', 'Ready', isReadyWithId);
    const { id: _id, ...cloud } = store().sources.get(source.status!.id!)!;
    expect(cloud).toEqual({ ...logSource('logs'), querySettings: [ownerSetting('logs')] });
    const search = await searches().waitFor('errors', 'Ready', isReadyWithId);
    expect(store().savedSearches.get(search.status!.id!)?.sourceId).toBe(source.status!.id);
    expect(search.status).toMatchObject({ sourceId: source.status!.id });
    expect(await sent()).toEqual([`POST ${SOURCES}`, `POST ${ALERTING_ROUTES.savedSearches}`]);
  });

  it('re-applied unchanged sends nothing; an edit of one field is one PUT that keeps the owner', async () => {
    const id = (await sources().get('logs'))!.status!.id!;
    await env.clearCalls();
    await sources().annotate('logs', { 'sluice.dev/reconcile-requested-at': new Date().toISOString() });
    await env.freshLook('Source', 'logs');
    expect(await sent()).toEqual([]);

    await sources().patchSpec('logs', { bodyExpression: 'LogAttributes' });
    await sources().waitFor(
      'logs',
      'edited',
      () => store().sources.get(id)?.bodyExpression === 'LogAttributes',
    );
    expect(await sent()).toEqual([`PUT ${SOURCE}`]);
    expect(store().sources.get(id)?.querySettings).toEqual([ownerSetting('logs')]);
  });

  it('sluice plan of an edited Source shows the field old → new as one PUT, and sends nothing', async () => {
    const id = (await sources().get('logs'))!.status!.id!;
    await env.clearCalls();
    const document = {
      apiVersion: 'sluice.dev/v1alpha1',
      kind: 'Source',
      metadata: { name: 'logs', namespace: env.namespace },
      spec: { ...logSource('logs'), bodyExpression: 'Message' },
    };
    const { stdout } = await planDocuments(env, [document], { output: 'text' });
    expect(stdout).toContain('~ bodyExpression: "LogAttributes" → "Message"');
    expect(stdout).toContain(`PUT ${SOURCE.replace(':id', id)}`);
    expect(await sent()).toEqual([]);
  });

  it('a Source whose SavedSearches still name it waits on delete, naming them, without a DELETE; then goes with them', async () => {
    const id = (await sources().get('logs'))!.status!.id!;
    await env.clearCalls();
    await sources().remove('logs');
    const waiting = await sources().waitFor(
      'logs',
      'waiting for its search',
      (s) => condition(s, 'Ready')?.reason === 'WaitingForDependants',
    );
    expect(condition(waiting, 'Ready')!.message).toContain('SavedSearch errors');
    expect(await sent()).toEqual([]);

    await searches().removeUntilGone('errors');
    await sources().waitFor('logs', 'gone', (s) => s === undefined);
    expect(store().sources.get(id)).toBeUndefined();
    expect(await sent()).toEqual([`DELETE ${ALERTING_ROUTES.savedSearch}`, `DELETE ${SOURCE}`]);
  });

  it('observe-only: a source made in the console, adopted by id, gets no PUT; Full then sends the one it listed', async () => {
    const made = await env.alerting.createSource(logSource('console'));
    await env.clearCalls();
    await sources().apply(
      'console',
      { ...logSource('console'), bodyExpression: 'Msg', managementPolicy: 'Observe' },
      { 'sluice.dev/external-id': made.id },
    );
    const observed = await sources().waitFor(
      'console',
      'ObserveOnly with a pending PUT',
      (s) => condition(s, 'Ready')?.reason === 'ObserveOnly' && s?.status?.pendingChanges !== undefined,
    );
    expect(observed.status).toMatchObject({
      id: made.id,
      pendingChanges: [{ method: 'PUT', fields: expect.arrayContaining(['bodyExpression']) as unknown }],
    });
    expect(await sent()).toEqual([]);

    await sources().patchSpec('console', { managementPolicy: 'Full' });
    await sources().waitFor('console', 'sent', () => store().sources.get(made.id)?.bodyExpression === 'Msg');
    expect(await sent()).toEqual([`PUT ${SOURCE}`]);
    // Adopted by id: the source keeps the record it had (none); sluice does not claim it in the cloud.
    expect(store().sources.get(made.id)?.querySettings).toBeUndefined();
  });

  it('a cluster rebuilt from Git takes its source and the search naming it back with zero writes', async () => {
    await sources().apply('traces', {
      ...logSource('traces'),
      kind: 'trace',
      durationExpression: 'Duration',
    });
    await searches().apply('slow', errorSearchOf('slow', 'traces'));
    const ids = {
      source: (await sources().waitFor('traces', 'Ready', isReadyWithId)).status!.id!,
      search: (await searches().waitFor('slow', 'Ready', isReadyWithId)).status!.id!,
    };
    const objects = [
      { kind: 'Source', name: 'traces' },
      { kind: 'SavedSearch', name: 'slow' },
    ];
    await loseObjects(env, objects, []);
    await env.clearCalls();
    await env.startOperator();
    await searches().apply('slow', errorSearchOf('slow', 'traces'));
    await sources().apply('traces', {
      ...logSource('traces'),
      kind: 'trace',
      durationExpression: 'Duration',
    });
    expect((await sources().waitFor('traces', 'Ready', isReadyWithId)).status!.id).toBe(ids.source);
    expect((await searches().waitFor('slow', 'Ready', isReadyWithId)).status!.id).toBe(ids.search);
    expect(await sent()).toEqual([]);
  }, 90_000);
});
