import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DELETABLE_SERVICE_STATES, SERVICE_STATES } from '../../src/cloud/schemas/index.ts';
import {
  expectMgmtError,
  expectOk,
  expectStays,
  recordStates,
  stepStates,
  useContractEmulator,
} from './support/api.ts';
import type { Json } from './support/api.ts';
import { createRunningService, createService, getService, servicePath } from './support/fixtures.ts';

/** Long enough to observe every intermediate state by polling, short enough to keep the file fast. */
const TRANSITION_MS = 100;

const { emu, api, ctl } = useContractEmulator({ transitionMs: TRANSITION_MS });

const command = (serviceId: string, cmd: string) =>
  api.patch(`${servicePath(serviceId)}/state`, { command: cmd });
const stateOf = (serviceId: string) => async () => (await getService(api, serviceId)).state as string;
const force = (serviceId: string, state: string) => ctl.forceState('service', serviceId, state);

/** Runs a command and records the states from its reply until `final`. */
async function transition(serviceId: string, cmd: string, final: string) {
  const reply = expectOk(await command(serviceId, cmd));
  expect(reply.id).toBe(serviceId);
  return recordStates(stateOf(serviceId), (s) => s === final, { first: reply.state });
}

describe('service states', () => {
  it('every state the service reports is one of the documented values', async () => {
    const { service } = await createService(api);
    expect(SERVICE_STATES).toContain(service.state);
  });

  it('create: provisioning → running', async () => {
    const { service } = await createService(api);
    const seen = await recordStates(stateOf(service.id), (s) => s === 'running', { first: service.state });
    expect(seen).toEqual(['provisioning', 'running']);
  });

  it('stop: running → stopping → stopped', async () => {
    const service = await createRunningService(api);
    expect(await transition(service.id, 'stop', 'stopped')).toEqual(['stopping', 'stopped']);
  });

  it('start: stopped → starting → running', async () => {
    const service = await createRunningService(api);
    await transition(service.id, 'stop', 'stopped');
    expect(await transition(service.id, 'start', 'running')).toEqual(['starting', 'running']);
  });

  it('stop from idle and from degraded: → stopping → stopped', async () => {
    for (const from of ['idle', 'degraded']) {
      const service = await createRunningService(api);
      await force(service.id, from);
      expect(await transition(service.id, 'stop', 'stopped')).toEqual(['stopping', 'stopped']);
    }
  });

  it('awake (extension): idle → awaking → running', async () => {
    const service = await createRunningService(api);
    const forced = await force(service.id, 'idle');
    expect(forced.state).toBe('idle');
    expect((await getService(api, service.id)).state).toBe('idle');
    expect(await transition(service.id, 'awake', 'running')).toEqual(['awaking', 'running']);
  });

  it('stop of a stopped service is a no-op 200', async () => {
    const service = await createRunningService(api);
    await transition(service.id, 'stop', 'stopped');
    const reply = expectOk(await command(service.id, 'stop'));
    expect(reply.state).toBe('stopped');
    await expectStays(stateOf(service.id), 'stopped', TRANSITION_MS * 3);
  });

  it('start of a running service is a no-op 200', async () => {
    const service = await createRunningService(api);
    const reply = expectOk(await command(service.id, 'start'));
    expect(reply.state).toBe('running');
    await expectStays(stateOf(service.id), 'running', TRANSITION_MS * 3);
  });

  it('awake of a stopped service does nothing', async () => {
    const service = await createRunningService(api);
    await transition(service.id, 'stop', 'stopped');
    const reply = await command(service.id, 'awake');
    expect(reply.status).toBe(200);
    await expectStays(stateOf(service.id), 'stopped', TRANSITION_MS * 3);
  });

  it('refuses an unknown command, naming the field', async () => {
    const service = await createRunningService(api);
    expectMgmtError(await command(service.id, 'restart'), 400, 'command');
    expectMgmtError(await api.patch(`${servicePath(service.id)}/state`, {}), 400, 'command');
    expect((await getService(api, service.id)).state).toBe('running');
  });

  it('a command on an unknown service is 404', async () => {
    expectMgmtError(await command(randomUUID(), 'stop'), 404);
  });
});

describe('delete (extension)', () => {
  it('is refused from running with 409 CONFLICT naming the current state', async () => {
    const service = await createRunningService(api);
    const message = expectMgmtError(await api.delete(servicePath(service.id)), 409);
    expect(message).toMatch(/Current state: 'running'/);
    expect((await getService(api, service.id)).state).toBe('running');
  });

  it('is refused from stopping with 409 CONFLICT naming the current state', async () => {
    const service = await createRunningService(api);
    expectOk(await command(service.id, 'stop'));
    const message = expectMgmtError(await api.delete(servicePath(service.id)), 409);
    expect(message).toMatch(/Current state: 'stopping'/);
  });

  it('from stopped: terminating, then 404', async () => {
    const service = await createRunningService(api);
    await transition(service.id, 'stop', 'stopped');
    await ctl.holdTransitions();
    expect(await api.delete(servicePath(service.id))).toMatchObject({ status: 200 });
    const seen = await stepStates(
      emu,
      async () => {
        const reply = await api.get(servicePath(service.id));
        return reply.status === 404 ? '404' : reply.body.result.state;
      },
      (s) => s === '404',
    );
    expect(seen).toEqual(['terminating', '404']);
    expectMgmtError(await api.get(servicePath(service.id)), 404);
    const listed = expectOk(await api.get('/services'));
    expect(listed.map((s: Json) => s.id)).not.toContain(service.id);
  });

  it.each(DELETABLE_SERVICE_STATES.filter((s) => s !== 'provisioning'))(
    'is accepted from %s',
    async (state) => {
      const service = await createRunningService(api);
      await force(service.id, state);
      expectOk(await api.delete(servicePath(service.id)));
      await recordStates(
        async () => String((await api.get(servicePath(service.id))).status),
        (s) => s === '404',
      );
    },
  );

  it('is accepted from provisioning (right after create)', async () => {
    const { service } = await createService(api);
    expect(service.state).toBe('provisioning');
    expectOk(await api.delete(servicePath(service.id)));
    await recordStates(
      async () => String((await api.get(servicePath(service.id))).status),
      (s) => s === '404',
    );
  });

  it('of an unknown service is 404', async () => {
    expectMgmtError(await api.delete(servicePath(randomUUID())), 404);
  });
});
