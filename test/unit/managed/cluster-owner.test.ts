import { describe, expect, it } from 'vitest';
import type { ManagedObject } from '../../../src/managed/managed-object.ts';
import {
  judgeOwnership,
  mayActAs,
  ownerClusterProblem,
  type ClusterIdentity,
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

  it('names the cloud id, the recorded owner and the ways forward when it refuses, none of them an annotation', () => {
    const message = refusalMessage(owner('9f3c-uid'), 'svc-1', owner('prod'));
    for (const part of ['svc-1', 'cluster "prod"', '--cluster-name prod', 'clusterName', 'another name']) {
      expect(message).toContain(part);
    }
    expect(message).not.toContain('sluice.dev/');
  });

  it('never fails on what a record read from the cloud holds, nor on an owner that is no cluster name', () => {
    const odd = [owner('a/b'), owner('Prod_EU'), owner('x'.repeat(70))];
    const records = ['a/b/shop/DatabaseService/orders', 'Prod_EU/shop/DatabaseService/orders', '/', ''];
    const candidates = records
      .map((text, i) => ({ id: `c${i}`, owner: parseOwnerRecord(text) }))
      .filter((c): c is OwnedCandidate => c.owner !== undefined);
    for (const mine of odd) {
      expect(() => judgeOwnership(mine, false, candidates, unclaimed)).not.toThrow();
    }
    expect(judgeOwnership(owner('dev'), false, candidates, unclaimed)).toMatchObject({
      kind: 'refuse',
      recordedAs: { cluster: 'Prod_EU' },
    });
  });
});

describe('acting under another cluster’s name', () => {
  const annotated = (value: string | undefined) =>
    ({
      metadata: {
        name: 'orders',
        namespace: 'shop',
        uid: 'u',
        ...(value === undefined ? {} : { annotations: { 'sluice.dev/owner-cluster': value } }),
      },
    }) as unknown as ManagedObject;
  const dev: ClusterIdentity = { name: 'dev', explicit: true, takeOverFrom: ['staging'] };

  it('is allowed under the operator’s own name and the clusters its administrator named only', () => {
    expect(ownerClusterProblem(annotated(undefined), dev)).toBeUndefined();
    expect(ownerClusterProblem(annotated('dev'), dev)).toBeUndefined();
    expect(ownerClusterProblem(annotated('staging'), dev)).toBeUndefined();
    expect(ownerClusterProblem(annotated('prod'), dev)).toMatchObject({ reason: 'OwnerClusterNotAllowed' });
    expect(mayActAs(dev, 'prod')).toBe(false);
  });

  it('refuses a value that is no cluster name, naming the annotation', () => {
    for (const value of ['a/b', 'x'.repeat(70), 'Prod_EU', '']) {
      const problem = ownerClusterProblem(annotated(value), dev);
      expect(problem?.reason, value).toBe('InvalidAnnotation');
      expect(problem?.message).toContain('annotation sluice.dev/owner-cluster');
    }
  });
});
