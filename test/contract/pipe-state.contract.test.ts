import { beforeEach, describe, expect, it } from 'vitest';
import { PIPE_STATES } from '../../src/cloud/schemas/index.ts';
import {
  expectMgmtError,
  expectOk,
  expectStays,
  recordStates,
  stepStates,
  useContractEmulator,
} from './support/api.ts';
import { createPipe, createRunningService, getPipe, pipePath, waitPipeState } from './support/fixtures.ts';
import type { PipeKind } from './support/fixtures.ts';

const TRANSITION_MS = 100;

const { emu, api, ctl } = useContractEmulator({ transitionMs: TRANSITION_MS });
let serviceId: string;

beforeEach(async () => {
  serviceId = (await createRunningService(api)).id;
});

const stateOf = (pipeId: string) => async () => (await getPipe(api, serviceId, pipeId)).state as string;
const command = (pipeId: string, cmd: string) =>
  api.patch(`${pipePath(serviceId, pipeId)}/state`, { command: cmd });

/** Creates a pipe and records its states until `final`. */
async function lifecycle(kind: PipeKind, final: string) {
  const pipe = await createPipe(api, serviceId, kind);
  const seen = await recordStates(stateOf(pipe.id), (s) => s === final, { first: pipe.state });
  return { pipe, seen };
}

describe('pipe states by source kind', () => {
  it.each(['kafka', 'kinesis'] as PipeKind[])(
    '%s: Provisioning → Running, and stays Running',
    async (kind) => {
      const { pipe, seen } = await lifecycle(kind, 'Running');
      expect(seen).toEqual(['Provisioning', 'Running']);
      await expectStays(stateOf(pipe.id), 'Running', TRANSITION_MS * 4);
    },
  );

  it('continuous objectStorage: Provisioning → Running, and stays Running', async () => {
    const { pipe, seen } = await lifecycle('continuousObjectStorage', 'Running');
    expect(seen).toEqual(['Provisioning', 'Running']);
    await expectStays(stateOf(pipe.id), 'Running', TRANSITION_MS * 4);
  });

  it('non-continuous objectStorage: Provisioning → (Running →) Completed, and stays Completed', async () => {
    const { pipe, seen } = await lifecycle('objectStorage', 'Completed');
    expect(seen[0]).toBe('Provisioning');
    expect(seen.at(-1)).toBe('Completed');
    for (const state of seen) expect(['Provisioning', 'Running', 'Completed']).toContain(state);
    await expectStays(stateOf(pipe.id), 'Completed', TRANSITION_MS * 4);
  });

  it('postgres: Provisioning → Setup → Snapshot → Running', async () => {
    await ctl.holdTransitions();
    const pipe = await createPipe(api, serviceId, 'postgres');
    const seen = await stepStates(emu, stateOf(pipe.id), (s) => s === 'Running');
    expect(seen).toEqual(['Provisioning', 'Setup', 'Snapshot', 'Running']);
    await expectStays(stateOf(pipe.id), 'Running', TRANSITION_MS * 3);
  });

  it('every reported state is a documented value', async () => {
    const { seen } = await lifecycle('postgres', 'Running');
    for (const state of seen) expect(PIPE_STATES).toContain(state);
  });
});

describe('pipe state command (extension)', () => {
  it('stop from Running: Stopping → Stopped', async () => {
    const pipe = await createPipe(api, serviceId);
    await waitPipeState(api, serviceId, pipe.id, 'Running');
    const reply = expectOk(await command(pipe.id, 'stop'));
    expect(reply.id).toBe(pipe.id);
    const seen = await recordStates(stateOf(pipe.id), (s) => s === 'Stopped', { first: reply.state });
    expect(seen).toEqual(['Stopping', 'Stopped']);
    await expectStays(stateOf(pipe.id), 'Stopped', TRANSITION_MS * 3);
  });

  it('stop during Provisioning ends Stopped (the pending provisioning does not revive it)', async () => {
    const pipe = await createPipe(api, serviceId, 'postgres');
    expect(pipe.state).toBe('Provisioning');
    const reply = expectOk(await command(pipe.id, 'stop'));
    const seen = await recordStates(stateOf(pipe.id), (s) => s === 'Stopped', { first: reply.state });
    expect(seen).toEqual(['Stopping', 'Stopped']);
    await expectStays(stateOf(pipe.id), 'Stopped', TRANSITION_MS * 5);
  });

  it.each(['Failed', 'Completed', 'Paused'])('stop from %s: Stopping → Stopped', async (from) => {
    const pipe = await createPipe(api, serviceId);
    await waitPipeState(api, serviceId, pipe.id, 'Running');
    await ctl.forceState('pipe', pipe.id, from);
    const reply = expectOk(await command(pipe.id, 'stop'));
    const seen = await recordStates(stateOf(pipe.id), (s) => s === 'Stopped', { first: reply.state });
    expect(seen).toEqual(['Stopping', 'Stopped']);
  });

  it('start from Stopped returns to Running', async () => {
    const pipe = await createPipe(api, serviceId);
    await waitPipeState(api, serviceId, pipe.id, 'Running');
    expectOk(await command(pipe.id, 'stop'));
    await waitPipeState(api, serviceId, pipe.id, 'Stopped');
    const reply = expectOk(await command(pipe.id, 'start'));
    const seen = await recordStates(stateOf(pipe.id), (s) => s === 'Running', { first: reply.state });
    expect(seen.at(-1)).toBe('Running');
  });

  it('start from Failed returns to Running', async () => {
    const pipe = await createPipe(api, serviceId);
    await waitPipeState(api, serviceId, pipe.id, 'Running');
    const forced = await ctl.forceState('pipe', pipe.id, 'Failed');
    expect(forced.state).toBe('Failed');
    expect(await stateOf(pipe.id)()).toBe('Failed');
    expectOk(await command(pipe.id, 'start'));
    await waitPipeState(api, serviceId, pipe.id, 'Running');
  });

  it('start from Running is refused with 400 already running', async () => {
    const pipe = await createPipe(api, serviceId);
    await waitPipeState(api, serviceId, pipe.id, 'Running');
    expectMgmtError(await command(pipe.id, 'start'), 400, /already running/);
    expect(await stateOf(pipe.id)()).toBe('Running');
  });

  it('refuses an unknown command naming the field', async () => {
    const pipe = await createPipe(api, serviceId);
    expectMgmtError(await command(pipe.id, 'pause'), 400, 'command');
  });

  it('a forced Failed pipe stays Failed (no timer revives it)', async () => {
    const pipe = await createPipe(api, serviceId, 'postgres');
    await ctl.forceState('pipe', pipe.id, 'Failed');
    await expectStays(stateOf(pipe.id), 'Failed', TRANSITION_MS * 5);
  });
});

describe('resync (extension): re-snapshot a postgres pipe', () => {
  it('from Running: Snapshot → Running', async () => {
    const pipe = await createPipe(api, serviceId, 'postgres');
    await waitPipeState(api, serviceId, pipe.id, 'Running');
    const reply = expectOk(await command(pipe.id, 'resync'));
    const seen = await recordStates(stateOf(pipe.id), (s) => s === 'Running', { first: reply.state });
    expect(seen).toEqual(['Snapshot', 'Running']);
  });

  it('from Degraded: Snapshot → Running', async () => {
    const pipe = await createPipe(api, serviceId, 'postgres');
    await waitPipeState(api, serviceId, pipe.id, 'Running');
    await ctl.forceState('pipe', pipe.id, 'Degraded');
    const reply = expectOk(await command(pipe.id, 'resync'));
    expect(reply.state).toBe('Snapshot');
    await waitPipeState(api, serviceId, pipe.id, 'Running');
  });

  it('of a stopped postgres pipe is refused with 409 naming the state', async () => {
    const pipe = await createPipe(api, serviceId, 'postgres');
    await ctl.forceState('pipe', pipe.id, 'Stopped');
    expectMgmtError(await command(pipe.id, 'resync'), 409, /Current state: 'Stopped'$/);
    expect(await stateOf(pipe.id)()).toBe('Stopped');
  });

  it('of a non-postgres pipe is refused with 400', async () => {
    const pipe = await createPipe(api, serviceId, 'kafka');
    await waitPipeState(api, serviceId, pipe.id, 'Running');
    expectMgmtError(await command(pipe.id, 'resync'), 400, /resync applies only to postgres pipes/);
    expect(await stateOf(pipe.id)()).toBe('Running');
  });
});

describe('Degraded and Pausing (real-API states)', () => {
  it.each(['Degraded', 'Pausing'])('stop from %s: Stopping → Stopped', async (from) => {
    const pipe = await createPipe(api, serviceId);
    await waitPipeState(api, serviceId, pipe.id, 'Running');
    await ctl.forceState('pipe', pipe.id, from);
    expect(await stateOf(pipe.id)()).toBe(from);
    const reply = expectOk(await command(pipe.id, 'stop'));
    const seen = await recordStates(stateOf(pipe.id), (s) => s === 'Stopped', { first: reply.state });
    expect(seen).toEqual(['Stopping', 'Stopped']);
  });
});
