import { describe, expect, it } from 'vitest';
import { expectData, http, useContractEmulator } from './support/api.ts';
import {
  alertBody,
  createAlert,
  createPipe,
  createRunningService,
  createService,
} from './support/fixtures.ts';

const { emu, api, alerts, ctl } = useContractEmulator();

const ms = (iso: string) => new Date(iso).getTime();

describe('the emulator clock (/_emulator/clock)', () => {
  it('reports createdAt of services, pipes and alerts behind the host clock by the offset set', async () => {
    const { id: serviceId } = await createRunningService(api);
    await ctl.setClock({ offsetMs: -60_000 });
    const before = Date.now();
    const pipe = await createPipe(api, serviceId);
    const alert = await createAlert(alerts);
    const { service } = await createService(api);
    const after = Date.now();
    for (const createdAt of [pipe.createdAt, alert.createdAt, service.createdAt]) {
      expect(ms(createdAt)).toBeGreaterThanOrEqual(before - 60_000);
      expect(ms(createdAt)).toBeLessThanOrEqual(after - 60_000);
    }
  });

  it('with precision second, reports whole seconds only', async () => {
    await ctl.setClock({ precision: 'second' });
    const created = [];
    for (let i = 0; i < 3; i++) created.push((await createAlert(alerts, alertBody('tile'))).createdAt);
    for (const createdAt of created) expect(ms(createdAt) % 1000).toBe(0);
    expect(await ctl.clock()).toMatchObject({ offsetMs: 0, precision: 'second' });
  });

  it('goes back to the host clock on reset and when a setting is left out', async () => {
    await ctl.setClock({ offsetMs: 3_600_000, precision: 'second' });
    expect(await ctl.setClock({})).toMatchObject({ offsetMs: 0, precision: 'millisecond' });
    await ctl.setClock({ offsetMs: 3_600_000 });
    await ctl.reset();
    const clock = await ctl.clock();
    expect(clock).toMatchObject({ offsetMs: 0, precision: 'millisecond' });
    expect(Math.abs(ms(clock.now) - Date.now())).toBeLessThan(5_000);
    expect(
      Math.abs(ms(expectData(await alerts.post('/alerts', alertBody())).createdAt) - Date.now()),
    ).toBeLessThan(5_000);
  });

  it('refuses an offset that is not a whole number of milliseconds or beyond a day, naming the field', async () => {
    for (const body of [{ offsetMs: 1.5 }, { offsetMs: 86_400_001 }, { precision: 'minute' }, { skew: 1 }]) {
      const reply = await http(emu, 'POST', '/_emulator/clock', { body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
    }
    const reply = await http(emu, 'POST', '/_emulator/clock', { body: { offsetMs: 1.5 } });
    expect(reply.text).toContain('offsetMs');
  });
});
