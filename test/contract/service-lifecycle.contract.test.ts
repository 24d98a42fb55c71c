/**
 * A service's backup configuration and backups, scaling schedule and upgrade window (docs/cloud-api.md): bounds,
 * the organization's feature switches, the bodies the real API's official provider sends, and the schedule and
 * the backups following the emulator's clock.
 */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { hourOfWeek } from '../../src/cloud/schemas/index.ts';
import { control, expectMgmtError, expectOk, useContractEmulator } from './support/api.ts';
import { createRunningService, getService, serviceBody, servicePath } from './support/fixtures.ts';

const suite = useContractEmulator();
beforeEach(() => control(suite.emu).reset());

const HOUR = 3_600_000;
const path = (serviceId: string, leaf: string) => `${servicePath(serviceId)}/${leaf}`;
const patchBackups = (id: string, body: unknown) => suite.api.patch(path(id, 'backupConfiguration'), body);
const backups = async (id: string) => expectOk(await suite.api.get(path(id, 'backups')));
/** Moves the emulator's clock to `offsetMs` ahead of the host's. */
const moveClock = (offsetMs: number) => control(suite.emu).setClock({ offsetMs });

describe('backup configuration', () => {
  it('PATCH changes only the fields given, null puts one back to its default', async () => {
    const { id } = await createRunningService(suite.api);
    expect(expectOk(await patchBackups(id, { backupRetentionPeriodInHours: 72 }))).toEqual({
      backupPeriodInHours: 24,
      backupRetentionPeriodInHours: 72,
      backupStartTime: null,
    });
    expectOk(await patchBackups(id, { backupPeriodInHours: 12 }));
    expect(expectOk(await suite.api.get(path(id, 'backupConfiguration')))).toEqual({
      backupPeriodInHours: 12,
      backupRetentionPeriodInHours: 72,
      backupStartTime: null,
    });
    expect(expectOk(await patchBackups(id, { backupRetentionPeriodInHours: null }))).toMatchObject({
      backupRetentionPeriodInHours: 24,
    });
  });

  it('the official provider sends all three fields, null for the ones not set', async () => {
    const { id } = await createRunningService(suite.api);
    const body = { backupPeriodInHours: 6, backupRetentionPeriodInHours: null, backupStartTime: null };
    expect(expectOk(await patchBackups(id, body))).toEqual({
      backupPeriodInHours: 6,
      backupRetentionPeriodInHours: 24,
      backupStartTime: null,
    });
  });

  it('a start time means one backup a day', async () => {
    const { id } = await createRunningService(suite.api);
    expectOk(await patchBackups(id, { backupPeriodInHours: 12 }));
    expect(expectOk(await patchBackups(id, { backupStartTime: '03:30' }))).toMatchObject({
      backupPeriodInHours: 24,
      backupStartTime: '03:30',
    });
    expectMgmtError(await patchBackups(id, { backupPeriodInHours: 8 }), 400, 'backupPeriodInHours');
  });

  const refused: Array<[string, Record<string, unknown>, string]> = [
    ['a period the cloud does not offer', { backupPeriodInHours: 7 }, 'backupPeriodInHours'],
    ['a retention of part of a day', { backupRetentionPeriodInHours: 36 }, 'backupRetentionPeriodInHours'],
    ['a retention under a day', { backupRetentionPeriodInHours: 0 }, 'backupRetentionPeriodInHours'],
    ['a retention over 45 days', { backupRetentionPeriodInHours: 1104 }, 'backupRetentionPeriodInHours'],
    ['a start time that is no time', { backupStartTime: '24:00' }, 'backupStartTime'],
    ['a start time beside another period', { backupStartTime: '01:00', backupPeriodInHours: 12 }, 'backupPeriodInHours'],
    ['an unknown field', { backupWindow: 2 }, 'backupWindow'],
  ]; // prettier-ignore
  it.each(refused)('%s is refused naming the field, and nothing changes', async (_what, body, field) => {
    const { id } = await createRunningService(suite.api);
    expectMgmtError(await patchBackups(id, body), 400, field);
    expect(expectOk(await suite.api.get(path(id, 'backupConfiguration')))).toMatchObject({
      backupPeriodInHours: 24,
      backupRetentionPeriodInHours: 24,
    });
  });
});

describe('backups on the emulator clock', () => {
  it('one backup at creation, in progress for a minute, then done', async () => {
    const { id } = await createRunningService(suite.api);
    const [first, ...rest] = await backups(id);
    expect(rest).toEqual([]);
    expect(first).toMatchObject({ serviceId: id, status: 'in_progress', type: 'full', finishedAt: null });
    await moveClock(61_000);
    const [done] = await backups(id);
    expect(done).toMatchObject({ id: first.id, status: 'done', durationInSeconds: 60 });
    expect(expectOk(await suite.api.get(path(id, `backups/${first.id}`)))).toEqual(done);
  });

  it('one per period, newest first, and only those the retention keeps', async () => {
    const { id } = await createRunningService(suite.api);
    expectOk(await patchBackups(id, { backupPeriodInHours: 6 }));
    await moveClock(13 * HOUR);
    const list = await backups(id);
    expect(list.map((b: { status: string }) => b.status)).toEqual(['done', 'done', 'done']);
    const started = list.map((b: { startedAt: string }) => Date.parse(b.startedAt));
    expect(started[0] - started[1]).toBe(6 * HOUR);
    expect(started[1] - started[2]).toBe(6 * HOUR);
    // A day later the one taken at creation is older than the 24 hours kept.
    await moveClock(24 * HOUR);
    const kept = await backups(id);
    expect(kept).toHaveLength(4);
    expect(kept.map((b: { id: string }) => b.id)).not.toContain(list[2].id);
  });

  it('an unknown backup is 404', async () => {
    const { id } = await createRunningService(suite.api);
    expectMgmtError(await suite.api.get(path(id, `backups/${randomUUID()}`)), 404);
  });
});

describe('restore from a backup', () => {
  const doneBackupOf = async (overrides: Record<string, unknown> = {}) => {
    const original = await createRunningService(suite.api, overrides);
    await moveClock(61_000);
    return { original, backup: (await backups(original.id))[0] };
  };

  it('a finished backup into the same region and tier creates the service from it', async () => {
    const { backup } = await doneBackupOf();
    const { service } = expectOk(await suite.api.post('/services', serviceBody({ backupId: backup.id })));
    expect(service.id).not.toBe(backup.serviceId);
  });

  it('another region or tier, a backup still running or unknown is refused naming the field', async () => {
    const { original, backup } = await doneBackupOf({ tier: 'production' });
    const create = (fields: Record<string, unknown>) =>
      suite.api.post('/services', serviceBody({ tier: 'production', backupId: backup.id, ...fields }));
    expectMgmtError(await create({ region: 'eu-west-1' }), 400, 'region');
    expectMgmtError(await create({ tier: 'development' }), 400, 'tier');
    expectMgmtError(await create({ backupId: randomUUID() }), 400, 'backupId');
    const fresh = await createRunningService(suite.api, { tier: 'production' });
    const [running] = await backups(fresh.id);
    expectMgmtError(await create({ backupId: running.id }), 400, 'backupId');
    const services = expectOk(await suite.api.get('/services'));
    expect(services.map((s: { id: string }) => s.id).sort()).toEqual([original.id, fresh.id].sort());
  });
});

/** A weekly entry covering exactly the hour after the emulator's current one. */
async function nextHourEntry(fields: Record<string, unknown>) {
  const now = Date.parse((await control(suite.emu).clock()).now);
  const next = hourOfWeek(now + HOUR);
  const startOfNext = Math.floor(now / HOUR) * HOUR + HOUR;
  return {
    entry: {
      name: 'next hour',
      weekdays: [Math.floor(next / 24)],
      startHourUtc: next % 24,
      endHourUtc: (next % 24) + 1,
      ...fields,
    },
    /** Clock offsets (from the host's clock) inside the entry and just after it. */
    inside: startOfNext - Date.now() + 60_000,
    after: startOfNext - Date.now() + HOUR + 60_000,
  };
}

describe('scaling schedule', () => {
  const setSchedule = (id: string, entries: unknown[]) =>
    suite.api.post(path(id, 'scalingSchedule'), { entries });

  it('applies an entry while it is active on the clock and the base again after it', async () => {
    const { id, numReplicas } = await createRunningService(suite.api, { numReplicas: 3 });
    const { entry, inside, after } = await nextHourEntry({ minReplicas: 5, maxReplicas: 5 });
    const set = expectOk(await setSchedule(id, [entry]));
    expect(set.entries).toEqual([{ ...entry, id: expect.any(String), isActiveNow: false }]);
    expect((await getService(suite.api, id)).numReplicas).toBe(numReplicas);

    await moveClock(inside);
    expect((await getService(suite.api, id)).numReplicas).toBe(5);
    const during = expectOk(await suite.api.get(path(id, 'scalingSchedule')));
    expect(during).toMatchObject({ activeEntryId: set.entries[0].id, baseConfig: { minReplicas: 3 } });
    expect(during.entries[0].isActiveNow).toBe(true);

    await moveClock(after);
    expect((await getService(suite.api, id)).numReplicas).toBe(3);
    expect(expectOk(await suite.api.get(path(id, 'scalingSchedule')))).not.toHaveProperty('activeEntryId');
  });

  it('a resize inside an entry holds until the entry ends; the base is kept', async () => {
    const { id } = await createRunningService(suite.api, { numReplicas: 3 });
    const { entry, inside, after } = await nextHourEntry({ minReplicas: 5, maxReplicas: 5 });
    expectOk(await setSchedule(id, [entry]));
    await moveClock(inside);
    expectOk(await suite.api.get(servicePath(id)));
    expectOk(await suite.api.patch(path(id, 'replicaScaling'), { numReplicas: 6 }));
    await moveClock(inside + 60_000);
    expect((await getService(suite.api, id)).numReplicas).toBe(6);
    await moveClock(after);
    expect((await getService(suite.api, id)).numReplicas).toBe(3);
  });

  it('the official provider’s example schedule (business hours and an overnight wrap) is accepted', async () => {
    const { id } = await createRunningService(suite.api);
    const entries = [
      { name: 'Business hours', weekdays: [1, 2, 3, 4, 5], startHourUtc: 8, endHourUtc: 18, autoscalingMode: 'horizontal', minReplicas: 3, maxReplicas: 6, minReplicaMemoryGb: 16, maxReplicaMemoryGb: 16, idleScaling: false },
      { name: 'Overnight', weekdays: [0, 1, 2, 3, 4, 5, 6], startHourUtc: 22, endHourUtc: 6, minReplicas: 1, maxReplicas: 1, idleScaling: true, idleTimeoutMinutes: 5 },
    ]; // prettier-ignore
    const answer = expectOk(await setSchedule(id, entries));
    expect(answer.entries).toHaveLength(2);
    expect(answer.baseConfig).toMatchObject({ autoscalingMode: 'vertical' });
  });

  const entry = (fields: Record<string, unknown>) => ({
    name: 'w',
    weekdays: [1],
    startHourUtc: 8,
    endHourUtc: 10,
    ...fields,
  });
  const refused: Array<[string, unknown[], string]> = [
    ['two entries sharing an hour', [entry({}), entry({ startHourUtc: 9, endHourUtc: 12 })], 'entries[1]'],
    ['a wrap into the next day over another entry', [entry({ startHourUtc: 22, endHourUtc: 6 }), entry({ weekdays: [2], startHourUtc: 2, endHourUtc: 4 })], 'entries[1]'],
    ['a Saturday wrap over a Sunday entry', [entry({ weekdays: [0], startHourUtc: 1, endHourUtc: 3 }), entry({ weekdays: [6], startHourUtc: 23, endHourUtc: 2 })], 'entries[1]'],
    ['eleven entries', Array.from({ length: 11 }, (_, day) => entry({ weekdays: [day % 7], startHourUtc: day, endHourUtc: day + 1 })), 'entries'],
    ['a start equal to the end', [entry({ endHourUtc: 8 })], 'entries[0].endHourUtc'],
    ['an end hour of 0', [entry({ endHourUtc: 0 })], 'entries[0].endHourUtc'],
    ['a start hour of 24', [entry({ startHourUtc: 24 })], 'entries[0].startHourUtc'],
    ['a weekday of 7', [entry({ weekdays: [7] })], 'entries[0].weekdays[0]'],
    ['a vertical band of replicas', [entry({ minReplicas: 2, maxReplicas: 4 })], 'entries[0].maxReplicas'],
    ['one memory bound alone', [entry({ minReplicaMemoryGb: 16 })], 'entries[0].maxReplicaMemoryGb'],
    ['an idle timeout under 5 minutes', [entry({ idleTimeoutMinutes: 4 })], 'entries[0].idleTimeoutMinutes'],
  ]; // prettier-ignore
  it.each(refused)('%s is refused naming the field, and the schedule stays', async (_w, entries, field) => {
    const { id } = await createRunningService(suite.api);
    expectMgmtError(await setSchedule(id, entries), 400, field);
    expect(expectOk(await suite.api.get(path(id, 'scalingSchedule'))).entries).toEqual([]);
  });

  it('entries that only touch (a wrap ending where the next starts) are accepted', async () => {
    const { id } = await createRunningService(suite.api);
    const entries = [entry({ startHourUtc: 22, endHourUtc: 6 }), entry({ weekdays: [2], startHourUtc: 6 })];
    expect(expectOk(await setSchedule(id, entries)).entries).toHaveLength(2);
  });

  it('an organization without the feature gets 403 on GET and POST, and may still DELETE', async () => {
    const { id } = await createRunningService(suite.api);
    await control(suite.emu).setFeatures({ scheduledScaling: false });
    const message = expectMgmtError(await setSchedule(id, [entry({})]), 403);
    expect(message).toMatch(/canUseScheduledAutoscaling/);
    expectMgmtError(await suite.api.get(path(id, 'scalingSchedule')), 403);
    expectOk(await suite.api.delete(path(id, 'scalingSchedule')));
    await control(suite.emu).setFeatures({ scheduledScaling: true });
    expect(expectOk(await setSchedule(id, [entry({})])).entries).toHaveLength(1);
  });
});

describe('upgrade window', () => {
  const put = (id: string, body: unknown) => suite.api.put(path(id, 'upgradeWindow'), body);

  it('none set is 404; PUT sets it with the fixed duration; DELETE clears it', async () => {
    const { id } = await createRunningService(suite.api);
    expectMgmtError(await suite.api.get(path(id, 'upgradeWindow')), 404);
    expect(expectOk(await put(id, { weekday: 3, startHourUtc: 12 }))).toEqual({
      weekday: 3,
      startHourUtc: 12,
      duration: 6,
    });
    expect(expectOk(await suite.api.get(path(id, 'upgradeWindow')))).toMatchObject({ weekday: 3 });
    expectOk(await suite.api.delete(path(id, 'upgradeWindow')));
    expectMgmtError(await suite.api.get(path(id, 'upgradeWindow')), 404);
  });

  it.each([
    [{ weekday: 3, startHourUtc: 5 }, 'startHourUtc'],
    [{ weekday: 7, startHourUtc: 6 }, 'weekday'],
    [{ weekday: 1, startHourUtc: 6, duration: 6 }, 'duration'],
  ])('%o is refused naming %s', async (body, field) => {
    const { id } = await createRunningService(suite.api);
    expectMgmtError(await put(id, body), 400, field);
  });

  it('a secondary service cannot have one', async () => {
    const primary = await createRunningService(suite.api);
    const secondary = await createRunningService(suite.api, { dataWarehouseId: primary.dataWarehouseId });
    const message = expectMgmtError(await put(secondary.id, { weekday: 1, startHourUtc: 0 }), 400);
    expect(message).toBe('cannot set upgrade window on a secondary service');
  });

  it('without the feature PUT is 403, GET and DELETE still answer', async () => {
    const { id } = await createRunningService(suite.api);
    expectOk(await put(id, { weekday: 0, startHourUtc: 18 }));
    await control(suite.emu).setFeatures({ scheduledUpgrades: false });
    expect(expectMgmtError(await put(id, { weekday: 1, startHourUtc: 0 }), 403)).toMatch(
      /canUseScheduledUpgrades/,
    );
    expect(expectOk(await suite.api.get(path(id, 'upgradeWindow')))).toMatchObject({ weekday: 0 });
    expectOk(await suite.api.delete(path(id, 'upgradeWindow')));
  });
});
