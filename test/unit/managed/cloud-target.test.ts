import { describe, expect, it } from 'vitest';
import {
  decideTarget,
  type TargetDecision,
  type TargetFacts,
  type TargetRead,
} from '../../../src/managed/cloud-target.ts';
import { REASON } from '../../../src/base/reasons.ts';
import { Waiting } from '../../../src/managed/errors.ts';
import type { ManagedObject } from '../../../src/managed/index.ts';

const resource = (annotations: Record<string, string> = {}) =>
  ({
    metadata: { name: 'orders', namespace: 'team', uid: 'u', annotations },
    spec: {},
  }) as ManagedObject;

/** An object of a derived cluster name `prod`, with an id in status, naming no plain id. */
const facts = (overrides: Partial<TargetFacts> = {}): TargetFacts => ({
  kind: 'DatabaseService',
  resource: resource(),
  cluster: { name: 'prod', explicit: false },
  id: 'svc-1',
  adopting: false,
  namesPlainIds: false,
  waiting: undefined,
  lookUpDue: false,
  createStatusFields: [],
  ...overrides,
});

/**
 * Decides with `reads` answering the reads the decision asks for, in the order asked: the decision and the
 * reads it asked for.
 */
function decideReading(
  start: TargetFacts,
  reads: Partial<Pick<TargetFacts, TargetRead>> = {},
): { decision: TargetDecision; asked: TargetRead[] } {
  const asked: TargetRead[] = [];
  let known = start;
  let decision = decideTarget(known);
  while ('read' in decision) {
    const read = decision.read;
    if (asked.includes(read)) throw new Error(`${read} asked for twice`);
    if (!(read in reads)) throw new Error(`${read} asked for, and the test gives no answer`);
    asked.push(read);
    known = { ...known, [read]: reads[read] };
    decision = decideTarget(known);
  }
  return { decision, asked };
}

const prodOwner = { cluster: 'prod', namespace: 'team', kind: 'DatabaseService', name: 'orders' };

describe('deciding which cloud object a reconcile acts on', () => {
  it('acts on the id in status with no cloud read when the object names no plain id', () => {
    const { decision, asked } = decideReading(facts());
    expect(asked).toEqual([]);
    expect(decision).toEqual({ id: 'svc-1', found: [{ removed: ['Granted'] }] });
  });

  it('refuses an id to adopt that another cluster recorded, and reads nothing after that record', () => {
    const adopting = facts({ id: 'svc-9', adopting: true, namesPlainIds: true });
    const elsewhere = { ...prodOwner, cluster: 'staging' };
    const { decision, asked } = decideReading(adopting, { recordedOwner: { owner: elsewhere } });
    expect(asked).toEqual(['recordedOwner']);
    expect(decision).toMatchObject({ on: 'object', found: [] });
    const { wait } = decision as { wait: Waiting };
    expect(wait.reason).toBe('OwnedByAnotherCluster');
    expect(wait.message).toMatch(/svc-9 is recorded in the cloud for team\/orders under cluster "staging"/);
  });

  it('adopts an id its own cluster or a cluster it may take over from recorded, once its plain ids may reach it', () => {
    const adopting = facts({
      id: 'svc-9',
      adopting: true,
      namesPlainIds: true,
      cluster: { name: 'prod', explicit: true, takeOverFrom: ['old'] },
    });
    const { decision, asked } = decideReading(adopting, {
      recordedOwner: { owner: { ...prodOwner, cluster: 'old' } },
      idAccess: { refused: undefined },
    });
    expect(asked).toEqual(['recordedOwner', 'idAccess']);
    expect(decision).toEqual({ id: 'svc-9', found: [{ removed: ['Granted'] }] });
  });

  it('refuses a plain id not granted to an object that is not attached yet, and sends nothing', () => {
    const refused = {
      reason: REASON.ExternalIdNotAllowed,
      message: 'svc-2 belongs to another namespace: nothing is sent',
    };
    const start = facts({ id: undefined, namesPlainIds: true, lookUpDue: true });
    const { decision, asked } = decideReading(start, { idAccess: { refused } });
    expect(asked).toEqual(['idAccess']);
    expect(decision).toMatchObject({ on: 'object', found: [] });
    expect((decision as { wait: Waiting }).wait).toMatchObject(refused);
  });

  it('keeps an attached object working when its grant is withdrawn, and says so in a Granted condition', () => {
    const refused = {
      reason: REASON.ExternalIdNotAllowed,
      message: 'svc-2 belongs to another namespace: nothing is sent',
    };
    const { decision } = decideReading(facts({ namesPlainIds: true }), { idAccess: { refused } });
    expect(decision).toEqual({
      id: 'svc-1',
      found: [
        {
          conditions: [
            {
              type: 'Granted',
              status: 'False',
              reason: 'GrantWithdrawn',
              message:
                'svc-2 belongs to another namespace; this object already uses it and keeps working, but nothing new may be attached',
            },
          ],
        },
      ],
    });
  });

  it('waits for what the connection said it waits for before looking up or creating anything', () => {
    const waiting = new Waiting('WaitingForReference', 'waiting for its tile');
    const { decision, asked } = decideReading(facts({ id: undefined, lookUpDue: true, waiting }));
    expect(asked).toEqual([]);
    expect(decision).toEqual({ wait: waiting, on: 'cloud', found: [{ removed: ['Granted'] }] });
  });

  it('creates without a look-up while the last look-up found nothing and no create was sent since', () => {
    const { decision, asked } = decideReading(facts({ id: undefined, lookUpDue: false }));
    expect(asked).toEqual([]);
    expect(decision).toEqual({ create: true, found: [{ removed: ['Granted'] }] });
  });

  it("adopts a lost create's object with what the create settled, without asking what else the cloud records", () => {
    const settled = { 'sluice.dev/create-status': JSON.stringify({ endpoint: 'db.example' }) };
    const start = facts({
      id: undefined,
      lookUpDue: true,
      resource: resource(settled),
      createStatusFields: ['endpoint'],
    });
    const { decision, asked } = decideReading(start, { lostCreate: { id: 'svc-7' } });
    expect(asked).toEqual(['lostCreate']);
    expect(decision).toEqual({
      id: 'svc-7',
      found: [{ removed: ['Granted'] }, { set: { endpoint: 'db.example' } }],
      adopted: 'adopted DatabaseService svc-7, created earlier for this resource',
    });
  });

  describe('when no lost create is found, by what the cloud records for the object', () => {
    const noId = facts({ id: undefined, lookUpDue: true });
    const decideWith = (candidates: { id: string; owner: typeof prodOwner }[], claimed = new Map()) =>
      decideReading(noId, {
        lostCreate: { id: undefined },
        ownership: { candidates, claimedBy: claimed },
      });

    it('takes back its own cluster’s record, marked adopted', () => {
      const { decision, asked } = decideWith([{ id: 'svc-3', owner: prodOwner }]);
      expect(asked).toEqual(['lostCreate', 'ownership']);
      expect(decision).toEqual({
        id: 'svc-3',
        found: [{ removed: ['Granted'] }, { set: { adopted: true } }],
        adopted:
          'adopted DatabaseService svc-3, recorded in the cloud for this resource under cluster "prod"',
      });
    });

    it('creates rather than take a record another object of the cluster holds', () => {
      const { decision } = decideWith(
        [{ id: 'svc-3', owner: prodOwner }],
        new Map([['svc-3', 'team/other']]),
      );
      expect(decision).toEqual({ create: true, found: [{ removed: ['Granted'] }] });
    });

    it('refuses, under a derived cluster name, a record of another cluster for the same object', () => {
      const { decision } = decideWith([{ id: 'svc-4', owner: { ...prodOwner, cluster: 'blue' } }]);
      expect(decision).toMatchObject({ on: 'object', found: [{ removed: ['Granted'] }] });
      const { wait } = decision as { wait: Waiting };
      expect(wait.reason).toBe('OwnedByAnotherCluster');
      expect(wait.message).toMatch(/svc-4 in the cloud is recorded for team\/orders under cluster "blue"/);
    });

    it('fails for a person to choose when two records of its own cluster match', () => {
      const { decision } = decideWith([
        { id: 'svc-5', owner: prodOwner },
        { id: 'svc-6', owner: prodOwner },
      ]);
      expect(decision).toMatchObject({
        fail: {
          reason: 'AmbiguousAdoption',
          message: expect.stringContaining('2 cloud objects are recorded for this resource (svc-5, svc-6)'),
        },
        found: [{ removed: ['Granted'] }],
      });
    });

    it('creates when nothing is recorded for the object', () => {
      const { decision } = decideWith([]);
      expect(decision).toEqual({ create: true, found: [{ removed: ['Granted'] }] });
    });
  });
});
