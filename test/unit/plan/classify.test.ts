import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/cloud/errors.ts';
import { ReconcileError, type ManagedObject, type ManagedStatus } from '../../../src/managed/index.ts';
import type { DryReconcile } from '../../../src/plan/dry-run.ts';
import { classify } from '../../../src/plan/planner.ts';

const object = (spec: Record<string, unknown> = {}): ManagedObject => ({
  apiVersion: 'sluice.dev/v1alpha1',
  kind: 'DatabaseService',
  metadata: { name: 'analytics', namespace: 'data', uid: 'u-1' },
  spec,
});
const ready = (status: string, reason: string, message = ''): ManagedStatus => ({
  conditions: [{ type: 'Ready', status, reason, message } as never],
});
const dry = (result: Partial<DryReconcile>): DryReconcile => ({
  writes: [],
  created: false,
  differences: [],
  changes: [],
  status: undefined,
  ...result,
});
const PATCH = { api: 'management', method: 'PATCH', path: '/v1/s/1', route: '', body: { name: 'eu' } };

describe('what a dry reconcile says the operator would do', () => {
  it('is an update when the kind sent calls, with the fields that differ', () => {
    const planned = classify(object(), dry({ writes: [PATCH], differences: ['name'] }));
    expect(planned).toMatchObject({ action: 'update', changed: ['name'], calls: [{ method: 'PATCH' }] });
  });

  it("carries each difference's old and new value, and the name alone where the kind knows no values", () => {
    const planned = classify(
      object(),
      dry({
        writes: [PATCH],
        differences: ['name', 'password'],
        changes: [{ field: 'name', from: 'us', to: 'eu' }],
      }),
    );
    expect(planned.changes).toEqual([{ field: 'name', from: 'us', to: 'eu' }, { field: 'password' }]);
  });

  it('never shows the value of a field named like a secret, nor any value of a referenced Secret', () => {
    const planned = classify(
      object(),
      dry({
        writes: [PATCH],
        differences: ['source.kafka.credentials', 'note'],
        changes: [
          { field: 'source.kafka.credentials', from: 'old', to: 'new' },
          { field: 'note', from: 'plain', to: 's3cret' },
        ],
      }),
      ['s3cret'],
    );
    expect(planned.changes).toEqual([
      { field: 'source.kafka.credentials' },
      { field: 'note', from: 'plain', to: '(sensitive)' },
    ]);
  });

  it('is a create when the kind created, whatever else it recorded', () => {
    const post = { ...PATCH, method: 'POST' };
    expect(classify(object(), dry({ writes: [post], created: true }))).toMatchObject({
      action: 'create',
      calls: [{ method: 'POST' }],
    });
  });

  it('is blocked by a reference or claim that waits for someone else, with the reason', () => {
    const status = ready('False', 'WaitingForReference', 'DatabaseService x does not exist yet');
    expect(classify(object(), dry({ status }))).toMatchObject({
      action: 'blocked',
      reason: 'DatabaseService x does not exist yet',
    });
    const claimed = ready('False', 'AlreadyManaged', 'DatabaseService data/other already manages s-1');
    expect(classify(object(), dry({ status: claimed })).action).toBe('blocked');
  });

  it('is blocked by a failure only the user can end, naming its reason', () => {
    const error = new ReconcileError('SecretMissing', 'Secret data/pw not found', 60_000);
    const status: ManagedStatus = {
      conditions: [
        {
          type: 'Synced',
          status: 'False',
          reason: 'SecretMissing',
          message: 'Secret data/pw not found',
        } as never,
      ],
    };
    expect(classify(object(), dry({ error, status }))).toMatchObject({
      action: 'blocked',
      reason: 'SecretMissing: Secret data/pw not found',
    });
  });

  it('is an error when the cloud could not be read', () => {
    expect(classify(object(), dry({ error: new Error('socket hang up') }))).toMatchObject({
      action: 'error',
      reason: 'socket hang up',
    });
  });

  it('is an error, not blocked, when there are no credentials or the cloud refuses them: the plan failed', () => {
    const missing = new ReconcileError('CredentialsMissing', 'Secret data/cloud not found', 60_000);
    expect(classify(object(), dry({ error: missing }))).toMatchObject({
      action: 'error',
      reason: 'CredentialsMissing: Secret data/cloud not found',
    });
    for (const status of [401, 403]) {
      const refused = new ApiError({
        api: 'management',
        method: 'GET',
        route: '/v1/organizations/:org/services',
        path: '/v1/organizations/o/services',
        attempts: 1,
        retryable: false,
        mayHaveSucceeded: false,
        status,
        code: 'UNAUTHORIZED',
        apiMessage: 'invalid key',
      });
      const wrapped = new ReconcileError('CloudRequestRejected', refused.message, 10_000, { cause: refused });
      expect(classify(object(), dry({ error: wrapped }))).toMatchObject({
        action: 'error',
        reason: expect.stringContaining(
          `${status} UNAUTHORIZED: invalid key (the cloud refused the credentials`,
        ),
      });
    }
  });

  it('is none while the cloud is still moving, saying what it waits for', () => {
    const status = ready('False', 'Unavailable', 'service is provisioning');
    expect(classify(object(), dry({ status }))).toMatchObject({
      action: 'none',
      reason: 'service is provisioning',
    });
  });

  it('is none for an Observe object, listing what Full would send, and blocked without an id', () => {
    const observed = object({ managementPolicy: 'Observe' });
    const status: ManagedStatus = {
      ...ready('False', 'ObserveOnly', 'observed only'),
      pendingChanges: [{ method: 'PATCH', path: '/v1/s/1', fields: ['name'] }],
    };
    expect(classify(observed, dry({ writes: [PATCH], status }))).toEqual({
      kind: 'DatabaseService',
      namespace: 'data',
      name: 'analytics',
      action: 'none',
      calls: [],
      changed: [],
      changes: [],
      reason: 'managementPolicy Observe sends nothing; Full would send PATCH /v1/s/1 (name)',
    });
    const nothing = ready('False', 'NothingToObserve', 'managementPolicy Observe never creates');
    expect(classify(observed, dry({ status: nothing })).action).toBe('blocked');
  });
});
