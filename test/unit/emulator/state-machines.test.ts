import { describe, expect, it } from 'vitest';
import { SERVICE_STATES } from '../../../src/cloud/schemas/service.ts';
import {
  GONE,
  pipeCommandPlan,
  pipeRunSteps,
  rpeCreateSteps,
  rpeDeletePlan,
  serviceCommandPlan,
  serviceDeletePlan,
  serviceResizePlan,
} from '../../../src/emulator/state-machines.ts';

describe('service commands', () => {
  it('stop: running, idle and degraded go through stopping to stopped', () => {
    for (const state of ['running', 'idle', 'degraded'] as const) {
      expect(serviceCommandPlan(state, 'stop')).toEqual({ kind: 'steps', steps: ['stopping', 'stopped'] });
    }
  });

  it('stop of a stopped (or stopping) service and start of a running one are no-ops', () => {
    expect(serviceCommandPlan('stopped', 'stop')).toEqual({ kind: 'noop' });
    expect(serviceCommandPlan('stopping', 'stop')).toEqual({ kind: 'noop' });
    expect(serviceCommandPlan('running', 'start')).toEqual({ kind: 'noop' });
  });

  it('start: stopped goes through starting to running; idle wakes through awaking', () => {
    expect(serviceCommandPlan('stopped', 'start')).toEqual({ kind: 'steps', steps: ['starting', 'running'] });
    expect(serviceCommandPlan('idle', 'start')).toEqual({ kind: 'steps', steps: ['awaking', 'running'] });
  });

  it('awake: idle goes through awaking to running; on a stopped service it does nothing', () => {
    expect(serviceCommandPlan('idle', 'awake')).toEqual({ kind: 'steps', steps: ['awaking', 'running'] });
    expect(serviceCommandPlan('stopped', 'awake')).toEqual({ kind: 'noop' });
  });

  it('refuses a command the state cannot take with 409 naming the state', () => {
    expect(serviceCommandPlan('stopping', 'start')).toEqual({
      kind: 'refused',
      status: 409,
      message: "cannot start the service. Current state: 'stopping'",
    });
    expect(serviceCommandPlan('provisioning', 'stop')).toMatchObject({ kind: 'refused', status: 409 });
    expect(serviceCommandPlan('failed', 'start')).toMatchObject({ kind: 'refused', status: 409 });
    expect(serviceCommandPlan('terminating', 'awake')).toMatchObject({ kind: 'refused', status: 409 });
  });

  it('has an answer for every state and command', () => {
    for (const state of SERVICE_STATES) {
      for (const command of ['start', 'stop', 'awake'] as const) {
        expect(['steps', 'noop', 'refused']).toContain(serviceCommandPlan(state, command).kind);
      }
    }
  });
});

describe('service delete', () => {
  it('from a deletable state: terminating, then gone', () => {
    for (const state of [
      'provisioning',
      'starting',
      'awaking',
      'idle',
      'stopped',
      'degraded',
      'failed',
    ] as const) {
      expect(serviceDeletePlan(state)).toEqual({ kind: 'steps', steps: ['terminating', GONE] });
    }
  });

  it('from running or stopping: 409 naming the state in quotes', () => {
    expect(serviceDeletePlan('running')).toMatchObject({
      status: 409,
      message: expect.stringMatching(/Current state: 'running'$/),
    });
    expect(serviceDeletePlan('stopping')).toMatchObject({ status: 409 });
  });

  it('of a terminating service is a no-op', () => {
    expect(serviceDeletePlan('terminating')).toEqual({ kind: 'noop' });
  });
});

describe('pipe lifecycle', () => {
  it('streaming and continuous object storage: Provisioning → Running', () => {
    expect(pipeRunSteps('kafka', true, true)).toEqual(['Provisioning', 'Running']);
    expect(pipeRunSteps('kinesis', true, true)).toEqual(['Provisioning', 'Running']);
    expect(pipeRunSteps('objectStorage', true, true)).toEqual(['Provisioning', 'Running']);
  });

  it('one-shot object storage ends Completed', () => {
    expect(pipeRunSteps('objectStorage', false, true)).toEqual(['Provisioning', 'Running', 'Completed']);
  });

  it('postgres sets up and snapshots on creation only', () => {
    expect(pipeRunSteps('postgres', true, true)).toEqual(['Provisioning', 'Setup', 'Snapshot', 'Running']);
    expect(pipeRunSteps('postgres', true, false)).toEqual(['Provisioning', 'Running']);
  });

  it('start resumes from Stopped and Failed; from Running it is a 400 "already running"', () => {
    expect(pipeCommandPlan('Stopped', 'start', 'kafka', true)).toEqual({
      kind: 'steps',
      steps: ['Provisioning', 'Running'],
    });
    expect(pipeCommandPlan('Failed', 'start', 'kafka', true)).toEqual({
      kind: 'steps',
      steps: ['Provisioning', 'Running'],
    });
    expect(pipeCommandPlan('Running', 'start', 'kafka', true)).toEqual({
      kind: 'refused',
      status: 400,
      message: 'pipe is already running',
    });
    expect(pipeCommandPlan('Provisioning', 'start', 'kafka', true)).toMatchObject({
      kind: 'refused',
      status: 409,
    });
  });

  it('stop from any state goes through Stopping to Stopped; stopping a stopped pipe is a no-op', () => {
    for (const state of ['Running', 'Provisioning', 'Failed', 'Completed', 'Paused', 'Snapshot'] as const) {
      expect(pipeCommandPlan(state, 'stop', 'postgres', true)).toEqual({
        kind: 'steps',
        steps: ['Stopping', 'Stopped'],
      });
    }
    expect(pipeCommandPlan('Stopped', 'stop', 'kafka', true)).toEqual({ kind: 'noop' });
  });
});

describe('pipe resync', () => {
  it('re-snapshots a replicating postgres pipe: Snapshot → Running', () => {
    for (const state of ['Running', 'Degraded'] as const) {
      expect(pipeCommandPlan(state, 'resync', 'postgres', true)).toEqual({
        kind: 'steps',
        steps: ['Snapshot', 'Running'],
      });
    }
  });

  it('refuses other states with 409 and other source kinds with 400', () => {
    expect(pipeCommandPlan('Stopped', 'resync', 'postgres', true)).toMatchObject({
      kind: 'refused',
      status: 409,
    });
    expect(pipeCommandPlan('Running', 'resync', 'kafka', true)).toMatchObject({
      kind: 'refused',
      status: 400,
    });
  });
});

describe('service resize', () => {
  it('a running service passes through degraded while its replicas restart', () => {
    expect(serviceResizePlan('running')).toEqual({ kind: 'steps', steps: ['degraded', 'running'] });
  });

  it('in any other state the new size just waits for the next run', () => {
    for (const state of SERVICE_STATES.filter((s) => s !== 'running')) {
      expect(serviceResizePlan(state)).toEqual({ kind: 'noop' });
    }
  });
});

describe('reverse private endpoints', () => {
  it('a VPC endpoint service waits for acceptance; the other types are Ready after provisioning', () => {
    expect(rpeCreateSteps('VPC_ENDPOINT_SERVICE')).toEqual(['Provisioning', 'PendingAcceptance', 'Ready']);
    expect(rpeCreateSteps('VPC_RESOURCE')).toEqual(['Provisioning', 'Ready']);
    expect(rpeCreateSteps('MSK_MULTI_VPC')).toEqual(['Provisioning', 'Ready']);
  });

  it('delete: Deleting, then gone; deleting again is a no-op', () => {
    expect(rpeDeletePlan('Ready')).toEqual({ kind: 'steps', steps: ['Deleting', GONE] });
    expect(rpeDeletePlan('Deleting')).toEqual({ kind: 'noop' });
  });
});
