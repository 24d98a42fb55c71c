import { describe, expect, it } from 'vitest';
import type { DatabaseServiceSpec } from '../../../../src/kinds/database-service/schema.ts';
import type { Service } from '../../../../src/cloud/schemas/service.ts';
import { availability, diffService } from '../../../../src/kinds/database-service/mapping.ts';
import { OWNER_TAG, UID_TAG } from '../../../../src/kinds/shared/service-tags.ts';

/** The owner record of the object (the value of its owner tag). */
const uid = 'prod/default/DatabaseService/analytics';
const spec = (extra: Partial<DatabaseServiceSpec> = {}): DatabaseServiceSpec => ({
  name: 'analytics',
  provider: 'aws',
  region: 'us-east-1',
  state: 'Running',
  deletionPolicy: 'Orphan',
  ...extra,
});
const service = (extra: Partial<Service> = {}): Service => ({
  id: 'svc-1',
  name: 'analytics',
  state: 'running',
  ipAccessList: [],
  tags: [{ key: OWNER_TAG, value: uid }],
  endpoints: [{ protocol: 'https', host: 'h', port: 8443 }],
  ...extra,
});

describe('diffService', () => {
  it('sends nothing when the cloud matches the spec', () => {
    expect(diffService(spec(), uid, service())).toEqual({ patch: {}, differences: [] });
  });

  it('sends only the name when only the name changed', () => {
    const diff = diffService(spec({ name: 'renamed' }), uid, service());
    expect(diff.patch).toEqual({ name: 'renamed' });
    expect(diff.differences).toEqual(['name']);
  });

  it('edits the IP access list with add/remove against what the cloud reports', () => {
    const diff = diffService(
      spec({ ipAccessList: [{ source: '10.0.0.0/8' }, { source: '192.168.1.1', description: 'office' }] }),
      uid,
      service({ ipAccessList: [{ source: '10.0.0.0/8' }, { source: '0.0.0.0/0', description: 'anywhere' }] }),
    );
    expect(diff.patch).toEqual({
      ipAccessList: {
        add: [{ source: '192.168.1.1', description: 'office' }],
        remove: [{ source: '0.0.0.0/0', description: 'anywhere' }],
      },
    });
  });

  it('replaces an entry whose description changed (entries are identified by their whole value)', () => {
    const diff = diffService(
      spec({ ipAccessList: [{ source: '10.0.0.0/8', description: 'new' }] }),
      uid,
      service({ ipAccessList: [{ source: '10.0.0.0/8', description: 'old' }] }),
    );
    expect(diff.patch.ipAccessList).toEqual({
      add: [{ source: '10.0.0.0/8', description: 'new' }],
      remove: [{ source: '10.0.0.0/8', description: 'old' }],
    });
  });

  it('leaves a list alone that the spec does not manage', () => {
    expect(diffService(spec(), uid, service({ ipAccessList: [{ source: '1.2.3.4' }] })).patch).toEqual({});
  });

  it('keeps the sluice owner tag and edits only user tags', () => {
    const diff = diffService(spec({ tags: [{ key: 'team', value: 'data' }] }), uid, service());
    expect(diff.patch).toEqual({ tags: { add: [{ key: 'team', value: 'data' }] } });
  });

  it('leaves the cloud’s tags alone when the spec has none, adding only the owner tag if missing', () => {
    const own = [{ key: 'team', value: 'data' }];
    expect(
      diffService(spec(), uid, service({ tags: [...own, { key: OWNER_TAG, value: uid }] })).patch,
    ).toEqual({});
    expect(diffService(spec(), uid, service({ tags: own })).patch).toEqual({
      tags: { add: [{ key: OWNER_TAG, value: uid }] },
    });
  });

  it('replaces an earlier version’s uid tag by the owner tag in one tag edit', () => {
    const diff = diffService(spec(), uid, service({ tags: [{ key: UID_TAG, value: 'old-uid' }] }));
    expect(diff.patch).toEqual({
      tags: { add: [{ key: OWNER_TAG, value: uid }], remove: [{ key: UID_TAG, value: 'old-uid' }] },
    });
    expect(diff.differences).toEqual(['tags']);
    // Nobody asked for it: the PATCH waits behind users' changes.
    expect(diff.ownerRecordOnly).toBe(true);
  });

  it('is no owner-record-only PATCH when a user tag or another field changes too', () => {
    const old = service({ tags: [{ key: UID_TAG, value: 'old-uid' }] });
    expect(diffService(spec({ tags: [{ key: 'team', value: 'data' }] }), uid, old).ownerRecordOnly).toBe(
      undefined,
    );
    expect(diffService(spec({ name: 'renamed' }), uid, old).ownerRecordOnly).toBeUndefined();
  });

  it('moves the owner tag to a new cluster name in one tag edit', () => {
    const moved = 'staging/default/DatabaseService/analytics';
    expect(diffService(spec(), moved, service()).patch).toEqual({
      tags: { add: [{ key: OWNER_TAG, value: moved }], remove: [{ key: OWNER_TAG, value: uid }] },
    });
  });

  it('adds no uid tag to an adopted service (no uid given), and edits tags only when the spec has them', () => {
    const own = [{ key: 'team', value: 'data' }];
    expect(diffService(spec(), undefined, service({ tags: own })).patch).toEqual({});
    const retagged = diffService(
      spec({ tags: [{ key: 'team', value: 'ml' }] }),
      undefined,
      service({ tags: own }),
    );
    expect(retagged.patch).toEqual({ tags: { add: [{ key: 'team', value: 'ml' }], remove: own } });
  });

  it('never removes an owner record from a service adopted by id (sluice wrote none there)', () => {
    const recorded = [{ key: OWNER_TAG, value: 'other/shop/DatabaseService/orders' }];
    const team = [{ key: 'team', value: 'data' }];
    expect(
      diffService(spec({ tags: team }), undefined, service({ tags: [...team, ...recorded] })).patch,
    ).toEqual({});
    const retagged = diffService(spec({ tags: [] }), undefined, service({ tags: [...team, ...recorded] }));
    expect(retagged.patch).toEqual({ tags: { remove: team } });
  });

  it('enables the mysql endpoint only when the cloud lacks it', () => {
    const wanted = spec({ endpoints: [{ protocol: 'mysql', enabled: true }] });
    expect(diffService(wanted, uid, service()).patch).toEqual({
      endpoints: [{ protocol: 'mysql', enabled: true }],
    });
    const withMysql = service({ endpoints: [{ protocol: 'mysql', host: 'h', port: 3306 }] });
    expect(diffService(wanted, uid, withMysql).patch).toEqual({});
  });

  it('rotates the TDE key when the spec names another key id', () => {
    const diff = diffService(
      spec({ transparentDataEncryptionKeyId: 'k2' }),
      uid,
      service({ transparentDataEncryptionKeyId: 'k1' }),
    );
    expect(diff.patch).toEqual({ transparentDataEncryptionKeyId: 'k2' });
  });

  it('stops a running service whose desired state is Stopped, with no PATCH body', () => {
    expect(diffService(spec({ state: 'Stopped' }), uid, service())).toEqual({
      patch: {},
      command: 'stop',
      differences: ['state'],
    });
  });

  it('starts a stopped service, but waits while it is still stopping', () => {
    expect(diffService(spec(), uid, service({ state: 'stopped' })).command).toBe('start');
    expect(diffService(spec(), uid, service({ state: 'stopping' })).command).toBeUndefined();
  });

  const sized = {
    minReplicaMemoryGb: 16,
    maxReplicaMemoryGb: 32,
    numReplicas: 3,
    idleScaling: true,
    idleTimeoutMinutes: 15,
  };

  it('resizes with a replicaScaling body of only the sizing fields that differ, apart from the PATCH', () => {
    const diff = diffService(
      spec({ ...sized, name: 'renamed', maxReplicaMemoryGb: 64, idleScaling: false }),
      uid,
      service(sized),
    );
    expect(diff).toEqual({
      patch: { name: 'renamed' },
      replicaScaling: { maxReplicaMemoryGb: 64, idleScaling: false },
      differences: ['name', 'maxReplicaMemoryGb', 'idleScaling'],
    });
  });

  it('sends no replicaScaling when the sizing matches or the spec leaves it to the cloud', () => {
    expect(diffService(spec(sized), uid, service(sized))).toEqual({ patch: {}, differences: [] });
    expect(diffService(spec(), uid, service(sized))).toEqual({ patch: {}, differences: [] });
  });

  const horizontal = {
    autoscalingMode: 'horizontal' as const,
    minReplicas: 2,
    maxReplicas: 6,
    minReplicaMemoryGb: 16,
    maxReplicaMemoryGb: 16,
  };

  it('switches a vertical service to horizontal with the mode, the range and the size that differs', () => {
    const diff = diffService(spec(horizontal), uid, service({ ...sized, autoscalingMode: 'vertical' }));
    expect(diff.replicaScaling).toEqual({
      autoscalingMode: 'horizontal',
      minReplicas: 2,
      maxReplicas: 6,
      maxReplicaMemoryGb: 16,
    });
    expect(diff.differences).toEqual(['maxReplicaMemoryGb', 'autoscalingMode', 'minReplicas', 'maxReplicas']);
  });

  it('a horizontal service as the spec wants it needs no call; a changed range only the range', () => {
    const observed = service({ ...sized, ...horizontal });
    expect(diffService(spec(horizontal), uid, observed)).toEqual({ patch: {}, differences: [] });
    expect(diffService(spec({ ...horizontal, maxReplicas: 10 }), uid, observed).replicaScaling).toEqual({
      maxReplicas: 10,
    });
  });

  it('back to vertical sends the mode alone; a spec without a mode leaves it to the cloud', () => {
    const observed = service({ ...sized, ...horizontal });
    expect(diffService(spec({ autoscalingMode: 'vertical' }), uid, observed).replicaScaling).toEqual({
      autoscalingMode: 'vertical',
    });
    expect(diffService(spec(), uid, observed)).toEqual({ patch: {}, differences: [] });
  });

  it('resizes and stops in one pass when both changed', () => {
    const diff = diffService(spec({ numReplicas: 5, state: 'Stopped' }), uid, service(sized));
    expect(diff).toMatchObject({ replicaScaling: { numReplicas: 5 }, command: 'stop' });
  });
});

describe('availability', () => {
  it('counts an idle service as running and a provisioning one as not yet', () => {
    expect(availability(spec(), service({ state: 'idle' }))).toEqual({ available: true });
    expect(availability(spec(), service({ state: 'provisioning' }))).toEqual({
      available: false,
      waitingFor: 'service is provisioning',
    });
  });

  it('is available when stopped if Stopped is desired', () => {
    expect(availability(spec({ state: 'Stopped' }), service({ state: 'stopped' })).available).toBe(true);
  });
});

describe('diffService: the backup policy', () => {
  const cloudDefaults = { periodInHours: 24, retentionInHours: 24 } as const;
  const diff = (backups: DatabaseServiceSpec['backups'], observed = {}) =>
    diffService(spec({ backups }), uid, service(), { backups: { ...cloudDefaults, ...observed } });

  it('sends only the fields the spec sets that differ, as one backup configuration PATCH', () => {
    expect(diff({ retentionInHours: 72, periodInHours: 24 })).toEqual({
      patch: {},
      backupConfiguration: { backupRetentionPeriodInHours: 72 },
      differences: ['backups.retentionInHours'],
    });
  });

  it('sends nothing when the cloud has the policy, or when it was not read', () => {
    expect(diff({ periodInHours: 24 }).backupConfiguration).toBeUndefined();
    expect(diffService(spec({ backups: { periodInHours: 6 } }), uid, service())).toEqual({
      patch: {},
      differences: [],
    });
  });

  it('clears a start time the cloud has when the spec asks for another period and names no start time', () => {
    expect(diff({ periodInHours: 6 }, { startTime: '02:00' }).backupConfiguration).toEqual({
      backupPeriodInHours: 6,
      backupStartTime: null,
    });
    expect(diff({ startTime: '02:00' }, { startTime: '03:00' }).backupConfiguration).toEqual({
      backupStartTime: '02:00',
    });
  });
});
