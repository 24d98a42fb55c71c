import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import {
  CREDENTIALS_SECRET,
  isReady,
  startOperatorEnv,
  type CallRecord,
  type OperatorEnv,
  useOperatorEnv,
} from '../support.ts';
import { untilValue } from '../../../support/wait.ts';

const SERVICES = '/v1/organizations/:organizationId/services';
const SERVICE = `${SERVICES}/:serviceId`;

const lists = (calls: CallRecord[]) => calls.filter((c) => c.method === 'GET' && c.route === SERVICES);
const singleGets = (calls: CallRecord[]) => calls.filter((c) => c.method === 'GET' && c.route === SERVICE);
const patchesOf = (calls: CallRecord[], id: string) =>
  calls.filter((c) => c.method === 'PATCH' && c.route === SERVICE && c.path.endsWith(`/services/${id}`));

describe.skipIf(clusterSkipReason())('observing by list on a real apiserver against the emulator', () => {
  const env = useOperatorEnv('observe-list', { operator: false });
  const names = ['a', 'b', 'c', 'd', 'e'];

  it('drift-checks N services with one services list per sync interval, not a GET per service', async () => {
    await env.startOperator({ syncInterval: '2s' });
    for (const name of names) await env.apply(name, { name });
    for (const name of names) await env.waitFor(name, 'Ready', isReady);

    await env.clearCalls();
    // Three lists span at least two sync intervals: every service was drift-checked in them.
    const calls = await untilValue(
      'three services lists',
      () => env.calls(),
      (c) => lists(c).length >= 3,
    );
    expect(singleGets(calls)).toEqual([]);
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([]);
    const first = Date.parse(lists(calls)[0]!.timestamp);
    const third = Date.parse(lists(calls)[2]!.timestamp);
    // One list per interval (the drift checks of five objects share it), not one per object.
    expect(third - first).toBeGreaterThanOrEqual(2 * 2_000 - 500);
  });

  it('picks up an out-of-band change with the next list and fixes it with one PATCH', async () => {
    const id = (await env.get('a'))!.status!.id!;
    await env.cloud.updateService(id, { name: 'changed by hand' });
    const mark = (await env.calls()).length;

    await untilValue(
      'the name restored in the cloud',
      async () => (await env.calls()).slice(mark),
      (calls) => patchesOf(calls, id).length >= 1,
    );
    const afterFix = (await env.calls()).length;
    // Two more lists after the fix: a second PATCH, had one been sent, would be in the log by then.
    const calls = await untilValue(
      'two lists after the fix',
      async () => (await env.calls()).slice(mark),
      (c) => lists(c.slice(afterFix - mark)).length >= 2,
    );
    expect(patchesOf(calls, id)).toHaveLength(1);
    expect(patchesOf(calls, id)[0]!.body).toEqual({ name: 'a' });
    expect(singleGets(calls)).toEqual([]);
    await env.waitFor('a', 'Ready again', isReady);
  });

  it('confirms a service deleted out of band with one GET before calling it gone', async () => {
    const id = (await env.get('b'))!.status!.id!;
    await env.forceState({ kind: 'service', id, state: 'stopped' });
    await env.cloud.deleteService(id);
    const mark = (await env.calls()).length;

    const missing = await env.waitFor('b', 'a new service', (r) => !!r?.status?.id && r.status.id !== id);
    expect(missing.status!.id).not.toBe(id);
    const calls = (await env.calls()).slice(mark);
    const gets = singleGets(calls).filter((c) => c.path.endsWith(`/services/${id}`));
    expect(gets).toHaveLength(1);
    expect(gets[0]!.status).toBe(404);
    await env.stopOperator();
  });

  it('sends no second PATCH when a snapshot taken before the PATCH is still fresh enough', async () => {
    // The poll interval is the freshness a spec change accepts: long, so the list taken before the PATCH
    // is still fresh when the object is looked at again.
    await env.clearCalls();
    await env.startOperator({ syncInterval: '10m', pollInterval: '30s' });
    for (const name of names) await env.waitFor(name, 'Ready after the restart', isReady);
    const id = (await env.get('c'))!.status!.id!;
    await untilValue(
      'the first list of this operator',
      () => env.calls(),
      (c) => lists(c).length >= 1,
    );
    await env.clearCalls();

    await env.patchSpec('c', { name: 'c renamed' });
    await untilValue(
      'the PATCH',
      () => env.calls(),
      (calls) => patchesOf(calls, id).length >= 1,
    );
    // A change of a field the cloud does not hold: observed again from the snapshot, now stale for `c`.
    await env.patchSpec('c', { deletionPolicy: 'Delete' });
    const generation = (await env.get('c'))!.metadata.generation!;
    await env.waitFor('c', 'the second change acted on', (r) => r?.status?.observedGeneration === generation);

    const calls = await env.calls();
    expect(lists(calls)).toEqual([]);
    expect(patchesOf(calls, id)).toHaveLength(1);
    expect(patchesOf(calls, id)[0]!.body).toEqual({ name: 'c renamed' });
    await env.stopOperator();
  });
});

describe.skipIf(clusterSkipReason())('snapshots per credentials key', () => {
  let first: OperatorEnv;
  let second: OperatorEnv;

  beforeAll(async () => {
    first = await startOperatorEnv('snapshot-key-a');
    // Its own emulator: another organization and another key.
    second = await startOperatorEnv('snapshot-key-b');
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it('keeps a separate snapshot for each key: each cloud is listed with its own key, never asked per object', async () => {
    const hosts = [first.emulator.url, second.emulator.url].map((url) => `http://${new URL(url).host}`);
    await first.startOperator({
      namespace: `${first.namespace},${second.namespace}`,
      allowedApiHosts: hosts.join(','),
      syncInterval: '1s',
    });
    await first.apply('here', { name: 'here' });
    await second.apply('there', { name: 'there', credentialsRef: { name: CREDENTIALS_SECRET } });
    const here = await first.waitFor('here', 'Ready', isReady);
    const there = await second.waitFor('there', 'Ready', isReady);

    await first.clearCalls();
    await second.clearCalls();
    const [callsHere, callsThere] = await Promise.all(
      [first, second].map((env) =>
        untilValue(
          'two lists',
          () => env.calls(),
          (c) => lists(c).length >= 2,
        ),
      ),
    );
    for (const calls of [callsHere!, callsThere!]) expect(singleGets(calls)).toEqual([]);
    // Each key's list shows only its organization's service, so each object is answered from its own.
    expect((await first.cloud.listServices()).map((s) => s.id)).toEqual([here.status!.id]);
    expect((await second.cloud.listServices()).map((s) => s.id)).toEqual([there.status!.id]);
    expect(new Set(callsHere!.map((c) => c.key))).toEqual(new Set([first.emulator.credentials.keyId]));
    expect(new Set(callsThere!.map((c) => c.key))).toEqual(new Set([second.emulator.credentials.keyId]));
  });
});

describe.skipIf(clusterSkipReason())('deleting by list', () => {
  // Stopping and deleting each take a while, so every deletion waits for the cloud more than once.
  const env = useOperatorEnv('delete-by-list', { emulator: { transitionMs: 2_000 }, operator: false });

  it('deletes N services reading their waits from the services list, not with a GET per poll', async () => {
    const doomed = ['d1', 'd2', 'd3', 'd4'];
    await env.startOperator();
    for (const name of doomed) await env.apply(name, { name, deletionPolicy: 'Delete' });
    const ids = [];
    for (const name of doomed) ids.push((await env.waitFor(name, 'Ready', isReady)).status!.id!);
    await env.clearCalls();

    for (const name of doomed) await env.remove(name);
    for (const name of doomed) await env.waitFor(name, 'gone', (r) => r === undefined);

    const calls = await env.calls();
    for (const id of ids) {
      const of = (c: CallRecord) =>
        c.path.endsWith(`/services/${id}`) || c.path.endsWith(`/services/${id}/state`);
      const writes = calls.filter((c) => of(c) && c.method !== 'GET').map((c) => `${c.method} ${c.route}`);
      expect(writes).toEqual([`PATCH ${SERVICE}/state`, `DELETE ${SERVICE}`]);
      // The first look reads afresh (a deletion acts on what it reads); the waits read the list, however many
      // polls the two state steps take; a list that no longer shows the service is confirmed by a GET. A GET
      // per poll would find the service at every poll of both steps.
      const statuses = singleGets(calls.filter(of)).map((c) => c.status);
      const found = statuses.filter((status) => status === 200);
      // A second look afresh only when the first reconcile failed after its GET and was retried (a write
      // that met a loaded apiserver), and a second confirmation when a list dropped the first.
      expect(found.length).toBeGreaterThanOrEqual(1);
      expect(found.length).toBeLessThanOrEqual(2);
      expect(statuses.at(-1)).toBe(404);
    }
    expect(lists(calls).length).toBeGreaterThan(0);
    await env.stopOperator();
  });
});
