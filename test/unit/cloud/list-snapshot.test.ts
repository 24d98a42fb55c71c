import { describe, expect, it } from 'vitest';
import { CloudSnapshot, sameValue, type ListReader } from '../../../src/cloud/list-snapshot.ts';
import type { CallOptions } from '../../../src/cloud/request-types.ts';
import { ManualClock } from '../../support/manual-clock.ts';

interface Thing {
  id: string;
  state: string;
}

/** A cloud list the test answers by hand: each call waits until `answer` resolves it. */
function fakeCloud(clock = new ManualClock()) {
  const cloud = new Map<string, Thing>();
  /** Each list call open: when it started, what it was sent as, its answer. */
  const calls: { startedAt: number; call: CallOptions; resolve: (things: Thing[]) => void }[] = [];
  const changes: string[][] = [];
  const gets: string[] = [];
  const snapshot = new CloudSnapshot<Thing>(
    (call) => new Promise<Thing[]>((resolve) => calls.push({ startedAt: clock.now(), call, resolve })),
    { clock, onChange: (ids) => changes.push([...ids].sort()) },
  );
  const confirm = (id: string) => async () => {
    gets.push(id);
    return cloud.get(id);
  };
  /** Answers the oldest list call still open with what the cloud holds now. */
  const answer = async (things = [...cloud.values()]) => {
    const call = calls.shift();
    if (!call) throw new Error('no list call is open');
    call.resolve(things.map((thing) => ({ ...thing })));
    await settle();
  };
  /** Reads `id` accepting a list `freshnessMs` old, the list it starts answered at once. */
  const readListed = async (id: string, freshnessMs: number) => {
    const read = snapshot.read(id, freshnessMs, confirm(id));
    await answer();
    return read;
  };
  /** Lists afresh, answered at once with `things` (by default what the cloud holds). */
  const refreshed = async (things?: Thing[]) => {
    const refresh = snapshot.refresh(0);
    await answer(things);
    await refresh;
  };
  return { clock, cloud, calls, changes, gets, snapshot, confirm, answer, readListed, refreshed };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A reader whose client's reads are made as `call`. */
const readsAs = (call: CallOptions): ListReader => ({ readCall: () => call });

describe('CloudSnapshot', () => {
  it('answers from a list that is fresh enough and lists again once it is older than asked', async () => {
    const { clock, cloud, calls, snapshot, confirm, answer, readListed } = fakeCloud();
    cloud.set('a', { id: 'a', state: 'running' });
    expect(await readListed('a', 5_000)).toEqual({ id: 'a', state: 'running' });

    clock.advance(4_000);
    cloud.set('a', { id: 'a', state: 'stopped' });
    expect(await snapshot.read('a', 5_000, confirm('a'))).toEqual({ id: 'a', state: 'running' });
    expect(calls).toHaveLength(0);

    const stricter = snapshot.read('a', 1_000, confirm('a'));
    await settle();
    expect(calls).toHaveLength(1);
    await answer();
    expect(await stricter).toEqual({ id: 'a', state: 'stopped' });
    expect(snapshot.ageMs()).toBe(0);
  });

  it('lets every reader that needs a newer list share the one call in flight', async () => {
    const { cloud, calls, snapshot, confirm, answer } = fakeCloud();
    for (const id of ['a', 'b', 'c']) cloud.set(id, { id, state: 'provisioning' });
    const reads = ['a', 'b', 'c'].map((id) => snapshot.read(id, 2_000, confirm(id)));
    await settle();
    expect(calls).toHaveLength(1);
    await answer();
    expect((await Promise.all(reads)).map((thing) => thing?.id)).toEqual(['a', 'b', 'c']);
  });

  it('does not join a list in flight that started before the oldest time a reader accepts', async () => {
    const { clock, cloud, calls, snapshot, confirm, answer } = fakeCloud();
    cloud.set('a', { id: 'a', state: 'provisioning' });
    const early = snapshot.read('a', 60_000, confirm('a'));
    await settle();
    clock.advance(3_000);
    cloud.set('a', { id: 'a', state: 'running' });
    const late = snapshot.read('a', 1_000, confirm('a'));
    await answer([{ id: 'a', state: 'provisioning' }]);
    expect(await early).toEqual({ id: 'a', state: 'provisioning' });
    expect(calls).toHaveLength(1);
    await answer();
    expect(await late).toEqual({ id: 'a', state: 'running' });
  });

  it("sends the list a user's change needs as the change's own read, not behind a background list in flight", async () => {
    const { cloud, calls, snapshot, confirm, answer } = fakeCloud();
    cloud.set('a', { id: 'a', state: 'running' });
    const edit: CallOptions = { priority: 'user', sharer: 'team-a', object: 'Alert team-a/a' };
    // A drift check's list waits for the budget; the edit that needs a list meanwhile sends its own.
    const drift = snapshot.read('a', 1_000, confirm('a'), readsAs({ priority: 'poll', sharer: 'team-b' }));
    await settle();
    const edited = snapshot.read('a', 1_000, confirm('a'), readsAs(edit));
    // A second edit, and a background reader, share the edit's list rather than start one more.
    const second = snapshot.read('a', 1_000, confirm('a'), readsAs({ ...edit, object: 'Alert team-a/b' }));
    const background = snapshot.read('a', 1_000, confirm('a'));
    await settle();
    expect(calls.map((call) => call.call)).toEqual([{ priority: 'poll' }, edit]);

    calls.push(calls.shift()!); // the edit's list is answered first
    await answer();
    expect(await Promise.all([edited, second, background])).toEqual(
      Array(3).fill({ id: 'a', state: 'running' }),
    );
    await answer();
    expect(await drift).toEqual({ id: 'a', state: 'running' });
    expect(calls).toHaveLength(0);
  });

  it('replaces the entry with a whole answer of a write and keeps it over a list that started before the write', async () => {
    const { clock, cloud, gets, snapshot, confirm, answer, readListed } = fakeCloud();
    cloud.set('a', { id: 'a', state: 'running' });
    await readListed('a', 1_000);

    clock.advance(2_000);
    // A list starts, the write is answered while it is in flight, then the list answers what it saw before.
    const refresh = snapshot.refresh(0);
    await settle();
    clock.advance(10);
    snapshot.written('a', { id: 'a', state: 'stopping' });
    await answer([{ id: 'a', state: 'running' }]);
    await refresh;
    expect(await snapshot.read('a', 60_000, confirm('a'))).toEqual({ id: 'a', state: 'stopping' });
    expect(gets).toEqual([]);
  });

  it('marks an entry stale after a write without the whole object: the next read confirms by GET, never from the older list', async () => {
    const { clock, cloud, gets, snapshot, confirm, readListed } = fakeCloud();
    cloud.set('a', { id: 'a', state: 'running' });
    await readListed('a', 60_000);

    clock.advance(10);
    snapshot.written('a');
    cloud.set('a', { id: 'a', state: 'stopping' });
    expect(await snapshot.read('a', 60_000, confirm('a'))).toEqual({ id: 'a', state: 'stopping' });
    expect(gets).toEqual(['a']);
  });

  it('confirms an id missing from a fresh list with one GET before calling it gone', async () => {
    const { cloud, gets, snapshot, confirm, readListed } = fakeCloud();
    cloud.set('a', { id: 'a', state: 'running' });
    expect(await readListed('b', 1_000)).toBeUndefined();
    expect(gets).toEqual(['b']);
    // Confirmed gone: asking again while the list is fresh costs nothing.
    expect(await snapshot.read('b', 1_000, confirm('b'))).toBeUndefined();
    expect(gets).toEqual(['b']);

    // Created after the list started, so missing from it: the GET finds it and the snapshot keeps it.
    cloud.set('c', { id: 'c', state: 'provisioning' });
    expect(await snapshot.read('c', 1_000, confirm('c'))).toEqual({ id: 'c', state: 'provisioning' });
    expect(await snapshot.read('c', 1_000, confirm('c'))).toEqual({ id: 'c', state: 'provisioning' });
    expect(gets).toEqual(['b', 'c']);
  });

  it('reports the ids added, changed or removed since the previous list, and nothing unchanged', async () => {
    const { clock, cloud, changes, refreshed } = fakeCloud();
    cloud.set('a', { id: 'a', state: 'running' });
    cloud.set('b', { id: 'b', state: 'running' });
    await refreshed();
    // Nothing was known before the first list: nothing to report.
    expect(changes).toEqual([]);

    clock.advance(1_000);
    cloud.set('a', { id: 'a', state: 'stopped' });
    cloud.delete('b');
    cloud.set('c', { id: 'c', state: 'provisioning' });
    await refreshed();
    expect(changes).toEqual([['a', 'b', 'c']]);

    clock.advance(1_000);
    await refreshed();
    expect(changes).toHaveLength(1);
  });

  it('keeps the object it holds when a later list shows the entry unchanged, and takes the new one when it changed', async () => {
    const { clock, cloud, snapshot, confirm, answer, readListed } = fakeCloud();
    cloud.set('a', { id: 'a', state: 'running' });
    const held = await readListed('a', 1_000);

    clock.advance(2_000);
    const unchanged = snapshot.read('a', 1_000, confirm('a'));
    await answer();
    // The same object, known as of the later list: the listed copy is not kept.
    expect(await unchanged).toBe(held);
    expect(snapshot.ageMs()).toBe(0);

    clock.advance(2_000);
    cloud.set('a', { id: 'a', state: 'stopped' });
    expect(await readListed('a', 1_000)).toEqual({ id: 'a', state: 'stopped' });
  });

  it('keeps a written entry the list that started before the write lacks, and drops it once a later list lacks it too', async () => {
    const { clock, changes, snapshot, answer, refreshed } = fakeCloud();
    await refreshed([]);
    clock.advance(1_000);
    const racing = snapshot.refresh(0);
    await settle();
    clock.advance(5);
    snapshot.written('new', { id: 'new', state: 'provisioning' });
    await answer([]);
    await racing;
    expect(changes).toEqual([]);

    clock.advance(1_000);
    await refreshed([]);
    expect(changes).toEqual([['new']]);
  });

  it('hands a failed list to every reader sharing it, and lists again on the next read', async () => {
    const clock = new ManualClock();
    let fail = true;
    let lists = 0;
    const snapshot = new CloudSnapshot<Thing>(
      async () => {
        lists++;
        if (fail) throw new Error('429');
        return [{ id: 'a', state: 'running' }];
      },
      { clock },
    );
    const reads = [1, 2].map(() => snapshot.read('a', 1, async () => undefined));
    await expect(Promise.all(reads)).rejects.toThrow('429');
    expect(lists).toBe(1);
    fail = false;
    expect(await snapshot.read('a', 1, async () => undefined)).toEqual({ id: 'a', state: 'running' });
  });
});

describe('a read that accepts no snapshot', () => {
  it('is one GET of the object, never a list, and what it finds is kept', async () => {
    const clock = new ManualClock();
    let lists = 0;
    const snapshot = new CloudSnapshot<Thing>(
      async () => {
        lists++;
        return [{ id: 'a', state: 'running' }];
      },
      { clock },
    );
    let gets = 0;
    const found = await snapshot.read('a', 0, async () => (gets++, { id: 'a', state: 'stopped' }));
    expect(found).toEqual({ id: 'a', state: 'stopped' });
    expect([gets, lists]).toEqual([1, 0]);
  });
});

describe('sameValue', () => {
  it('compares as data, ignoring key order and undefined fields', () => {
    expect(sameValue({ a: 1, b: [1, { c: 2, d: undefined }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(sameValue({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameValue([1, 2], [2, 1])).toBe(false);
  });
});
