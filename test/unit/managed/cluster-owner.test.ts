import { describe, expect, it } from 'vitest';
import {
  judgeOwnership,
  ownerRecord,
  parseOwnerRecord,
  refusalMessage,
  type OwnedCandidate,
  type Owner,
} from '../../../src/managed/cluster-owner.ts';

const owner = (cluster: string, name = 'orders'): Owner => ({
  cluster,
  namespace: 'shop',
  kind: 'DatabaseService',
  name,
});
const candidate = (id: string, recorded: Owner): OwnedCandidate => ({ id, owner: recorded });
const unclaimed = () => undefined;

describe('owner records', () => {
  it('reads back what it writes', () => {
    expect(ownerRecord(owner('prod'))).toBe('prod/shop/DatabaseService/orders');
    expect(parseOwnerRecord('prod/shop/DatabaseService/orders')).toEqual(owner('prod'));
  });

  it('fits a tag value (256 characters) whatever the name, by a digest of a long name', () => {
    const long = owner('c'.repeat(63), 'n'.repeat(253));
    const record = ownerRecord(long);
    expect(record.length).toBeLessThanOrEqual(256);
    expect(record).toMatch(/\/DatabaseService\/sha256-[0-9a-f]{64}$/);
    expect(judgeOwnership(long, true, [candidate('a', parseOwnerRecord(record)!)], unclaimed)).toEqual({
      kind: 'takeBack',
      id: 'a',
      recordedAs: parseOwnerRecord(record),
    });
  });

  it('is no record when it is not four non-empty parts', () => {
    expect(parseOwnerRecord('a/b/c')).toBeUndefined();
    expect(parseOwnerRecord('a//c/d')).toBeUndefined();
    expect(parseOwnerRecord(undefined)).toBeUndefined();
  });
});

describe('judgeOwnership', () => {
  it('creates when nothing is recorded for the object', () => {
    const other = candidate('x', owner('prod', 'payments'));
    expect(judgeOwnership(owner('prod'), true, [other], unclaimed)).toEqual({ kind: 'create' });
  });

  it('takes back what its own cluster name recorded', () => {
    const verdict = judgeOwnership(owner('prod'), true, [candidate('a', owner('prod'))], unclaimed);
    expect(verdict).toMatchObject({ kind: 'takeBack', id: 'a' });
  });

  it('under an explicit name, leaves another cluster’s object alone and creates its own', () => {
    const verdict = judgeOwnership(owner('staging'), true, [candidate('a', owner('prod'))], unclaimed);
    expect(verdict).toEqual({ kind: 'create' });
  });

  it('under the derived name, refuses another cluster’s object of the same namespace, kind and name', () => {
    const verdict = judgeOwnership(owner('9f3c-uid'), false, [candidate('a', owner('prod'))], unclaimed);
    expect(verdict).toEqual({ kind: 'refuse', id: 'a', recordedAs: owner('prod') });
  });

  it('prefers its own record to another cluster’s, under the derived name too', () => {
    const candidates = [candidate('theirs', owner('prod')), candidate('mine', owner('9f3c-uid'))];
    expect(judgeOwnership(owner('9f3c-uid'), false, candidates, unclaimed)).toMatchObject({
      kind: 'takeBack',
      id: 'mine',
    });
  });

  it('never takes an id another object holds', () => {
    const claimed = (id: string) => (id === 'a' ? 'shop/other' : undefined);
    expect(judgeOwnership(owner('prod'), true, [candidate('a', owner('prod'))], claimed)).toEqual({
      kind: 'create',
    });
  });

  it('leaves two records of its own to the user', () => {
    const candidates = [candidate('a', owner('prod')), candidate('b', owner('prod'))];
    expect(judgeOwnership(owner('prod'), true, candidates, unclaimed)).toEqual({
      kind: 'ambiguous',
      ids: ['a', 'b'],
    });
  });

  it('names the cloud id, the recorded owner and every way forward when it refuses', () => {
    const message = refusalMessage(owner('9f3c-uid'), 'svc-1', owner('prod'));
    for (const part of [
      'svc-1',
      'cluster "prod"',
      '--cluster-name prod',
      'clusterName',
      'sluice.dev/owner-cluster: prod',
      'sluice.dev/external-id: svc-1',
      'another name',
    ]) {
      expect(message).toContain(part);
    }
  });
});
