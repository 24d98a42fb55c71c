import { describe, expect, it } from 'vitest';
import { ManagementClient } from '../../../src/cloud/management-client.ts';
import { WriteRecorder } from '../../../src/base/recorded-writes.ts';
import {
  describePendingChange,
  fieldNames,
  pendingChangeOf,
  reportObserved,
} from '../../../src/managed/observe-only.ts';
import { STATUS_BOUNDS } from '../../../src/managed/status-bounds.ts';
import { StatusDraft } from '../../../src/managed/status-draft.ts';
import type { ManagedObject } from '../../../src/managed/types.ts';

const SERVICE_PATH = '/v1/organizations/org-1/services/s-1';
/** The pending change a PATCH of the service with `body` shows in status. */
const servicePatchOf = (body: Record<string, unknown>) =>
  pendingChangeOf({ api: 'management', method: 'PATCH', path: SERVICE_PATH, route: '', body });

const resource = (): ManagedObject => ({
  apiVersion: 'sluice.dev/v1alpha1',
  kind: 'DatabaseService',
  metadata: { name: 'orders', namespace: 'shop', uid: 'u-1', generation: 2 },
  spec: { managementPolicy: 'Observe' },
  status: { id: 's-1', pendingChanges: [{ method: 'PATCH', path: SERVICE_PATH, fields: ['name'] }] },
});

const draftOf = () => new StatusDraft(resource(), () => new Date('2030-01-01T00:00:00Z'));

describe('pending calls as status shows them', () => {
  it('lists at most the status bound of fields, each cut to the bound, so the status write is accepted', () => {
    const body = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`${'f'.repeat(300)}${i}`, i]));
    const change = servicePatchOf(body);
    expect(change.fields).toHaveLength(STATUS_BOUNDS.pendingChangeFields);
    expect(Math.max(...change.fields.map((f) => f.length))).toBe(STATUS_BOUNDS.fieldName);
  });

  it('names the leaves of a body by dotted path and never carries a value', () => {
    const body = {
      name: 'orders',
      ipAccessList: { add: [{ source: '10.0.0.0/8' }], remove: [] },
      password: 's3cret',
    };
    const change = servicePatchOf(body);
    expect(change).toEqual({
      method: 'PATCH',
      path: SERVICE_PATH,
      fields: ['name', 'ipAccessList.add', 'ipAccessList.remove', 'password'],
    });
    expect(JSON.stringify(change)).not.toContain('s3cret');
    expect(JSON.stringify(change)).not.toContain('10.0.0.0');
  });

  it('a call without a body, or with an empty one, sets no field', () => {
    expect(fieldNames(undefined)).toEqual([]);
    expect(fieldNames({})).toEqual([]);
    expect(fieldNames({ settings: {} })).toEqual(['settings']);
  });

  it('reads as one line: method, path and the fields in parentheses', () => {
    expect(
      describePendingChange({ method: 'PATCH', path: SERVICE_PATH, fields: ['name', 'idleScaling'] }),
    ).toBe(`PATCH ${SERVICE_PATH} (name, idleScaling)`);
    expect(describePendingChange({ method: 'DELETE', path: SERVICE_PATH, fields: [] })).toBe(
      `DELETE ${SERVICE_PATH}`,
    );
  });

  it('a cloud that differs: Ready False ObserveOnly naming the differences and every call Full would send', () => {
    const draft = draftOf();
    const writes = [
      { api: 'management' as const, method: 'PATCH', path: SERVICE_PATH, route: '', body: { name: 'x' } },
      {
        api: 'management' as const,
        method: 'PATCH',
        path: `${SERVICE_PATH}/state`,
        route: '',
        body: { command: 'stop' },
      },
    ];
    draft.apply(reportObserved(['name', 'state'], writes, undefined));
    expect(draft.status.pendingChanges).toEqual([
      { method: 'PATCH', path: SERVICE_PATH, fields: ['name'] },
      { method: 'PATCH', path: `${SERVICE_PATH}/state`, fields: ['command'] },
    ]);
    const ready = draft.condition('Ready')!;
    expect([ready.status, ready.reason]).toEqual(['False', 'ObserveOnly']);
    expect(ready.message).toBe(
      `observed only: the cloud differs in name, state; managementPolicy Full would send PATCH ${SERVICE_PATH} (name); PATCH ${SERVICE_PATH}/state (command)`,
    );
    expect(ready.message).not.toContain('stop');
  });

  it('a cloud that matches: Ready True ObserveOnly, and the pending calls of before are gone', () => {
    const draft = draftOf();
    draft.apply(reportObserved([], [], undefined));
    expect(draft.status.pendingChanges).toBeUndefined();
    expect(draft.condition('Ready')).toMatchObject({ status: 'True', reason: 'ObserveOnly' });
  });

  it('what Full would do beyond its calls (a refusal, an annotation acted on) is not Ready, and said after the calls', () => {
    const draft = draftOf();
    draft.apply(reportObserved([], [], undefined, ['sluice.dev/reset-password asks for a password reset']));
    expect(draft.condition('Ready')).toMatchObject({
      status: 'False',
      reason: 'ObserveOnly',
      message:
        'observed only: the cloud differs in nothing sluice compares; managementPolicy Full would send no call; ' +
        'sluice.dev/reset-password asks for a password reset',
    });
  });

  it('a cloud that matches but is not usable yet: Ready False ObserveOnly saying what it waits for', () => {
    const draft = draftOf();
    draft.apply(reportObserved([], [], 'service is provisioning'));
    expect(draft.condition('Ready')).toMatchObject({
      status: 'False',
      reason: 'ObserveOnly',
      message: 'observed only: the cloud matches the spec, but service is provisioning',
    });
  });
});

describe('clients that record writes', () => {
  it('keep every write with its method, path and body, send none, and answer without the network', async () => {
    // Nothing listens on port 9: a request that left would fail.
    const client = new ManagementClient(
      { baseUrl: 'http://127.0.0.1:9', organizationId: 'org-1', keyId: 'k', keySecret: 'secret' },
      { quota: false, retry: { maxAttempts: 1 } },
    );
    const recorder = new WriteRecorder();
    const recording = client.withWritesRecorded(recorder);
    await recording.updateService('s-1', { name: 'renamed' });
    await recording.changeServiceState('s-1', 'stop');
    expect(recorder.writes).toEqual([
      {
        api: 'management',
        method: 'PATCH',
        path: SERVICE_PATH,
        route: '/v1/organizations/:organizationId/services/:serviceId',
        body: { name: 'renamed' },
      },
      {
        api: 'management',
        method: 'PATCH',
        path: `${SERVICE_PATH}/state`,
        route: '/v1/organizations/:organizationId/services/:serviceId/state',
        body: { command: 'stop' },
      },
    ]);
    expect(recording.organizationId).toBe('org-1');
    // Reads still go to the cloud (here: to nothing, so they fail).
    await expect(recording.getService('s-1')).rejects.toThrow();
    await client.close();
  });
});
