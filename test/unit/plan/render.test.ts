import { describe, expect, it } from 'vitest';
import type { PlannedResource } from '../../../src/plan/planner.ts';
import { exitCodeOf, renderJson, renderText } from '../../../src/plan/render.ts';
import { plannedCall } from '../../../src/plan/sensitive.ts';

const SERVICE = '/v1/organizations/o-1/services/s-1';

const update: PlannedResource = {
  kind: 'DatabaseService',
  namespace: 'data',
  name: 'analytics',
  action: 'update',
  changed: ['name', 'state', 'ipAccessList', 'password'],
  changes: [
    { field: 'name', from: 'us', to: 'eu' },
    { field: 'state', from: 'Running', to: 'Stopped' },
    { field: 'ipAccessList', added: [{ source: '10.0.0.0/8' }], removed: [{ source: '0.0.0.0/0' }] },
    { field: 'password' },
  ],
  calls: [
    plannedCall({ api: 'management', route: '', method: 'PATCH', path: SERVICE, body: { name: 'eu' } }),
    plannedCall({
      api: 'management',
      route: '',
      method: 'PATCH',
      path: `${SERVICE}/state`,
      body: { command: 'stop' },
    }),
  ],
};
const none: PlannedResource = {
  kind: 'Alert',
  namespace: 'data',
  name: 'lag',
  action: 'none',
  changed: [],
  changes: [],
  calls: [],
};
const blocked: PlannedResource = {
  kind: 'Pipe',
  namespace: 'data',
  name: 'orders',
  action: 'blocked',
  changed: [],
  changes: [],
  calls: [],
  reason: 'DatabaseService analytics does not exist yet',
};
const create: PlannedResource = {
  kind: 'Pipe',
  namespace: 'data',
  name: 'events',
  action: 'create',
  changed: [],
  changes: [],
  calls: [
    plannedCall({
      api: 'management',
      route: '',
      method: 'POST',
      path: '/v1/organizations/o-1/services/%3Cid%20of%20DatabaseService%20data%2Freports%3E/clickpipes',
      body: { name: 'events', source: { kafka: { credentials: { username: 'u', password: 'p' } } } },
    }),
  ],
};

describe('plan as text', () => {
  const text = renderText([update, none, blocked, create]);

  it('writes one block per object headed by what happens to it', () => {
    expect(text).toContain(
      '~ DatabaseService data/analytics will be updated (name, state, ipAccessList, password)',
    );
    expect(text).toContain('= Alert data/lag: no change');
    expect(text).toContain('! Pipe data/orders is blocked\n    DatabaseService analytics does not exist yet');
    expect(text).toContain('+ Pipe data/events will be created');
  });

  it('lists each call with the fields it sets marked, and names state commands', () => {
    expect(text).toContain(`    PATCH ${SERVICE}\n      ~ name: "eu"`);
    expect(text).toContain(`    PATCH ${SERVICE}/state  (state command)\n      ~ command: "stop"`);
    expect(text).toContain('      + name: "events"');
  });

  it('shows each changed field as old → new, a list as the entries added and removed', () => {
    expect(text).toContain(
      [
        '    ~ name: "us" → "eu"',
        '    ~ state: "Running" → "Stopped"',
        '    ~ ipAccessList: + {"source":"10.0.0.0/8"} - {"source":"0.0.0.0/0"}',
        '    ~ password',
        `    PATCH ${SERVICE}`,
      ].join('\n'),
    );
  });

  it('shows an id not known yet by what it will be the id of', () => {
    expect(text).toContain('/services/<id of DatabaseService data/reports>/clickpipes');
  });

  it('shows credentials as a credentials change, never their values', () => {
    expect(text).toContain('(credentials change)');
    expect(text).toContain('+ source.kafka.credentials: "(sensitive)"');
    expect(text).not.toMatch(/"p"|"u"/);
  });

  it('ends with a summary of the plan', () => {
    expect(text.trimEnd().split('\n').at(-1)).toBe('Plan: 1 to create, 1 to update, 1 unchanged, 1 blocked.');
  });
});

describe('plan as JSON', () => {
  const json = JSON.parse(renderJson([update, none, blocked, create])) as {
    resources: Record<string, unknown>[];
  };

  it('has one resource per object with kind, namespace, name, action, calls and reason', () => {
    expect(json.resources[0]).toEqual({
      kind: 'DatabaseService',
      namespace: 'data',
      name: 'analytics',
      action: 'update',
      calls: [
        { method: 'PATCH', path: SERVICE, body: { name: 'eu' } },
        { method: 'PATCH', path: `${SERVICE}/state`, body: { command: 'stop' } },
      ],
      // The changes as planned, values and all (a password's never had one).
      changed: update.changed,
      changes: update.changes,
      reason: null,
    });
    expect(json.resources[2]).toMatchObject({ action: 'blocked', calls: [], reason: blocked.reason });
  });

  it('masks credentials in bodies and marks the call as sending credentials', () => {
    expect(json.resources[3]!.calls).toEqual([
      {
        method: 'POST',
        path: '/v1/organizations/o-1/services/<id of DatabaseService data/reports>/clickpipes',
        body: { name: 'events', source: { kafka: { credentials: '(sensitive)' } } },
        credentials: true,
      },
    ]);
  });
});

describe('sensitive values in calls', () => {
  it('masks password hashes and any value of a referenced Secret, wherever it is', () => {
    const call = plannedCall(
      {
        api: 'management',
        route: '',
        method: 'PATCH',
        path: `${SERVICE}/password`,
        body: { newPasswordHash: 'aGFzaA==', newDoubleSha1Hash: 'ab12', note: 's3cret-value' },
      },
      ['s3cret-value'],
    );
    expect(call).toEqual({
      method: 'PATCH',
      path: `${SERVICE}/password`,
      body: { newPasswordHash: '(sensitive)', newDoubleSha1Hash: '(sensitive)', note: '(sensitive)' },
      credentials: true,
    });
  });

  it('leaves a body without secrets as it is', () => {
    const body = { name: 'x', ipAccessList: { add: [{ source: '10.0.0.0/8' }] } };
    const call = plannedCall({ api: 'management', route: '', method: 'PATCH', path: SERVICE, body }, []);
    expect(call).toEqual({ method: 'PATCH', path: SERVICE, body, credentials: false });
  });
});

describe('plan exit status', () => {
  it('is 0 when nothing changes, 2 when anything would change or is blocked, 1 when planning failed', () => {
    expect(exitCodeOf([none])).toBe(0);
    expect(exitCodeOf([none, update])).toBe(2);
    expect(exitCodeOf([none, blocked])).toBe(2);
    expect(exitCodeOf([update, { ...none, action: 'error', reason: 'cloud answered 500' }])).toBe(1);
  });
});
